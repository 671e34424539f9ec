"""A wall-clock guard for tests that must prove the analysis returns."""
from __future__ import annotations

import signal
from contextlib import contextmanager


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that analyze()'s per-root guard lets it through."""


@contextmanager
def wall_clock_guard(seconds: float):
    def expire(signum, frame):  # noqa: ARG001
        raise Hang(f"analysis still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
