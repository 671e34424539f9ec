"""Loops a test on data ends (open_loops.py): only what holds whatever the number of passes (at
least one) is claimed. The recorded cases are tests/recompile_cases/tuned/open_loops.py."""
from __future__ import annotations

import ast
import textwrap

import pytest

from flake8_staticfx.recompiles import predict

HEADER = """
import random
from itertools import count
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)
        self.saved = []

    def forward(self, x, step=0):
        return self.fc(x) * step


@torch.compile
def select(net, x):
    net.saved.append(x)
    return net(x)


def run():
    net = torch.compile(Net())
"""


def _frames(driver: str):
    frames, recompiles = predict(ast.parse(HEADER + textwrap.indent(textwrap.dedent(driver), "    ")))
    return {frame.root: (frame.compiles, frame.known) for frame in frames}, [r.line for r in recompiles]


@pytest.mark.parametrize("driver, expected", [
    # every pass calls as the first did: one compile whatever the count
    ("""
     for episode in count(1):
         for t in range(1, 10000):
             net(torch.rand(1, 4))
             if random.random() < 0.1:
                 break
         if random.random() < 0.5 or episode >= 3:
             break
     """, {"Net.forward": (1, True)}),
    # the step number passed: the second pass recompiles, if there is one
    ("""
     for t in range(1, 10000):
         net(torch.rand(1, 4), t)
         if random.random() < 0.1:
             break
     """, {"Net.forward": (1, False)}),
    # a break on data before the call: the call may never happen, the replay stops before it
    ("""
     for t in range(1, 10000):
         if random.random() < 0.1:
             break
         net(torch.rand(1, 4))
     """, {}),
])
def test_a_loop_a_test_on_data_ends(driver, expected):
    frames, lines = _frames(driver)
    assert frames == expected
    assert lines == []


def test_a_compiled_function_growing_a_list_it_is_given_is_not_counted():
    """`select` guards the length of `net.saved`, which it appends to: three calls compile three
    times (measured: tuned/open_loops.py, list_grows_per_call). The replay does not follow what
    the compiled frame does to the module it is given, and claims no count."""
    frames, lines = _frames("""
        plain = Net()
        for _ in range(3):
            select(plain, torch.rand(1, 4))
        """)
    assert frames["select"] == (1, False)
    assert lines == []
