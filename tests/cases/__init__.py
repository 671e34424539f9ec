"""Calibration models for flake8-staticfx: each module ends in a CASES list that the oracle runs."""
