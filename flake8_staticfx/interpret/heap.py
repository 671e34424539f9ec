"""The mutable state of one graph's interpretation, and the trail that lets branches merge.

Python values are mutated in place (`xs.append(t)`, `d[k] = v`, `obj.a = v`, `self.cache = t`
in forward), so that aliases, callers and later reads see the change as Python does. Inside a
branch whose outcome is not known statically, each mutation is recorded first: at the end of
one path the state is rewound to where the branch began, the other path runs from there, and
each container either path changed takes the join of its two states. A path that ended
(`return`, `raise`) does not contribute.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Protocol

from ..values import Module, Obj, Value

Flow = Any  # interpreter.FALLS_THROUGH (None) or how a path ended


class Mutable(Protocol):
    """A value the code can change in place."""

    def state(self) -> Any: ...

    def restore(self, state: Any) -> None: ...

    def join_states(self, a: Any, b: Any) -> Any: ...


class WrittenAttributes:
    """Module attributes forward assigns (`self.cache = t`): later reads in the graph see them."""

    def __init__(self) -> None:
        self.values: dict[tuple[int, str], Value] = {}

    def state(self) -> dict:
        return dict(self.values)

    def restore(self, state: dict) -> None:
        self.values = dict(state)

    def join_states(self, a: dict, b: dict) -> dict:
        from ..values import join_attributes

        return join_attributes(a, b)


class FlagTests:
    """What the enclosing tests `if self.<flag>:` of unknown outcome say about the modules'
    flags on the path being run, and the flag whose test the paths being joined took."""

    def __init__(self) -> None:
        self.truths: dict[tuple[int, str], tuple[Module, bool]] = {}
        self.joining: tuple[Module, str] | None = None

    @contextmanager
    def holding(self, flag: tuple[Module, str] | None, truth: bool) -> Iterator[None]:
        """Run a path on which `flag` (module, name) has this truth."""
        if flag is None:
            yield
            return
        key = (id(flag[0]), flag[1])
        before = self.truths.get(key)
        self.truths[key] = (flag[0], truth)
        try:
            yield
        finally:
            if before is None:
                self.truths.pop(key, None)
            else:
                self.truths[key] = before

    @contextmanager
    def joined(self, flag: tuple[Module, str] | None) -> Iterator[None]:
        """Join the paths of the test of `flag`."""
        outer, self.joining = self.joining, flag
        try:
            yield
        finally:
            self.joining = outer

    def truth(self, module: Module, name: str) -> bool | None:
        held = self.truths.get((id(module), name))
        return held[1] if held is not None else None

    def forget(self, module: Value, name: str) -> None:
        """The code set the flag: the test no longer tells what it is."""
        self.truths.pop((id(module), name), None)

    def key(self) -> tuple:
        """For the keys of call summaries: a call inlined under these truths is no other call."""
        return tuple(sorted((key, truth) for key, (_, truth) in self.truths.items()))


class Heap:
    """What the code made and changed while one graph is built."""

    def __init__(self) -> None:
        self.flags = FlagTests()
        self.trail: list[tuple[Mutable, Any]] = []  # (container, its state before a mutation)
        self.open_branches = 0
        self.written = WrittenAttributes()
        self.objects: dict[int, Obj] = {}  # id of an object -> the one this graph works on
        self.local_objects: set[int] = set()  # ids of the objects made in this graph

    def record(self, container: Mutable) -> None:
        """`container` is about to change: keep its state if a branch may have to undo it."""
        if self.open_branches:
            self.trail.append((container, container.state()))

    def begin_branch(self) -> int:
        self.open_branches += 1
        return len(self.trail)

    def end_path(self, mark: int) -> dict[int, tuple[Mutable, Any, Any]]:
        """Close one path of the branch begun at `mark`: what it changed (container, state after
        the path, state at the mark), with the state rewound to the mark."""
        changed = self._changed_since(mark)
        after = {key: (container, container.state(), before) for key, (container, before) in changed.items()}
        for container, state in reversed(self.trail[mark:]):
            container.restore(state)
        del self.trail[mark:]
        return after

    def join_paths(self, mark: int, first: dict[int, tuple[Mutable, Any, Any]], first_flow: Flow,
                   second_flow: Flow) -> None:
        """Close the branch begun at `mark`: the first path's changes (from `end_path`) meet the
        second path's, which are the current state."""
        second = self._changed_since(mark)
        self.open_branches -= 1
        for key in {**first, **second}:
            if key in first:
                container, first_state, _ = first[key]
            else:
                container, first_state = second[key][0], second[key][1]
            second_state = container.state()
            if first_flow is not None and second_flow is None:
                merged = second_state
            elif second_flow is not None and first_flow is None:
                merged = first_state
            else:
                merged = container.join_states(first_state, second_state)
            self.record(container)
            container.restore(merged)

    def _changed_since(self, mark: int) -> dict[int, tuple[Mutable, Any]]:
        """Each container changed since `mark`, with its state at the mark."""
        changed: dict[int, tuple[Mutable, Any]] = {}
        for container, state in self.trail[mark:]:
            changed.setdefault(id(container), (container, state))
        return changed
