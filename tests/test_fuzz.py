"""Property-based robustness: whatever model file it is given, the analysis returns, quickly.

(a) generated model files: nn.Module subclasses whose forward bodies are random compositions
    of statements (branches on tensors, shapes and attributes, loops over ranges, ModuleLists
    and tensors, helpers that recurse, comprehensions, lambdas, try/with/match, walrus,
    `.item()`, `print`, ...);
(b) real-looking model files mutated line by line (deleted, duplicated, swapped, moved,
    re-indented lines), each mutation kept only when `ast.parse` still accepts the file;
(c) hypothesmith's grammar-generated Python put into and around a model.

Each goes through `analysis.analyze` and `report.flake8_diagnostics` (notices on), the
pipeline of the flake8 entry point, without the Checker's last-guard `except`: any exception
fails the test, and so does an example that takes more than EXAMPLE_CPU_LIMIT seconds of
CPU (a wall-clock alarm stops a real hang). Runs are derandomized, so CI sees the same
examples every time.
"""
from __future__ import annotations

import ast
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import flake8_diagnostics, render_json, render_text
from guards import wall_clock_guard

EXCEPT_STAR = ["except* ValueError:"] if sys.version_info >= (3, 11) else []  # Python 3.11 syntax

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_CPU_LIMIT = 2.0    # seconds of CPU per example (CPU: the CI machine is shared)
EXAMPLE_WALL_LIMIT = 30.0  # hard stop for a hang
OPTIONS = Options(report_notices=True)

FUZZ = settings(max_examples=60, derandomize=True, deadline=None, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much, HealthCheck.large_base_example])


def lint(source: str, path: Path, options: Options = OPTIONS, cpu_limit: float = EXAMPLE_CPU_LIMIT):
    """analyze + report as flake8 runs them; fails on any exception or on a slow example."""
    tree = ast.parse(source)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    with wall_clock_guard(EXAMPLE_WALL_LIMIT):
        analysis = analyze(source, str(path), tree, options)
        found = list(flake8_diagnostics(analysis, True, tree))
        render_text(analysis)
        render_json(analysis)
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    assert cpu < cpu_limit, f"{cpu:.2f} s CPU ({wall:.2f} s wall) analysing:\n{source}"
    lines = source.count("\n") + 1
    for line, col, message in found:
        assert 1 <= line <= lines + 1 and col >= 0 and message[:3] == "SFX", (line, col, message)
    return analysis, found


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """An empty directory (no package, no siblings) for the generated files to live in."""
    return tmp_path_factory.mktemp("fuzz")


# ---------------------------------------------------------------------------
# (a) generated model files

TENSOR_EXPRS = [
    "x", "x + 1", "x * 2", "torch.relu(x)", "F.gelu(x)", "self.lin(x)", "self.sub(x)", "x.view(-1)",
    "x.reshape(x.shape[0], -1)", "x[:, 0]", "x[mask]", "x.transpose(0, 1)", "torch.cat([x, x], dim=-1)",
    "x @ x.T", "x.softmax(-1)", "x.float()", "x.nonzero()", "torch.where(x > 0, x, -x)", "x.mean(0)",
    "helper(x)", "self._step(x)", "x.new_zeros(x.shape)", "torch.zeros(n, 4)", "x.clone().detach()",
    "torch.stack([t * 2 for t in x])", "sum(layer(x) for layer in self.layers)", "(lambda t: t * 2)(x)",
    "x if self.flag else -x", "x.unique()", "x.masked_select(x > 0)", "x.repeat_interleave(2)",
    "torch.from_numpy(x.numpy())", "x.to(self.lin.weight.dtype)", "self.layers[0](x)",
    "self.blocks['a'](x)", "ping(x, 3)", "fact(x, n)", "x.sum(dim=tuple(range(1, x.dim())))",
    "x.new_tensor([x.shape[-1]])", "y", "h", "self.cache", "x[..., None]", "x[x.argmax()]",
]
CONDITIONS = [
    "x.sum() > 0", "x.shape[0] > 2", "x.size(-1) == 4", "self.flag", "self.training", "mask is None",
    "mask is not None", "n > 1", "x.dim() == 3", "bool(x.any())", "(y := x.mean()) > 0", "x.numel()",
    "isinstance(x, torch.Tensor)", "not self.flag and n", "x.is_cuda", "len(self.layers) > 1",
    "torch.is_grad_enabled()", "x.requires_grad", "self.mode == 'fast'", "x.max().item() > 1",
    "torch.jit.is_scripting()", "hasattr(self, 'cache')", "i % 2 == 0", "x is y", "all(x)",
]
ITERABLES = [
    "range(3)", "range(n)", "range(x.shape[0])", "self.layers", "enumerate(self.layers)", "x",
    "x.unbind(0)", "zip(self.layers, self.layers)", "self.blocks.items()", "reversed(self.layers)",
    "[x, x * 2]", "range(x.size(0) // 2)", "x.tolist()", "self.blocks.values()", "x.split(2)",
]
SIMPLE_STATEMENTS = [
    "v = x.sum().item()", "print(x.shape)", "print(f'x={x}')", "x = x.nonzero()", "arr = x.numpy()",
    "torch._dynamo.graph_break()", "assert x.dim() > 0, 'rank'", "del y", "y = x", "h = x.detach()",
    "x += 1", "x[0] = 0", "self.cache = x", "self.count += 1", "n = n - 1", "i = int(x.shape[0])",
    "logging.info('shape %s', x.shape)", "warnings.warn('careful')", "import pdb", "pass",
    "raise ValueError('bad input')", "return x", "return", "mask = x > 0", "x, y = x.chunk(2)",
    "x, *rest = x.split(1)", "out = {k: m(x) for k, m in self.blocks.items()}", "x = torch.randn(3)",
    "s = str(x.shape)", "np.asarray(x)", "x = x.cpu().numpy().tolist()", "global COUNTER",
    "t = x.data_ptr()", "x = x.contiguous(memory_format=torch.channels_last)", "yield x",
    "f = lambda t, k=2: t ** k", "x = f(x) if 'f' in dir() else x", "x = copy.deepcopy(x)",
    "x = x.apply_(lambda v: v)", "breakpoint()", "exec('x = 1')", "eval('x')", "time.sleep(0)",
]


@st.composite
def tensor_expr(draw) -> str:
    return draw(st.sampled_from(TENSOR_EXPRS))


@st.composite
def block(draw, depth: int, budget: int = 6) -> list[str]:
    """A list of source lines (indented relative to the block) of 1..budget statements."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, budget))):
        kinds = ["assign", "simple"] + (["if", "for", "while", "try", "with", "match", "def", "call"]
                                        if depth > 0 else ["call"])
        kind = draw(st.sampled_from(kinds))
        if kind == "assign":
            target = draw(st.sampled_from(["x", "x", "y", "h", "x.data", "self.cache"]))
            lines.append(f"{target} = {draw(tensor_expr())}")
        elif kind == "simple":
            lines.append(draw(st.sampled_from(SIMPLE_STATEMENTS)))
        elif kind == "call":
            lines.append(draw(st.sampled_from([
                "x = helper(x)", "x = self._step(x)", "x = self.sub(x)", "x = ping(x, n)",
                "x = fact(x, 4)", "x = self.forward(x)", "x = Model.forward(self, x)", "x = self.layers[-1](x)",
                "x = super().forward(x)", "x = self.apply_all(x, *self.layers)",
                "x = torch.utils.checkpoint.checkpoint(self.sub, x)",
            ])))
        elif kind == "if":
            lines.append(f"if {draw(st.sampled_from(CONDITIONS))}:")
            lines += _indent(draw(block(depth - 1, 3)))
            if draw(st.booleans()):
                lines.append(f"elif {draw(st.sampled_from(CONDITIONS))}:")
                lines += _indent(draw(block(depth - 1, 2)))
            if draw(st.booleans()):
                lines.append("else:")
                lines += _indent(draw(block(depth - 1, 3)))
        elif kind == "for":
            target = draw(st.sampled_from(["i", "layer", "t", "(i, layer)", "(k, m)"]))
            lines.append(f"for {target} in {draw(st.sampled_from(ITERABLES))}:")
            body = draw(block(depth - 1, 3))
            if draw(st.booleans()):
                body.append(draw(st.sampled_from(["break", "continue", "if i == 1:\n    break"])))
            lines += _indent(body)
            if draw(st.booleans()):
                lines += ["else:", "    x = x - 1"]
        elif kind == "while":
            lines.append(f"while {draw(st.sampled_from(['i < 3', 'x.sum() > 0', 'n', 'True', 'self.flag']))}:")
            lines += _indent(draw(block(depth - 1, 3)) + draw(st.sampled_from([["i += 1"], ["break"], []])))
        elif kind == "try":
            lines.append("try:")
            lines += _indent(draw(block(depth - 1, 3)))
            handler = draw(st.sampled_from(["except Exception:", "except (ValueError, RuntimeError) as e:",
                                            "except:", *EXCEPT_STAR]))
            lines.append(handler)
            # `return`/`break`/`continue` cannot appear directly in an except* block
            lines += _indent(["x = x + 1"] if "*" in handler else draw(block(depth - 1, 2)))
            if draw(st.booleans()):
                lines.append("finally:")
                lines += _indent(draw(block(depth - 1, 2)))
        elif kind == "with":
            manager = draw(st.sampled_from(["torch.no_grad()", "torch.autocast('cpu')", "open('f') as fh",
                                            "contextlib.suppress(Exception)", "self.ctx()",
                                            "torch.enable_grad(), torch.no_grad()"]))
            lines.append(f"with {manager}:")
            lines += _indent(draw(block(depth - 1, 3)))
        elif kind == "match":
            lines.append(f"match {draw(st.sampled_from(['n', 'x.shape', 'self.mode', 'x.dim()', 'x']))}:")
            cases = draw(st.lists(st.sampled_from(["1", "(a, b)", "[a, *rest]", "'fast' | 'slow'", "str()",
                                                   "{'k': v}", "torch.Size([a, b])", "int(a) if a > 1"]),
                                  min_size=1, max_size=3))
            for pattern in [*cases, "_"]:
                lines.append(f"    case {pattern}:")
                lines += _indent(draw(block(depth - 1, 2)), 8)
        elif kind == "def":
            name = draw(st.sampled_from(["inner", "g", "closure"]))
            lines.append(f"def {name}(t, k=1):")
            body = draw(block(depth - 1, 3))
            body = [line.replace("x", "t") if line.startswith(("x =", "return x")) else line for line in body]
            lines += _indent(body + ["return t * k"])
            lines.append(f"x = {name}(x)")
    # a statement after `return` or a bare `except*` ... is still valid Python
    return lines


def _indent(lines: list[str], by: int = 4) -> list[str]:
    return [" " * by + sub for line in lines for sub in line.split("\n")]


HEADER = """\
import contextlib
import copy
import logging
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import *

COUNTER = 0


def fact(t, k):
    if k <= 1:
        return t
    return fact(t * k, k - 1)


def ping(t, k):
    return pong(t + 1, k - 1) if k > 0 else t


def pong(t, k):
    return ping(t * 2, k - 1) if k else t


class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:
            return self.proj(x)
        return helper(x)


class Base(nn.Module):
    def forward(self, x):
        return x
"""


@st.composite
def model_file(draw) -> str:
    helper_body = draw(block(2, 4))
    helper = ["def helper(x, mask=None, n=2, self=None):", *_indent(helper_body + ["return x"])]
    step_body = draw(block(2, 4))
    forward_body = draw(block(3, 8))
    decorator = draw(st.sampled_from(["", "@torch.no_grad()", "@torch.compile", "@torch.compiler.disable",
                                      "@functools.lru_cache", "@staticmethod"]))
    base = draw(st.sampled_from(["Base", "nn.Module", "Module", "Sub"]))
    signature = draw(st.sampled_from(["self, x, mask=None, n: int = 3", "self, x, *args, **kwargs",
                                      "self, x: torch.Tensor, mask: torch.Tensor | None = None, n=3",
                                      "self, x, /, mask=None, *, n=3"]))
    cls = [
        f"class Model({base}):",
        "    mode = 'fast'",
        "    def __init__(self, flag=True, depth=2):",
        "        super().__init__()",
        "        self.flag = flag",
        "        self.lin = nn.Linear(4, 4)",
        "        self.sub = Sub()",
        "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(depth)])",
        "        self.blocks = nn.ModuleDict({'a': Sub(), 'b': nn.ReLU()})",
        "        self.count = 0",
        "",
        "    def _step(self, x, mask=None, n=1):",
        *_indent(step_body + ["return x"], 8),
        "",
        "    def apply_all(self, x, *mods):",
        "        for m in mods:",
        "            x = m(x)",
        "        return x",
        "",
        *([f"    {decorator}"] if decorator and decorator != "@staticmethod" else []),
        f"    def forward({signature}):",
        "        i = 0",
        "        y = h = x",
        *_indent(forward_body + ["return x"], 8),
    ]
    extra = draw(st.sampled_from(["", "compiled = torch.compile(Model())",
                                  "@torch.compile\ndef run(x):\n    return Model()(x).sum().item()",
                                  "class Child(Model):\n    def forward(self, x):\n"
                                  "        return super().forward(x) + 1"]))
    return "\n".join([HEADER, *helper, "", "", *cls, "", "", extra, ""])


@FUZZ
@given(model_file())
def test_generated_models(workdir, source):
    ast.parse(source)  # the generator only makes valid Python
    lint(source, workdir / "model.py")


@FUZZ
@given(model_file())
def test_generated_models_with_every_setting(workdir, source):
    options = Options(fullgraph=True, capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True,
                      report_notices=True, reuse_inlined=False, follow_defaults=True)
    lint(source, workdir / "model.py", options)


# ---------------------------------------------------------------------------
# (b) mutated real-looking model files

REAL_MODEL = '''\
"""A small transformer with the usual helpers."""
import math
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q, k, cos, sin):
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class Attention(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4, dropout: float = 0.0, causal: bool = True):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.out = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self.causal = causal

    def forward(self, x, mask: Optional[torch.Tensor] = None, cache=None):
        b, n, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        scores = q @ k.transpose(-2, -1) * self.scale
        if self.causal:
            causal = torch.ones(n, k.shape[2], dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(causal, float("-inf"))
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        if scores.isnan().any():
            print("nan scores")
        attn = self.dropout(scores.softmax(-1))
        out = (attn @ v).transpose(1, 2).reshape(b, n, d)
        return self.out(out), (k, v)


class MLP(nn.Module):
    def __init__(self, dim=64, hidden=256, act="gelu"):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.act = act

    def forward(self, x):
        x = self.fc1(x)
        if self.act == "gelu":
            x = F.gelu(x)
        elif self.act == "relu":
            x = F.relu(x)
        else:
            raise ValueError(self.act)
        return self.fc2(x)


class Block(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)

    def forward(self, x, mask=None):
        h, cache = self.attn(self.norm1(x), mask)
        x = x + h
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, vocab=1000, dim=64, depth=4, max_len=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, vocab)
        self.register_buffer("pos", torch.arange(max_len))
        self.max_len = max_len

    def forward(self, tokens, mask=None, return_all=False):
        if tokens.shape[1] > self.max_len:
            tokens = tokens[:, -self.max_len:]
        x = self.embed(tokens)
        hidden = []
        for i, block in enumerate(self.blocks):
            x = block(x, mask)
            if return_all:
                hidden.append(x)
        logits = self.head(x)
        n_valid = int(mask.sum()) if mask is not None else tokens.numel()
        loss_scale = 1.0 / max(n_valid, 1)
        while logits.abs().max() > 1e4:
            logits = logits / 2
        if return_all:
            return logits * loss_scale, hidden
        return logits * loss_scale

    @torch.no_grad()
    def generate(self, tokens, steps=8):
        for _ in range(steps):
            logits = self(tokens)[:, -1]
            nxt = logits.argmax(-1, keepdim=True)
            tokens = torch.cat([tokens, nxt], dim=1)
            if (nxt == 0).all():
                break
        return tokens


@torch.compile
def train_step(model, tokens, targets):
    logits = model(tokens)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
    print(f"loss {loss.item():.3f}")
    return loss
'''


def _corpus() -> list[str]:
    sources = [REAL_MODEL]
    for path in sorted((ROOT / "examples").glob("*.py")):
        sources.append(path.read_text(encoding="utf-8"))
    return sources


CORPUS = _corpus()

MUTATIONS = ["delete", "duplicate", "swap", "move", "indent", "dedent", "drop_token", "copy_block"]


def mutate(source: str, operations: list[tuple[str, int, int]]) -> str:
    """Apply each (operation, i, j) to the lines of `source`; an operation after which the
    file no longer parses is skipped, so every result is a file flake8 hands to the plugin."""
    lines = source.split("\n")
    for operation, a, b in operations:
        if not lines:
            break
        i, j = a % len(lines), b % len(lines)
        new = list(lines)
        if operation == "delete":
            del new[i]
        elif operation == "duplicate":
            new.insert(i, new[i])
        elif operation == "swap":
            new[i], new[j] = new[j], new[i]
        elif operation == "move":
            new.insert(j, new.pop(i))
        elif operation == "indent":
            new[i] = "    " + new[i]
        elif operation == "dedent":
            new[i] = new[i][4:] if new[i].startswith("    ") else new[i]
        elif operation == "drop_token":
            words = new[i].split(" ")
            if len(words) > 1:
                del words[j % len(words)]
                new[i] = " ".join(words)
        elif operation == "copy_block":
            new[j:j] = new[i:i + 1 + (b % 7)]
        candidate = "\n".join(new)
        try:
            ast.parse(candidate)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        lines = new
    return "\n".join(lines)


mutation_lists = st.lists(st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 10_000), st.integers(0, 10_000)),
                          min_size=1, max_size=12)


@FUZZ
@given(st.sampled_from(range(len(CORPUS))), mutation_lists)
def test_mutated_real_models(workdir, index, operations):
    source = mutate(CORPUS[index], operations)
    lint(source, workdir / "mutant.py")


def test_corpus_has_diagnostics(workdir):
    """The unmutated corpus does exercise the analysis (the fuzzing is not vacuous)."""
    found = [lint(source, workdir / "mutant.py")[1] for source in CORPUS]
    assert any(found), "no diagnostics on the corpus: the mutations test nothing"
    assert lint(REAL_MODEL, workdir / "mutant.py")[0].graphs


# ---------------------------------------------------------------------------
# (c) hypothesmith's grammar-generated code in and around a model

def _wrap_generated(code: str) -> list[str]:
    """`code` inside a forward (when it parses there) and beside a model calling its functions."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    calls = "".join(f"        x = {name}(x)\n" for name in names) or "        pass\n"
    around = ("import torch\nimport torch.nn as nn\n" + code + "\n\nclass M(nn.Module):\n"
              "    def forward(self, x):\n" + calls + "        return x\n")
    inside = ("import torch\nimport torch.nn as nn\n\nclass M(nn.Module):\n    def forward(self, x):\n"
              + textwrap.indent(code if code.strip() else "pass", " " * 8, lambda line: True)
              + "\n        return x\n")
    wrapped = []
    for candidate in (around, inside):
        try:
            ast.parse(candidate)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        wrapped.append(candidate)
    return wrapped


def test_hypothesmith_programs(workdir):
    hypothesmith = pytest.importorskip("hypothesmith")

    @settings(max_examples=40, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def check(code):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `'a'()` and such: valid, odd
            for source in _wrap_generated(code):
                lint(source, workdir / "generated.py")

    check()
