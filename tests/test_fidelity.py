"""The static graph is torch.fx's graph: for every case of tests/cases that torch.fx can trace,
the multiset of (op, target) of our graph equals symbolic_trace's (torch 2.13.0).

Each case's model is built and traced in a subprocess (the case files are imported there, never
here), with the first constructor CASES gives; our graph is the CLI's JSON for the same file.
"""
from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

CASES = Path(__file__).resolve().parent / "cases"
OPS = {"call_module", "call_function", "call_method", "get_attr"}
# Issue 16's acceptance. Measured over tests/cases (108 fx-traceable roots): mean F1 0.956,
# exact 84%; 280 roots on 6 December 2026: 0.955, 85%. The differences left are classes of their own: loops over a list fx computes at
# trace time (DDIM timesteps) that we draw once; LayerDrop's random path; tensor constants fx
# makes of what `__init__` computed; branches fx decides on the real module (a numpy dtype
# limit, `os.path.exists`).
MIN_MEAN_F1 = 0.95
MIN_EXACT = 0.80

TRACE = r"""
import importlib, inspect, io, json, random, re, sys, numpy, torch, torch.fx
sys.path.insert(0, sys.argv[1])
found = []
real_stdout = sys.stdout
sys.stdout = io.StringIO()  # what the traced code prints (print() in forward) must not mix with the JSON
for name in sys.argv[2:]:
    module = importlib.import_module("cases." + name)
    seen = set()
    for _, make_model, _ in getattr(module, "CASES", []):
        torch.manual_seed(0)  # a model that draws a random path at trace time (LayerDrop) draws the same one
        random.seed(0)
        numpy.random.seed(0)
        try:
            model = make_model()
            cls_name = type(model).__name__
            if cls_name in seen or not type(model).__module__.startswith("cases."):
                continue  # one graph per class of the case files, as the CLI draws one
            source = inspect.getsource(type(model))
            if "random." in source or "torch.rand" in source:
                continue  # fx runs Python's and torch's random draws (no traced input) once: one random path
            params = inspect.signature(type(model).forward).parameters
            optional = [n for n, p in params.items() if p.default is None]
            if any(re.search(rf"\b{n} is (not )?None", source) for n in optional):
                continue  # to fx an optional input is a proxy, never None; `graph` draws the default (None) path
            if "compiling" in source:
                continue  # fx traces the eager side of an is_compiling() guard, dynamo the other
            if "torch.distributions" in inspect.getsource(module):
                continue  # fx traces torch.distributions' own code (Normal.log_prob), which is never read
            seen.add(cls_name)
            graph = torch.fx.symbolic_trace(model).graph
        except Exception:
            continue  # fx cannot trace it (data-dependent control flow, ...)
        nodes = []
        for node in graph.nodes:
            target = node.target if isinstance(node.target, str) else torch.fx.node._get_qualified_name(node.target)
            nodes.append((node.op, target.replace("_operator.", "operator.")))
        found.append({"file": name, "class": cls_name, "nodes": nodes})
real_stdout.write(json.dumps(found))
"""


def _multiset(pairs) -> collections.Counter:
    return collections.Counter((op, str(target)) for op, target in pairs if op in OPS)


def _fx_graphs() -> list[dict]:
    # ver_* cases probe what moved between torch releases: device queries, a metaclass's
    # __instancecheck__, min/max keys and torch.compiler.disable, each decided or traced by fx on
    # the real module at trace time where dynamo (and so the static graph) does otherwise.
    names = sorted(p.stem for p in CASES.glob("*.py")
                   if p.stem not in ("__init__", "ops") and not p.stem.startswith("ver_"))
    result = subprocess.run([sys.executable, "-c", TRACE, str(CASES.parent), *names], capture_output=True,
                            text=True, timeout=600, cwd=CASES.parent)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def _static_graph(file: str, cls: str) -> collections.Counter | None:
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", str(CASES / f"{file}.py"),
                             "--format", "json"], capture_output=True, text=True, timeout=120)
    graphs = json.loads(result.stdout)["graphs"]
    graph = next((g for g in graphs if g["name"].split(".")[0] == cls), None)
    return None if graph is None else _multiset((n["op"], n["target"]) for n in graph["nodes"])


@pytest.mark.oracle
def test_static_graphs_match_torch_fx():
    rows = []
    for case in _fx_graphs():
        want = _multiset(case["nodes"])
        got = _static_graph(case["file"], case["class"]) or collections.Counter()
        both = sum((want & got).values())
        f1 = 2 * both / (sum(want.values()) + sum(got.values())) if want or got else 1.0
        rows.append((f1, case["file"], case["class"], dict(want - got), dict(got - want)))
    assert rows, "torch.fx traced none of the cases"
    mean = sum(r[0] for r in rows) / len(rows)
    exact = sum(r[0] == 1.0 for r in rows) / len(rows)
    report = "\n".join(f"  {f1:.2f} {file}:{cls} missing {miss} extra {extra}"
                       for f1, file, cls, miss, extra in sorted(rows) if f1 < 1.0)
    print(f"fidelity over {len(rows)} fx-traceable roots: mean F1 {mean:.3f}, exact {exact:.0%}\n{report}")
    assert mean >= MIN_MEAN_F1 and exact >= MIN_EXACT, f"mean F1 {mean:.3f}, exact {exact:.0%}\n{report}"
