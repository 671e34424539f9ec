#!/usr/bin/env python
"""Snapshot the analysis output, to prove a refactoring changes nothing.

    python scripts/snapshot.py OUT.json [PATH ...]          # write the snapshot
    python scripts/snapshot.py --check OUT.json [PATH ...]  # compare; exit 1 and list differences

For every .py file under the PATHs (default: tests/cases and examples), under the default
dynamo settings and each of the three capture settings, it records the flake8 diagnostics
(with SFX900 notices) and the JSON of every graph in the lint view; for files of tests/cases
and examples also the graph CLI's view (constructor defaults followed, nothing reused).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from flake8_staticfx.analysis import analyze  # noqa: E402
from flake8_staticfx.config import Options  # noqa: E402
from flake8_staticfx.front.report import flake8_diagnostics, graph_json  # noqa: E402

SETTINGS = {
    "default": {},
    "capture_scalar_outputs": {"capture_scalar_outputs": True},
    "capture_dynamic_output_shape_ops": {"capture_dynamic_output_shape_ops": True},
    "fullgraph": {"fullgraph": True},
}
DEFAULT_PATHS = ("tests/cases", "examples")


def python_files(paths: list[str]) -> list[str]:
    files = []
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in os.walk(path):
                files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        else:
            files.append(path)
    return sorted(os.path.abspath(f) for f in files)


def snapshot_file(path: str, graph_view: bool) -> dict:
    with open(path, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    record = {}
    for setting, fields in SETTINGS.items():
        options = Options(**fields)
        analysis = analyze(source, path, options=options)
        record[setting] = {
            "diagnostics": [list(d) for d in flake8_diagnostics(analysis, notices=True)],
            "graphs": [graph_json(g) for g in analysis.graphs],
        }
        if graph_view:
            view = dataclasses.replace(options, reuse_inlined=False, follow_defaults=True, file_time_budget=60.0)
            record[setting]["graph_view"] = [graph_json(g) for g in analyze(source, path, options=view).graphs]
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("paths", nargs="*", default=list(DEFAULT_PATHS))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    small = tuple(os.path.abspath(p) for p in DEFAULT_PATHS)
    result = {}
    for path in python_files(args.paths):
        result[path] = snapshot_file(path, graph_view=path.startswith(small))
    if not args.check:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=0, sort_keys=True)
        print(f"{len(result)} files snapshotted to {args.out}")
        return 0
    with open(args.out, encoding="utf-8") as handle:
        expected = json.load(handle)
    current = json.loads(json.dumps(result, sort_keys=True))
    differing = [path for path in sorted(set(expected) | set(current)) if expected.get(path) != current.get(path)]
    for path in differing:
        for setting in SETTINGS:
            old, new = (expected.get(path) or {}).get(setting), (current.get(path) or {}).get(setting)
            if old != new:
                for part in ("diagnostics", "graphs", "graph_view"):
                    if (old or {}).get(part) != (new or {}).get(part):
                        print(f"{path} [{setting}] {part} differs")
                        if part == "diagnostics":
                            print("   was:", (old or {}).get(part))
                            print("   now:", (new or {}).get(part))
    print(f"{len(current)} files, {len(differing)} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
