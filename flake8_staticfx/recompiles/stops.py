"""How a driver's replay stops (drivers.py): at what it does not follow, at a change of
dynamo's settings or state, or at a `return`; a loop's `break` ends the loop. Apart from drivers.py so that the modules the
replay runs project code with (project_calls.py) raise them too."""
from __future__ import annotations


class StopReplay(Exception):
    """The replay met something it does not follow."""


class StateChange(StopReplay):
    """A call that resets dynamo or changes its settings or the global state: nothing after it
    is followed, even inside a constructor."""


class StopInside(StopReplay):
    """A project function the replay stopped in midway: what it changed before the stop is not
    known, so the statement calling it cannot be passed over as unknown (unfollowed.py)."""


class Returned(Exception):
    """A `return` of an inlined function (or of a driver: its replay ends there)."""

    def __init__(self, value):
        super().__init__("return")
        self.value = value


class LoopExit(Exception):
    """A `break` (or `continue`) the replay took, for the loop around it to end (or go on)."""

    def __init__(self, broke: bool):
        super().__init__("break" if broke else "continue")
        self.broke = broke
