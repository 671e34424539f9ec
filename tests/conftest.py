"""Shared pytest configuration for the flake8-staticfx test suite."""
import os


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "oracle: re-runs torch.compile on the case corpus to check the recorded truth (needs torch 2.13.0; slow)",
    )


def pytest_sessionstart(session):
    """The tests check the analysis, never a user's kept answers: the cache between runs is off
    (tests/test_cache.py turns it on in a temporary directory)."""
    os.environ["FLAKE8_STATICFX_NO_CACHE"] = "1"
