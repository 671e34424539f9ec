"""The recompiles claimed for any caller: where no driver of the file calls a module, a
counter its forward increments on itself (self_state.py) recompiles every call after the first
whoever calls the compiled module, until the recompile limit."""
from __future__ import annotations

import ast

from .. import rules
from .cache import RECOMPILE_LIMIT, Recompile
from .self_state import COUNT, counter_writes

# A list forward appends to: guarded on its length (measured: tuned/self_state.py, list_history).
GROWTH_FIX = "return the values instead of keeping them on the module"


def any_caller_recompiles(tree: ast.Module, roots: set[str], skipped_classes: frozenset[str],
                          driven: set[str], compiled: set[str]) -> list[Recompile]:
    """SFX502 at each counter a module's forward increments or list it appends to, for the modules of the file the
    analysis has as roots (`Net.forward` in `roots`), whose forward dynamo does not give up on
    (`skipped_classes`) and that no driver of the file calls (`driven`: those are counted over the
    calls the driver makes). `compiled`: the roots a torch.compile call of the project compiles;
    of any other, the claim holds "when compiled"."""
    found = []
    for write in counter_writes(tree):
        root = f"{write.cls}.forward"
        if root not in roots or write.cls in skipped_classes or root in driven:
            continue
        conditions = ((() if root in compiled else ("when compiled",))
                      + (("in training",) if write.in_training else ()))
        counted = write.kind == COUNT
        guard = f"self.{write.attribute}" if counted else f"len(self.{write.attribute})"
        found.append(Recompile(rules.COUNTER_IN_FORWARD, write.line, write.col, write.construct, guard, "forward", 0,
                               RECOMPILE_LIMIT, 0, True, 0, "", any_caller=True, conditions=conditions,
                               fix=None if counted else GROWTH_FIX))
    return found
