"""The record a front end receives for each diagnostic: a module of its own, light to import,
so that answers kept between runs (cache.py) are read back without importing the analysis."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One diagnostic as the front ends receive it, its parts apart: the plugin gives flake8
    `message`, `check` prints `code` and `text` and its formats the GB ids, and none of them
    reads a part back out of the message."""

    line: int  # 1-based
    col: int  # 0-based, as flake8 expects
    message: str  # as flake8 prints it: the code, a space, the text (messages.render composes it)
    code: str
    gb_ids: tuple[str, ...] = ()
    # When the break happens, when only in some ways of running the model ('when training'):
    # messages.condition_label of its region's conditions.
    condition: str | None = None
    # A to-do item: the line of the earlier break it waits on (dynamo reports it once that one is
    # fixed); None for a break dynamo reports now.
    waits_on: int | None = None

    @property
    def text(self) -> str:
        """The message after its code."""
        return self.message[len(self.code) + 1:]
