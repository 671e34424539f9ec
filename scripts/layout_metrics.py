#!/usr/bin/env python
"""The package's layout in numbers: the longest modules and classes, and the isinstance tests on
value classes made outside values/ (each kind of value owns its behaviour: a test on its class
elsewhere is behaviour that lives outside it).

    python scripts/layout_metrics.py [--list] [REPOSITORY]

Reads the sources with `ast`; nothing is imported. Import circles: scripts/import_circles.py.
"""
from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "flake8_staticfx"
VALUES = "values"


@dataclass(frozen=True)
class Sized:
    name: str
    lines: int


@dataclass(frozen=True)
class ValueTest:
    path: str
    line: int
    classes: tuple[str, ...]


def sources(root: Path) -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted((root / PACKAGE).rglob("*.py"))}


def module_sizes(root: Path) -> list[Sized]:
    """Every module's length in lines, longest first."""
    found = [Sized(str(path.relative_to(root)), len(path.read_text(encoding="utf-8").splitlines()))
             for path in (root / PACKAGE).rglob("*.py")]
    return sorted(found, key=lambda s: (-s.lines, s.name))


def class_sizes(root: Path) -> list[Sized]:
    """Every class's length in lines (decorators to its last line), longest first."""
    found = []
    for path, tree in sources(root).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found.append(Sized(f"{path.relative_to(root)}:{node.name}", node.end_lineno - first + 1))
    return sorted(found, key=lambda s: (-s.lines, s.name))


def value_classes(root: Path) -> frozenset[str]:
    """The names of the classes values/ defines."""
    return frozenset(node.name for path, tree in sources(root).items() if VALUES in path.relative_to(root).parts
                     for node in ast.walk(tree) if isinstance(node, ast.ClassDef))


def _imported_value_names(path: Path, tree: ast.Module, root: Path, kinds: frozenset[str]) -> frozenset[str]:
    """The value classes a module imports from values/ (another module's own `Instance` is not one)."""
    parts = path.relative_to(root).with_suffix("").parts
    package = parts if parts[-1] == "__init__" else parts[:-1]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - (node.level - 1)]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            if module[:2] == [PACKAGE, VALUES]:
                names.update(alias.asname or alias.name for alias in node.names if alias.name in kinds)
    return frozenset(names)


def _names(expr: ast.expr) -> tuple[str, ...]:
    """The class names an isinstance's second argument spells: `Tensor`, `(Seq, Dict)`, `values.Static`."""
    if isinstance(expr, ast.Tuple):
        return tuple(name for element in expr.elts for name in _names(element))
    if isinstance(expr, ast.Attribute):  # values.Static; not nodes.Module, astroid's
        return (f"{VALUES}.{expr.attr}",) if isinstance(expr.value, ast.Name) and expr.value.id == VALUES else ()
    return (expr.id,) if isinstance(expr, ast.Name) else ()


def value_tests_outside(root: Path) -> list[ValueTest]:
    """Each isinstance (or issubclass) test on a value class, in modules outside values/."""
    kinds = value_classes(root)
    found = []
    for path, tree in sources(root).items():
        if VALUES in path.relative_to(root).parts:
            continue
        imported = _imported_value_names(path, tree, root, kinds) | {f"{VALUES}.{kind}" for kind in kinds}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
                tested = tuple(name for name in _names(node.args[1]) if name in imported)
                if tested:
                    found.append(ValueTest(str(path.relative_to(root)), node.lineno, tested))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list every isinstance test counted")
    parser.add_argument("root", nargs="?", type=Path, default=ROOT, help="the repository (default: this one)")
    args = parser.parse_args()
    modules, classes, tests = module_sizes(args.root), class_sizes(args.root), value_tests_outside(args.root)
    print("largest modules: " + ", ".join(f"{s.name} {s.lines}" for s in modules[:3]))
    print("largest classes: " + ", ".join(f"{s.name} {s.lines}" for s in classes[:3]))
    print(f"isinstance tests on value classes outside {VALUES}/: {len(tests)}")
    by_module: dict[str, int] = {}
    for test in tests:
        by_module[test.path] = by_module.get(test.path, 0) + 1
    print("  " + ", ".join(f"{path} {n}" for path, n in sorted(by_module.items(), key=lambda i: -i[1])))
    for test in tests if args.list else ():
        print(f"  {test.path}:{test.line}: {', '.join(test.classes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
