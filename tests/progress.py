"""Progress on the terminal for test steps that run over a minute, past pytest's capture.

pytest captures file descriptors 1 and 2 while a test runs, so a long step looks hung. These
helpers suspend the capture for the moment they write: `say` prints a line, `run` runs a
command whose stderr (where the oracle recorder reports each case) goes straight to the
terminal while its stdout is kept for the test.
"""
from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager


@contextmanager
def uncaptured(config):
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is None:  # -p no:capture
        yield
        return
    with capture.global_and_fixture_disabled():
        yield


def say(config, text: str) -> None:
    with uncaptured(config):
        sys.stderr.write(f"\n{text}\n")
        sys.stderr.flush()


def run(config, command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run with stdout captured (as text) and stderr streamed to the terminal."""
    with uncaptured(config):
        sys.stderr.write("\n")
        sys.stderr.flush()
        return subprocess.run(command, stdout=subprocess.PIPE, text=True, **kwargs)
