"""Module attributes that `__init__` set under a test of one of the module's own flags."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .base import Value, signature_of
from .joins import join

if TYPE_CHECKING:
    from ..interpret.interpreter import Interpreter
    from .modules import Module


@dataclass(eq=False)
class ChosenByFlag(Value):
    """An attribute `__init__` set under `if self.<flag>:` of unknown outcome: `then` where the
    flag holds, `orelse` where it does not. Code under the same test sees the side its test
    took (timm's Sequencer: `LSTM2d.__init__` builds `rnn_v` as an LSTM `if self.with_vertical:`,
    and the forward it inherits calls `self.rnn_v` only `if self.with_vertical:`); elsewhere it
    is the join of the two."""

    flag: str
    then: Value
    orelse: Value

    def describe(self) -> str:
        return f"chosen by {self.flag}"

    def chosen(self, tx: Interpreter, module: Module) -> Value:
        """What `module.<attribute>` is where the code now runs."""
        truth = tx.heap.flags.truth(module, self.flag)
        if truth is None:
            return join(self.then, self.orelse)
        side = self.then if truth else self.orelse
        return side.chosen(tx, module) if isinstance(side, ChosenByFlag) else side

    def signature(self, depth: int) -> Any:
        return ("F", self.flag, signature_of(self.then, depth + 1), signature_of(self.orelse, depth + 1))


def chosen_by(flag: str, then: Value, orelse: Value) -> Value:
    """The attribute after `if self.<flag>:` whose paths left it `then` and `orelse`."""
    return then if then is orelse else ChosenByFlag(flag, then, orelse)
