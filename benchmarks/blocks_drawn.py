#!/usr/bin/env python
"""Are a library model's blocks drawn? Forward hooks against the static graph's call_module nodes.

    .oracle/venv/bin/python benchmarks/blocks_drawn.py [--lint-python .venv/bin/python]

For each nn.Module class of benchmarks/blocks/*.py (a user's module that builds torchvision's
ResNet, timm's ResNet or transformers' LlamaModel from a tiny configuration), in the oracle's venv
(benchmarks/library_oracle_setup.sh: the libraries pinned):
  (a) eager: a forward hook on every leaf module (one without children) counts the leaf calls
      of one forward, per qualified name;
  (b) static: `python -m flake8_staticfx graph FILE --format json` with the lint venv (which does
      not have the libraries) and `--staticfx-library-path=<the oracle venv's site-packages>`;
      its call_module nodes, per target (a node drawn once for a loop of unknown trip count
      counts once), and the calls of project or library modules whose forward the graph
      inlines and that call no module below them (`inlined_modules`: transformers' RMSNorm,
      rotary embedding and activation modules are leaves the graph draws as their body).
A model's blocks are drawn when the two multisets are equal. The libraries are never imported by
the linter: only (a) imports them, in this process.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCKS = os.path.join(HERE, "blocks")
REPO = os.path.dirname(HERE)


def eager_leaf_calls(path: str) -> dict[str, collections.Counter]:
    """Per nn.Module class the file defines: its leaf modules' calls in one forward."""
    import torch

    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = {}
    for cls in vars(module).values():
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module) and cls.__module__ == module.__name__):
            continue
        model = cls()
        calls: collections.Counter = collections.Counter()
        for name, sub in model.named_modules():
            if name and not any(True for _ in sub.children()):
                sub.register_forward_hook(lambda *_, name=name, calls=calls: calls.update([name]))
        with torch.no_grad():
            model(*module.make_inputs())
        found[cls.__name__] = calls
    return found


def static_module_calls(path: str, lint_python: str, site: str) -> dict[str, tuple[collections.Counter, int]]:
    """Per root class: the call_module nodes and inlined leaf-module calls of its graph, and the
    values it could not follow."""
    proc = subprocess.run([lint_python, "-m", "flake8_staticfx", "graph", path, "--format", "json",
                           f"--staticfx-library-path={site}"], capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    found = {}
    for graph in json.loads(proc.stdout)["graphs"]:
        calls = collections.Counter(n["target"] for n in graph["nodes"] if n["op"] == "call_module")
        called = [*calls, *graph["inlined_modules"]]
        calls.update(path for path in graph["inlined_modules"]
                     if not any(other.startswith(path + ".") for other in called))
        found[graph["name"].split(".")[0]] = (calls, graph["unknown_values"])
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lint-python", default=os.path.join(REPO, ".venv", "bin", "python"))
    args = parser.parse_args(argv)
    site = sysconfig.get_paths()["purelib"]
    drawn = total = 0
    for name in sorted(f for f in os.listdir(BLOCKS) if f.endswith(".py")):
        path = os.path.join(BLOCKS, name)
        static = static_module_calls(path, args.lint_python, site)
        for cls, want in eager_leaf_calls(path).items():
            got, unknown = static.get(cls, (collections.Counter(), 0))
            total += 1
            drawn += want == got
            print(f"{name} {cls}: hooks {sum(want.values())} leaf calls, graph {sum(got.values())} module calls, "
                  f"{unknown} values not followed: {'drawn' if want == got else 'DIFFERENT'}")
            for target in sorted(set(want) | set(got)):
                if want[target] != got[target]:
                    print(f"    {target}: hooks {want[target]}, graph {got[target]}")
    print(f"{drawn}/{total} models drawn block for block")
    return 0


if __name__ == "__main__":
    sys.exit(main())
