"""The lower bound of a frame whose inputs are not all followed (flake8_staticfx.recompiles.cache):
what dynamo never makes symbolic (the global state, a tensor input's requires_grad and rank) still
tells two calls apart. The recorded case is tests/recompile_cases/tuned/hidden_requires_grad.py;
these hold the parts on small sources."""
from __future__ import annotations

import ast
import textwrap

import pytest

from flake8_staticfx.recompiles import predict
from flake8_staticfx.recompiles.shapes import requires_grad
from flake8_staticfx.recompiles.values import Const, TensorValue

CELL = """
import torch
import torch.nn as nn


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, tokens, hidden, scale=1):
        hidden = torch.tanh(self.fc(hidden))
        return hidden, tokens.float().mean() * scale


def picked():
    return torch.nonzero(torch.arange(6) % 2 == 0)


def driver():
    cell = torch.compile(Cell())
    hidden = {start}
    {context}
        for step in range(4):
            hidden, score = cell(picked(), hidden{scale})
"""


def _predict(start: str, context: str = "if True:", scale: str = ""):
    return predict(ast.parse(CELL.format(start=start, context=context, scale=scale)))


@pytest.mark.parametrize("start, context, compiles, claimed", [
    ("torch.zeros(1, 8)", "if True:", 2, [("SFX504", 11, "tensor 'hidden' requires_grad mismatch")]),
    ("torch.zeros(1, 8)", "with torch.no_grad():", 1, []),  # the cell's output does not require grad
    ("torch.zeros(1, 8, requires_grad=True)", "if True:", 1, []),
    ("torch.zeros(8)", "if True:", 2, [("SFX504", 11, "tensor 'hidden' requires_grad mismatch")]),
])
def test_a_state_fed_back_beside_an_input_not_followed(start, context, compiles, claimed):
    frames, recompiles = _predict(start, context)
    assert [(f.compiles, f.known) for f in frames] == [(compiles, False)]
    assert [(r.rule.code, r.line, r.guard) for r in recompiles] == claimed
    assert all(r.at_least for r in recompiles)


def test_a_rank_that_changes_beside_an_input_not_followed():
    """A state that loses a dimension at each call (measured on realcode5/seq2seq_translation.py:
    `tensor 'input' rank mismatch`)."""
    source = CELL.replace("hidden = torch.tanh(self.fc(hidden))", "hidden = torch.tanh(self.fc(hidden)).mean(0)")
    frames, recompiles = predict(ast.parse(source.format(
        start="torch.zeros(2, 1, 8, requires_grad=True)", context="if True:", scale="").replace("range(4)", "range(2)")))
    assert [(f.compiles, f.known) for f in frames] == [(2, False)]
    assert [(r.rule.code, r.line, r.guard) for r in recompiles] == [("SFX504", 11, "tensor 'hidden' rank mismatch")]


def test_an_int_that_may_change_first_leaves_the_line_unclaimed():
    """dynamo checks an int parameter's guard before the tensors': where its value is not known at
    every call, the failing guard is not surely the frame's; the count stays a lower bound."""
    frames, recompiles = _predict("torch.zeros(1, 8)", scale=", scale=step")
    assert [(f.compiles, f.known) for f in frames] == [(2, False)]
    assert recompiles == []
    frames, recompiles = _predict("torch.zeros(1, 8)", scale=", scale=2")
    assert [r.line for r in recompiles] == [11]


def test_a_requires_grad_not_known_tells_nothing():
    """An output the forward reader does not follow: whether it requires grad is not known."""
    source = CELL.replace("hidden = torch.tanh(self.fc(hidden))",
                          "hidden = torch.tanh(self.fc(hidden)).unknown()")
    frames, recompiles = predict(ast.parse(source.format(start="torch.zeros(1, 8)", context="if True:", scale="")))
    assert [(f.compiles, f.known) for f in frames] == [(1, False)]
    assert recompiles == []


def test_blocks_compiled_after_an_embedding_do_not_know_their_first_input():
    """A forward that embeds its input before the compiled blocks: the first block's input
    requires grad or not, the replay does not say (realcode2/minrf_dit.py compiles once)."""
    source = textwrap.dedent("""
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x, freqs):
                return x + self.fc(x) * freqs

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Linear(8, 8)
                self.blocks = nn.ModuleList([Block() for _ in range(3)])

            def forward(self, x):
                {first}
                for block in self.blocks:
                    x = block(x)
                return x

        def driver():
            model = Net()
            for block in model.blocks:
                block.compile()
            model(torch.randn(2, 8))
    """)
    embedded = predict(ast.parse(source.format(first="x = self.embed(x)")))
    assert [f.compiles for f in embedded[0]] == [1] and embedded[1] == []
    plain = predict(ast.parse(source.format(first="pass")))
    assert [f.compiles for f in plain[0]] == [1] and plain[1] == []


def test_requires_grad_of_a_result():
    assert requires_grad(TensorValue((2,), True), TensorValue(None, None)) is True
    assert requires_grad(TensorValue((2,)), TensorValue(None, None)) is None
    assert requires_grad(TensorValue((2,)), Const(1.0)) is False
