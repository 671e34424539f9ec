"""Write flake8_staticfx/data/dynamo-X.Y.json from an installed torch, reading its files only.

    python scripts/gen_dynamo_facts.py SITE_PACKAGES [SITE_PACKAGES ...]

SITE_PACKAGES is the directory holding `torch/` and its `torch-*.dist-info` (any Python runs
this: torch is never imported, so one interpreter reads the wheels of every version). For each
one the data file of that torch's minor version is (re)written:

- `torch`: the exact version read (`2.14.1`);
- `graph_breaks`: GB id -> the titles (`Gb_type`) of `torch/_dynamo/graph_break_registry.json`;
- from `torch/_dynamo/trace_rules.py`, read as literals with `ast`: `thirdparty_skiplist` and
  `builtin_skiplist` (the packages and standard modules dynamo does not trace into),
  `mod_skiplist` and `mod_inlinelist` (torch modules skipped or inlined), and `torch_functions`:
  the name of each torch function given a rule by `manual_torch_name_rule_map` (`in_graph`,
  `skip`, `inline`) or listed in `torch_non_c_binding_in_graph_functions` (`in_graph`).

A release adds a file: install its wheel in a venv of its own (docs/torch-versions.md), run
this on that venv's site-packages, add the version to `torch_versions.MODELED`.
"""
from __future__ import annotations

import ast
import glob
import json
import os
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "flake8_staticfx" / "data"
RULE_KINDS = {"TorchInGraphFunctionVariable": "in_graph", "SkipFunctionVariable": "skip",
              "UserFunctionVariable": "inline"}


def torch_version(site_packages: str) -> str:
    """The Version: line of the torch dist-info's METADATA, without its local part (+cpu)."""
    for metadata in sorted(glob.glob(os.path.join(site_packages, "torch-*.dist-info", "METADATA"))):
        with open(metadata, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip().split("+")[0]
    raise SystemExit(f"no torch-*.dist-info/METADATA in {site_packages}")


def graph_breaks(site_packages: str) -> dict[str, list[str]]:
    path = os.path.join(site_packages, "torch", "_dynamo", "graph_break_registry.json")
    with open(path, encoding="utf-8") as handle:
        registry = json.load(handle)
    return {gb_id: [entry["Gb_type"] for entry in registry[gb_id]] for gb_id in sorted(registry)}


def _assignments(tree: ast.Module) -> dict[str, ast.expr]:
    """Top-level `NAME = value` and `NAME: T = value`; a later assignment of a name wins, as at
    run time (`MOD_SKIPLIST = set(MOD_SKIPLIST)` keeps the list it was given)."""
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            continue
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("set", "tuple") \
                and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id == name:
            continue
        found[name] = value
    return found


def _strings(value: ast.expr) -> list[str]:
    """The string constants (or bare module names: BUILTIN_SKIPLIST's `copy`) of a list, tuple or set."""
    if isinstance(value, ast.Call) and value.args:  # dict.fromkeys([...], Kind), set([...])
        value = value.args[0]
    if not isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return []
    names = []
    for element in value.elts:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            names.append(element.value)
        elif isinstance(element, ast.Name):
            names.append(element.id)
    return sorted(set(names))


def _rule_map(value: ast.expr) -> dict[str, str]:
    if not isinstance(value, ast.Dict):
        return {}
    return {key.value: RULE_KINDS[kind.id] for key, kind in zip(value.keys, value.values)
            if isinstance(key, ast.Constant) and isinstance(kind, ast.Name) and kind.id in RULE_KINDS}


def trace_rules(site_packages: str) -> dict:
    path = os.path.join(site_packages, "torch", "_dynamo", "trace_rules.py")
    with open(path, encoding="utf-8") as handle:
        values = _assignments(ast.parse(handle.read(), path))
    functions = dict.fromkeys(_strings(values["torch_non_c_binding_in_graph_functions"]), "in_graph")
    functions.update(_rule_map(values["manual_torch_name_rule_map"]))
    return {
        "thirdparty_skiplist": _strings(values["THIRDPARTY_SKIPLIST"]),
        "builtin_skiplist": _strings(values["BUILTIN_SKIPLIST"]),
        "mod_skiplist": _strings(values["MOD_SKIPLIST"]),
        "mod_inlinelist": sorted({*_strings(values["MOD_INLINELIST"]),
                                  *_strings(values.get("LEGACY_MOD_INLINELIST", ast.List([])))}),
        "torch_functions": dict(sorted(functions.items())),
    }


def facts(site_packages: str) -> dict:
    return {"torch": torch_version(site_packages), "graph_breaks": graph_breaks(site_packages),
            **trace_rules(site_packages)}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    DATA.mkdir(exist_ok=True)
    for site_packages in argv:
        document = facts(site_packages)
        minor = ".".join(document["torch"].split(".")[:2])
        target = DATA / f"dynamo-{minor}.json"
        target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {target} from torch {document['torch']} ({len(document['graph_breaks'])} GB ids)",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
