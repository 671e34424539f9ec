"""Values the driver replay follows where real drivers went (flake8_staticfx.recompiles): a
TensorDataset of tensors whose first dimension alone is known, math on numbers not known. The
recorded cases are tests/recompile_cases/realcode5 (super_resolution.py); these hold the parts on
small sources."""
from __future__ import annotations

import ast

import pytest

from flake8_staticfx.recompiles import predict
from flake8_staticfx.recompiles.arithmetic import math_call
from flake8_staticfx.recompiles.grads import inherited_parameter, layer_result, method_grad
from flake8_staticfx.recompiles.named_calls import named_value
from flake8_staticfx.recompiles.shapes import ShapeUnknown, requires_grad, tensor_method
from flake8_staticfx.recompiles.stops import StopReplay
from flake8_staticfx.recompiles.unfollowed import item_not_followed
from flake8_staticfx.recompiles.values import (UNKNOWN, UNKNOWN_SIZE, Batches, Const, Function, ListValue, Number,
                                               TensorRows, TensorValue, Unfollowed)

DOWNSCALED = """
import torch
import torch.nn as nn
from math import log10
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


def driver():
    target = torch.rand(20, 1, 24, 24)
    small = nn.functional.interpolate(target, {resize})
    loader = DataLoader(dataset=TensorDataset(small, target), batch_size=8)
    model = torch.compile(Net())
    for x, y in loader:
        loss = model(x).pow(2).mean()
        print(log10(1 / loss.item()))
    with torch.no_grad():
        for x, y in loader:
            model(x)
"""


@pytest.mark.parametrize("resize, known, compiles, lines", [
    # sizes not known: the batches' rows are, and the global state tells the eval calls apart
    ("scale_factor=0.5, mode='bilinear'", False, 2, [13]),
    # sizes known (in "area" mode torch's Python code computes them): 8, 8, 4 rows recompile
    # once (a dynamic batch), no_grad once more
    ("scale_factor=1 / 3, mode='area'", True, 3, [13]),
    ("size=(8, 8), mode='area'", True, 3, [13]),
])
def test_a_loader_over_downscaled_crops(resize, known, compiles, lines):
    frames, recompiles = predict(ast.parse(DOWNSCALED.format(resize=resize)))
    assert [(f.compiles, f.known, f.calls) for f in frames] == [(compiles, known, 6)]
    assert sorted({r.line for r in recompiles}) == lines


def test_interpolate_keeps_batch_and_channels():
    target = TensorValue((20, 1, 24, 24))
    scaled = named_value("torch.nn.functional.interpolate", [target], {"scale_factor": Const(0.5)}, 1, "grad")
    assert scaled.shape == (20, 1, UNKNOWN_SIZE, UNKNOWN_SIZE) and scaled.guard_shape() is None
    sized = named_value("torch.nn.functional.interpolate", [target], {"size": Const(12)}, 1, "grad")
    assert sized.shape == (20, 1, 12, 12)
    area = named_value("torch.nn.functional.interpolate", [target],
                       {"scale_factor": Const(1 / 3), "mode": Const("area")}, 1, "grad")
    assert area.shape == (20, 1, 8, 8)  # int(24 * (1 / 3)), as F.interpolate computes it
    unknown = named_value("torch.nn.functional.interpolate", [target],
                          {"scale_factor": Number(), "mode": Const("area")}, 1, "grad")
    assert unknown.shape == (20, 1, UNKNOWN_SIZE, UNKNOWN_SIZE)


def test_a_dataset_needs_its_rows_known():
    rows = named_value("torch.utils.data.TensorDataset", [TensorValue((20, UNKNOWN_SIZE))], {}, 1, "grad")
    assert isinstance(rows, TensorRows) and rows.length == 20
    loader = named_value("torch.utils.data.DataLoader", [], {"dataset": rows, "batch_size": Const(8)}, 1, "grad")
    assert isinstance(loader, Batches) and [b.items[0].shape for b in loader.items()] == [
        (8, UNKNOWN_SIZE), (8, UNKNOWN_SIZE), (4, UNKNOWN_SIZE)]
    unknown = named_value("torch.utils.data.TensorDataset", [TensorValue((UNKNOWN_SIZE, 3))], {}, 1, "grad")
    assert unknown is None
    grads = named_value("torch.utils.data.TensorDataset", [TensorValue((20, 3), None)], {}, 1, "grad")
    assert grads is None  # whether it requires grad is not known


def test_math_on_a_number_not_known():
    assert math_call("math.log10", [Number()]) == Number()
    assert math_call("math.log10", [Const(100)]) == Const(2.0)


POLICY = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Linear(4, 2)

    def forward(self, x):
        return F.softmax(self.affine(x), dim=1)


def driver():
    policy = torch.compile(Policy())
    log_probs = []
    for step in range(3):
        m = Categorical(policy(torch.randn(1, 4)))
        action = m.sample()
        log_probs.append(m.log_prob(action))
        print(action.item() + 1)
    with torch.no_grad():
        policy(torch.randn(1, 4))
"""


def test_a_policy_sampled_through_a_categorical():
    """pytorch/examples' reinforce: the action sampled from the compiled policy's probabilities
    (measured with torch 2.13: 2 compiles, the no_grad call's global state)."""
    frames, recompiles = predict(ast.parse(POLICY))
    assert [(f.compiles, f.known, f.calls) for f in frames] == [(2, True, 4)]
    assert [(r.rule.code, r.line) for r in recompiles] == [("SFX506", 13)]


def test_what_a_categorical_gives():
    probs = TensorValue((1, 2), True)
    m = named_value("torch.distributions.Categorical", [probs], {}, 1, "grad")
    assert m.sample().shape == (1,) and m.sample().requires_grad is False
    assert m.log_prob(True).requires_grad is True and m.log_prob(False).requires_grad is False
    assert named_value("torch.distributions.Categorical", [probs], {"validate_args": Const(False)}, 1, "grad") is None


MEMORY = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, memory):
        return self.fc(x) + memory.mean(0)


def driver():
    model = torch.compile(Net())
    memory = torch.zeros(2, 4)
    layers = [nn.Linear(4, 4)] + [nn.Linear(4, 4)]
    for step in range(2):
        out = model(torch.randn(1, 4), memory)
        memory[:, :2] *= 0.5
    memory[0][1:] = {written}
    model(torch.randn(1, 4), memory)
"""


@pytest.mark.parametrize("written, compiles, lines", [
    ("out[0, 1:]", 2, [11]),  # the model's output requires grad: so does the memory from then on
    ("0.0", 1, []),
    ("torch.ones(3)", 1, []),
])
def test_a_tensor_written_in_place_requires_grad_as_what_is_written(written, compiles, lines):
    """Measured with torch 2.13 (`tensor 'memory' requires_grad mismatch` for the output written)."""
    frames, recompiles = predict(ast.parse(MEMORY.format(written=written)))
    assert [(f.compiles, f.known, f.calls) for f in frames] == [(compiles, True, 3)]
    assert [r.line for r in recompiles] == lines


FORWARD_FORWARD = """
import torch
import torch.nn as nn


class Layer(nn.Linear):
    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return torch.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))


def driver():
    layers = [Layer(8, 8), Layer(8, 8)]
    for layer in layers:
        layer.compile()
    {context}
        for step in range(3):
            h = torch.rand(4, 8{grad})
            for layer in layers:
                h = layer(h)
"""


@pytest.mark.parametrize("context, grad, compiles, lines", [
    # the second layer is fed the first one's output, which requires grad (its weight does)
    ("if True:", "", 2, [7]),
    ("with torch.no_grad():", "", 1, []),
    ("if True:", ", requires_grad=True", 1, []),
])
def test_layers_fed_one_anothers_output_of_a_shape_not_followed(context, grad, compiles, lines):
    """pytorch/examples' forward-forward, each layer compiled (measured with torch 2.13: 2, 1
    and 1 compiles, `tensor 'x' requires_grad mismatch`): the forward's shapes are not followed
    (`x.norm`), whether its output requires grad is."""
    frames, recompiles = predict(ast.parse(FORWARD_FORWARD.format(context=context, grad=grad)))
    assert [(f.compiles, f.calls) for f in frames] == [(compiles, 6)]
    assert [(r.line, r.guard) for r in recompiles] == [(line, "tensor 'x' requires_grad mismatch") for line in lines]


def test_requires_grad_where_shapes_are_not_followed():
    unknown = TensorValue(None, False)
    assert requires_grad(unknown, Const(2)) is False and requires_grad(unknown, UNKNOWN) is None
    assert requires_grad(unknown, Unfollowed()) is None  # what a statement not followed bound may be a tensor
    assert requires_grad(ListValue([unknown, TensorValue(None, True)])) is True
    assert method_grad(TensorValue(None, True), "mul", [UNKNOWN], False) is False  # no grad mode: no grad
    assert method_grad(TensorValue(None, True), "detach", [], True) is False
    assert method_grad(unknown, "requires_grad_", [], False) is True
    assert layer_result("Linear", [UNKNOWN], True).requires_grad is True
    assert layer_result("ReLU", [UNKNOWN], True).requires_grad is None
    assert layer_result("LSTM", [unknown], True) is None  # a tuple
    cls = ast.parse("class Layer(nn.Linear):\n    pass").body[0]
    assert inherited_parameter(cls, "weight").requires_grad is True and inherited_parameter(cls, "scale") is None


SETTINGS = '''
import torch
from types import SimpleNamespace

args = SimpleNamespace(top_k=-1, steps=2)


class Rows:
    def __init__(self, words):
        self.words = words

    def __len__(self):
        return len(self.words)


@torch.compile
def step(x, k):
    return x * k


def sample(x):
    return step(x, args.top_k)


def driver():
    rows = Rows(open("names.txt").read().splitlines())
    print(f"{len(rows)} rows, vocabulary {''.join(rows.words)}")
    x = torch.randn(2)
    sample(x)
    args.top_k = 5
    sample(x)
'''


def test_a_setting_the_driver_writes_is_read_by_the_functions_after():
    """makemore's `args.top_k = 5` before sampling, `len()` of its dataset class and `''.join`:
    the int passed changes once (measured with torch 2.13: 2 compiles)."""
    frames, recompiles = predict(ast.parse(SETTINGS))
    assert [(f.compiles, f.known, f.calls) for f in frames] == [(2, True, 2)]
    assert [(r.line, r.guard) for r in recompiles] == [(18, "k")]
    assert named_value("len", [Unfollowed()], {}, 1, "grad") == Number()


def test_random_picks_and_items_of_tables_not_followed():
    """seq2seq's `random.choice(pairs)` and `pair[0]`, char-RNN's `l[random.randint(0, len(l) - 1)]`
    over a table the module builds: a number or an object not followed, never a guess."""
    assert named_value("random.randint", [Const(0), Number()], {}, 1, "grad") == Number()
    assert named_value("random.choice", [ListValue([Const(1), Const(2.5)])], {}, 1, "grad") == Number()
    assert isinstance(named_value("random.choice", [Const(("Russian", "German"))], {}, 1, "grad"), Unfollowed)
    assert isinstance(named_value("random.choice", [Function("pairs")], {}, 1, "grad"), Unfollowed)
    assert named_value("random.choice", [ListValue([TensorValue((2,)), TensorValue((3,))])], {}, 1, "grad") is None
    assert isinstance(item_not_followed(Function("category_lines"), Unfollowed(), {}), Unfollowed)
    assert item_not_followed(ListValue([Const(3), Const(4)]), Number(), {}) == Number()
    with pytest.raises(StopReplay):
        item_not_followed(ListValue([TensorValue((2,))]), Number(), {})  # which tensor: not known
    with pytest.raises(StopReplay):
        item_not_followed(Function("make"), Const(0), {"make": None})  # a function of the file


TABLE = '''
import random
import torch


def build():
    return [("a b", "c"), ("d", "e f")]


PAIRS = build()


@torch.compile
def step(x):
    return x + 1


def driver():
    for i in range(3):
        pair = random.choice(PAIRS)
        words = pair[0]
        teacher = random.random() < 0.5
        step(torch.randn(2))
    with torch.no_grad():
        step(torch.randn(2))
'''


def test_a_driver_picking_from_a_table_it_does_not_follow_is_replayed_whole():
    """Measured with torch 2.13: 2 compiles (the no_grad call)."""
    frames, recompiles = predict(ast.parse(TABLE))
    assert [(f.compiles, f.known, f.calls) for f in frames] == [(2, True, 4)]
    assert [(r.rule.code, r.line) for r in recompiles] == [("SFX506", 13)]


def test_a_factory_of_sizes_not_known_keeps_its_rank():
    """char-RNN's `torch.zeros(len(line), 1, n_letters)`: three dimensions, the first not known;
    its size there is a number, never the marker itself."""
    zeros = named_value("torch.zeros", [Number(), Const(1), Unfollowed()], {}, 1, "grad")
    assert zeros.shape == (UNKNOWN_SIZE, 1, UNKNOWN_SIZE) and zeros.requires_grad is False
    assert named_value("torch.zeros", [Unfollowed()], {}, 1, "grad").shape is None  # maybe a tuple of sizes
    with pytest.raises(ShapeUnknown):
        tensor_method(zeros, "size", [Const(0)], {}, True)
    assert tensor_method(zeros, "size", [Const(1)], {}, True) == Const(1)
    assert tensor_method(zeros, "dim", [], {}, True) == Const(3)
