"""One function activation of the abstract interpreter: the frame, and the chain of frames
each node and diagnostic carries (the inline chain: root first)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from astroid import nodes

from ..discover.projects import SourceModule
from ..ir import CallStack, SourceSpan
from ..values.base import Value
from .resume import ResumeState


_SERIALS = itertools.count(1)


def next_serial() -> int:
    """A number no frame or call evaluation had before (they are only compared)."""
    return next(_SERIALS)


Comprehension = nodes.ListComp | nodes.SetComp | nodes.DictComp | nodes.GeneratorExp
# The names CPython 3.11 gives a comprehension's function, as dynamo's messages show them.
COMPREHENSION_NAMES = {nodes.ListComp: "<listcomp>", nodes.SetComp: "<setcomp>",
                       nodes.DictComp: "<dictcomp>", nodes.GeneratorExp: "<genexpr>"}


@dataclass
class Frame:
    """One function activation of the abstract interpreter."""

    # Module: module-level code; a comprehension: the function Python 3.11 makes of it
    function: nodes.FunctionDef | nodes.Lambda | nodes.Module | Comprehension
    module: SourceModule
    env: dict[str, Value]
    caller: Frame | None = None
    call_site: nodes.NodeNG | None = None
    closure: Frame | None = None
    cls: nodes.ClassDef | None = None
    # Where the frame stands, for what dynamo does after a break in it (resume.py).
    resume: ResumeState = field(default_factory=ResumeState)
    # What the frame's receiver was built from (`Module.configuration`): dynamo's guards on it
    # decide whether a compiled frame is reused for another instance (segments.py).
    receiver_configuration: Any = None
    returns: list[Value] = field(default_factory=list)
    # Which frame this is, and which evaluation of its call site made it: the calls a loop
    # makes at one site are calls of their own, the layers one container call runs share one
    # evaluation (segments.py).
    serial: int = field(default_factory=next_serial)
    evaluation: int = 0  # 0: its own
    # call_stack(), made on first use: every node of the frame carries the same one.
    _call_stack: CallStack | None = field(default=None, repr=False)

    @property
    def depth(self) -> int:
        return 0 if self.caller is None else self.caller.depth + 1

    @property
    def is_comprehension(self) -> bool:
        """Is this the function Python 3.11 makes of a comprehension?"""
        return isinstance(self.function, Comprehension)

    @property
    def name(self) -> str:
        return getattr(self.function, "name", None) or COMPREHENSION_NAMES.get(type(self.function), "<lambda>")

    def lookup(self, name: str) -> Value | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.env:
                return frame.env[name]
            frame = frame.closure
        return None

    def active(self, function: nodes.NodeNG) -> bool:
        """Is `function` already being interpreted on this stack? (recursion)"""
        frame: Frame | None = self
        while frame is not None:
            if frame.function is function:
                return True
            frame = frame.caller
        return False

    def call_stack(self) -> CallStack:
        """The inlined calls that lead to this frame. Fixed once the frame is entered, so made
        once, not per node."""
        if self._call_stack is None:
            if self.caller is None:
                self._call_stack = CallStack()
            else:
                outer = self.caller.call_stack()
                site = self.call_site
                if site is None:  # a default or module-level value evaluated for the caller
                    self._call_stack = outer
                else:
                    span = SourceSpan(self.caller.module.path, site.lineno or 0, site.col_offset or 0,
                                      site.end_lineno or 0, site.end_col_offset or 0, self.caller.name)
                    self._call_stack = CallStack((*outer.sites, span), (*outer.receivers, self.receiver_configuration),
                                                 (*outer.frames, (self.evaluation or self.serial, self.serial)))
        return self._call_stack

    def callee(self, function: nodes.FunctionDef, module: SourceModule, call_site: nodes.NodeNG,
               cls: nodes.ClassDef | None = None) -> Frame:
        """A frame of its own for `function`, called from this one at `call_site`, no argument bound."""
        return Frame(function, module, {}, caller=self, call_site=call_site, cls=cls)

    def stack(self) -> list[Frame]:
        """Root first."""
        frames = []
        frame: Frame | None = self
        while frame is not None:
            frames.append(frame)
            frame = frame.caller
        return frames[::-1]
