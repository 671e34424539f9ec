"""How many times dynamo compiles each compiled frame over the call sequence the project's own
code describes, and which line makes it recompile.

`drivers.py` replays the project's driver code (a training loop, a sampler, the regional
compilation of a model's blocks) on descriptions of values: which frames are compiled, with
which settings, and the arguments, attributes and global state of each call. `frames.py` reads a
compiled frame's source for what dynamo specialises on (a parameter in `range()`, an int module
attribute, a per-block constant). `cache.py` replays dynamo's cache of compiled entries over the
calls: automatic dynamic shapes and ints, the recompile limit (8 in torch 2.13).
`self_state.py` reads the counters a module's forward increments on itself; `any_caller.py`
claims their recompiles for any caller where no driver calls the module.
"""
from __future__ import annotations

from .cache import (RECOMPILE_LIMIT, FrameCompiles, Recompile, partly_eager_forwards, predict, resumed_forwards,
                    skipped_forwards)
from .any_caller import any_caller_recompiles

__all__ = ["RECOMPILE_LIMIT", "FrameCompiles", "Recompile", "any_caller_recompiles", "partly_eager_forwards", "predict",
           "resumed_forwards", "skipped_forwards"]
