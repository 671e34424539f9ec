#!/usr/bin/env python
"""Import circles between the package's modules, counting imports inside functions.

    python scripts/import_circles.py [--edges] [REPOSITORY]

Reads every module of flake8_staticfx with `ast` (nothing is imported) and draws an edge from a
module to each module it imports, wherever the import statement is: at the top, or inside a
function (a late import that only hides a circle from Python still is one). Imports under
`if TYPE_CHECKING:` are left out: they never run. A circle is a group of modules that reach
each other through these edges (a strongly connected component of two or more); exits 1 and
lists them when there is one.
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "flake8_staticfx"


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runs(node: ast.AST) -> list[ast.AST]:
    """The statements under `node` that may run: all but the body of `if TYPE_CHECKING:`."""
    if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
        return node.orelse
    return list(ast.iter_child_nodes(node))


def imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that module `name` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    stack: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while stack:
        node = stack.pop()
        stack.extend(_runs(node))
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return {target for target in found if target in modules and target != name}


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imports(name, path, modules) for name, path in modules.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two or more modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="also print each circle's edges")
    parser.add_argument("root", nargs="?", type=Path, default=ROOT, help="the repository (default: this one)")
    args = parser.parse_args()
    edges = graph(args.root)
    found = circles(edges)
    in_circles = sum(len(c) for c in found)
    print(f"{len(edges)} modules, {sum(len(e) for e in edges.values())} imports, "
          f"{len(found)} circles holding {in_circles} modules")
    for component in found:
        print(f"circle of {len(component)}: {', '.join(component)}")
        if args.edges:
            for name in component:
                inside = sorted(edges[name] & set(component))
                print(f"  {name} -> {', '.join(inside)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
