"""Shared pytest configuration for the flake8-staticfx test suite."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "oracle: re-runs torch.compile on the case corpus to check the recorded truth (needs torch 2.13.0; slow)",
    )
