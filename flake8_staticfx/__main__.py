"""`python -m flake8_staticfx`: the same commands as the `flake8-staticfx` console script (cli.py).

    python -m flake8_staticfx check [PATH ...] [--format text|json|sarif|github]
    python -m flake8_staticfx graph FILE [--root NAME] [--format text|dot|json|svg|html]
    python -m flake8_staticfx report DIR [--format text|json|markdown]
    python -m flake8_staticfx fix PATH... [--diff] [--select CODES]
"""
import sys

from .front.cli import main, run

__all__ = ["main", "run"]

if __name__ == "__main__":
    sys.exit(run(prog="python -m flake8_staticfx"))
