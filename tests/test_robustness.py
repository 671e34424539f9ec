"""Never crash, never hang: pathological model files, and the robustness benchmark itself.

Every case goes through the flake8 pipeline (`analysis.analyze` on an `ast` tree, then
`report.flake8_diagnostics` with notices) *without* the Checker's last-guard `except`, so an
exception the Checker would swallow (and with it every diagnostic of the file) fails here.
Each must finish within CASE_LIMIT seconds of CPU; a wall-clock alarm turns a hang into a
failure. Cases whose risk is a computation that no alarm interrupts (a huge static integer
power, a gigabyte string) run in a subprocess with a memory limit and a timeout.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
import tokenize
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.plugin import Checker
from flake8_staticfx.front.report import flake8_diagnostics, render_json, render_text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import robustness  # noqa: E402  (benchmarks/robustness.py)
from guards import wall_clock_guard  # noqa: E402

CASE_LIMIT = 5.0    # seconds of CPU per case
WALL_LIMIT = 60.0   # a hang
OPTIONS = Options(report_notices=True)


def write_tree(base: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n") if not source.startswith("\ufeff") else source,
                        encoding="utf-8")


def lint_file(path: Path, options: Options = OPTIONS, limit: float = CASE_LIMIT):
    """(analysis, diagnostics, cpu seconds) for `path` as flake8 hands it to the plugin."""
    with tokenize.open(path) as handle:  # as flake8 decodes: coding cookie, BOM
        lines = handle.readlines()
    source = "".join(lines)
    tree = ast.parse(source)
    start = time.process_time()
    with wall_clock_guard(WALL_LIMIT):
        analysis = analyze(source, str(path), tree, options)
        found = list(flake8_diagnostics(analysis, True, tree))
    cpu = time.process_time() - start
    with wall_clock_guard(WALL_LIMIT):
        render_text(analysis)
        render_json(analysis)
        # and through the Checker, as flake8 calls it: the same answer
        Checker.options = options
        try:
            via_checker = [(line, col, message) for line, col, message, _ in Checker(tree, str(path), lines).run()]
        finally:
            Checker.options = Options()
    assert cpu < limit, f"{path.name}: {cpu:.2f} s of CPU; notices: {analysis.notices[:3]}"
    assert _comparable(via_checker) == _comparable(found)
    return analysis, found, cpu


def _comparable(found):
    """Diagnostics, with SFX900 notices by place only (a RecursionError's text varies with the stack)."""
    return sorted((line, col, message.split(":")[0] if message.startswith("SFX900") else message)
                  for line, col, message in found)


def codes(found) -> list[tuple[int, str]]:
    return [(line, message.split()[0]) for line, _, message in found]


# ---------------------------------------------------------------------------
# Pathological files (in process)

def _deep_hierarchy(levels: int, bases_first: bool) -> str:
    classes = ["class C0(nn.Module):\n    def forward(self, x):\n        return x.relu()\n"]
    for i in range(1, levels):
        classes.append(f"class C{i}(C{i - 1}):\n    def forward(self, x):\n        return super().forward(x) + {i}\n")
    if not bases_first:
        classes.reverse()
    return "import torch\nimport torch.nn as nn\n\n" + "\n".join(classes)


def _long_forward(lines: int) -> str:
    body = []
    for i in range(lines):
        body.append(["        x = x + 1", "        x = torch.relu(x)", "        y = x.shape[0] * 2",
                     "        x = self.lin(x)", "        if y > 3:\n            x = x * y"][i % 5])
    return ("import torch\nimport torch.nn as nn\n\n\nclass Long(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n        self.lin = nn.Linear(4, 4)\n\n"
            "    def forward(self, x):\n" + "\n".join(body) + "\n        print(x)\n        return x\n")


def _many_classes(count: int) -> str:
    parts = ["import torch\nimport torch.nn as nn\n"]
    for i in range(count):
        if i % 2:
            parts.append(f"class M{i}(nn.Module):\n    def forward(self, x):\n        return x * {i}\n")
        else:
            parts.append(f"class P{i}:\n    value = {i}\n")
    parts.append("class Last(nn.Module):\n    def forward(self, x):\n        return x.sum().item()\n")
    return "\n".join(parts)


def _model(forward_body: str, head: str = "", init: str = "") -> str:
    init = init or "pass"
    return (f"import torch\nimport torch.nn as nn\n{textwrap.dedent(head)}\n\nclass M(nn.Module):\n"
            f"    def __init__(self):\n        super().__init__()\n"
            + textwrap.indent(textwrap.dedent(init).strip(), " " * 8) + "\n\n"
            "    def forward(self, x):\n" + textwrap.indent(textwrap.dedent(forward_body).strip(), " " * 8) + "\n")


CASES: dict[str, dict[str, str]] = {
    # -- recursion ----------------------------------------------------------------
    "self_recursion": {"m.py": _model("return f(x, 10) + g(x)", head="""
        def f(x, n):
            if n == 0:
                return x
            return f(x * 2, n - 1)
        def g(x):
            return g(x) + 1  # no base case
    """)},
    "mutual_recursion": {"m.py": _model("return a(x, 5)", head="""
        def a(x, n):
            return b(x + 1, n - 1) if n > 0 else x.item()
        def b(x, n):
            return c(x * 2, n)
        def c(x, n):
            return a(x, n)
    """)},
    "forward_recursion": {"m.py": _model("""
        if x.dim() > 1:
            return self(x[0])
        return self.forward(x.unsqueeze(0)) + M.forward(self, x)
    """)},
    "submodule_recursion": {"m.py": """
        import torch.nn as nn

        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = B()
            def forward(self, x):
                return self.b(x) + self.b.a(x)

        class B(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = A()
            def forward(self, x):
                return self.a(x).item()

        class Ping(nn.Module):
            def __init__(self, other=None):
                super().__init__()
                self.other = other or Pong(self)
            def forward(self, x):
                return self.other(x)

        class Pong(nn.Module):
            def __init__(self, back):
                super().__init__()
                self.back = back
            def forward(self, x):
                return self.back(x) + 1
    """},
    "recursion_across_files": {
        "pkg/__init__.py": "from .a import *\nfrom .b import *\n",
        "pkg/a.py": """
            import torch
            from .b import g
            def f(x, n=3):
                return g(x, n - 1) if n else x
        """,
        "pkg/b.py": """
            from .a import f
            from . import a
            def g(x, n):
                return a.f(x, n) + f(x, n)
        """,
        "pkg/m.py": """
            import torch.nn as nn
            from .a import f
            from .b import g as f2
            class M(nn.Module):
                def forward(self, x):
                    return f(x) + f2(x, 2)
        """,
    },
    "import_cycle_aliases": {
        "pkg/__init__.py": "",
        "pkg/a.py": "from .b import y as x\nfrom .a import z as w\n",
        "pkg/b.py": "from .a import x as y\n",
        "pkg/m.py": """
            import torch.nn as nn
            from .a import x, w
            from .b import y
            A = B
            B = A
            class M(nn.Module):
                def forward(self, t):
                    return x(t) + y(t) + w(t) + A(t)
        """,
    },
    # -- class hierarchies -------------------------------------------------------
    "cyclic_classes": {"m.py": """
        import torch.nn as nn
        class A(B, nn.Module):
            def forward(self, x):
                return super().forward(x) + 1
        class B(A):
            def forward(self, x):
                return super().forward(x).item()
        class C(C):
            def forward(self, x):
                return x
        class D(E): pass
        class E(F): pass
        class F(D, nn.Linear):
            def forward(self, x):
                return self.missing(x)
    """},
    "cyclic_classes_across_files": {
        "pkg/__init__.py": "",
        "pkg/a.py": "import torch.nn as nn\nfrom .b import B\nclass A(B, nn.Module):\n"
                    "    def forward(self, x):\n        return super().forward(x)\n",
        "pkg/b.py": "from .a import A\nclass B(A):\n    def forward(self, x):\n        return super().forward(x) * 2\n",
        "pkg/m.py": "from .a import A\nfrom .b import B\nclass M(A, B):\n"
                    "    def forward(self, x):\n        return super().forward(x).item()\n",
    },
    "deep_hierarchy_500_reversed": {"m.py": _deep_hierarchy(500, bases_first=False)},
    # -- size -------------------------------------------------------------------
    "nested_parens_190": {"m.py": _model("return " + "(" * 190 + "x" + ")" * 190 + " + "
                                         + "(" * 90 + "x.sum().item()" + ")" * 90)},
    "nested_calls_190": {"m.py": _model("return " + "torch.relu(" * 190 + "x" + ")" * 190)},
    "nested_lists_190": {"m.py": _model("y = " + "[" * 190 + "x" + "]" * 190 + "\nreturn x")},
    # 2000 terms: CPython's own ast construction gives up near 3000 (see test_binop_chain_3000)
    "binop_chain_2000": {"m.py": _model("return " + " + ".join(["x"] * 2000))},
    "mixed_binop_chain_2000": {"m.py": _model("return " + " * ".join(f"(x + {i})" for i in range(2000)))},
    "attribute_chain_2000": {"m.py": _model("return self" + ".sub" * 2000 + "(x)")},
    "subscript_chain_2000": {"m.py": _model("return x" + "[0]" * 2000)},
    "bool_chain_3000": {"m.py": _model("return x if " + " and ".join(["x.sum() > 0"] * 3000) + " else x")},
    "compare_chain_1000": {"m.py": _model("return x if " + " < ".join(["x"] * 1000) + " else x")},
    "nested_ifs_95": {"m.py": _model("\n".join("    " * i + f"if x.sum() > {i}:" for i in range(95))
                                     + "\n" + "    " * 95 + "x = x.item()\nreturn x")},
    "sequential_tensor_ifs_500": {"m.py": _model("\n".join(f"if x[{i}] > 0:\n    x = x + {i}\nelse:\n    x = x - {i}"
                                                           for i in range(500)) + "\nreturn x")},
    "nested_loops_unrolled": {"m.py": _model("""
        for a in range(64):
            for b in range(64):
                for c in range(64):
                    for d in range(64):
                        x = x + a * b * c * d
        return x
    """)},
    "exponential_inlining": {"m.py": _model("return f0(x)", head="\n".join(
        f"def f{i}(x):\n    return f{i + 1}(f{i + 1}(x) + 1) * 2" for i in range(30))
        + "\ndef f30(x):\n    return x.relu()\n")},
    "exponential_static_inlining": {"m.py": _model("return x * f0(3)", head="\n".join(
        f"def f{i}(n):\n    t = 0\n    for k in range(40):\n        t = t + f{i + 1}(n + k)\n    return t"
        for i in range(11)) + "\ndef f11(n):\n    return n % 7\n")},
    "infinite_loops": {"m.py": _model("""
        while True:
            x = x + 1
        while x.sum() > 0:
            x = x - 1
            continue
        for i in itertools.count():
            x = x * i
        for i in range(10 ** 18):
            x = x + i
        return x
    """, head="import itertools")},
    # -- dynamic Python ----------------------------------------------------------
    "star_imports": {
        "pkg/__init__.py": "from .layers import *\n",
        "pkg/layers.py": "from torch.nn import *\nfrom torch import *\nfrom .m import *\nclass Block(Module):\n"
                         "    def forward(self, x):\n        return relu(x).item()\n",
        "pkg/m.py": "from os import *\nfrom .layers import *\nfrom . import *\nclass M(Block):\n"
                    "    def forward(self, x):\n        return super().forward(Linear(2, 2)(x))\n",
    },
    "exec_eval": {"m.py": """
        import torch
        import torch.nn as nn
        exec("class Hidden(nn.Module):\\n    def forward(self, x):\\n        return x.item()")
        Made = eval("type('Made', (nn.Module,), {})")
        forward = eval("lambda self, x: x.item()")

        class M(nn.Module):
            def forward(self, x):
                exec("x = x + 1")
                code = compile("x * 2", "<s>", "eval")
                return eval(code) + eval("x.sum()") + Hidden()(x) + Made()(x)
    """},
    "replacing_decorators": {"m.py": """
        import functools
        import torch
        import torch.nn as nn

        def replace(f):
            return lambda self, x: x.item()

        def factory(*a, **k):
            def deco(f):
                @functools.wraps(f)
                def wrapper(*args, **kwargs):
                    return f(*args, **kwargs).sum().item()
                return wrapper
            return deco

        def swap_class(cls):
            return nn.Identity

        @swap_class
        class Swapped(nn.Module):
            def forward(self, x):
                return x.item()

        class A(nn.Module):
            @replace
            def forward(self, x):
                return x * 2

        class B(nn.Module):
            @factory(1, key=2)
            @torch.no_grad()
            @(lambda f: f)
            def forward(self, x):
                return x + 1

        def plain(self, x):
            return x.nonzero()

        class C(nn.Module):
            forward = plain

        class D(nn.Module):
            forward = property(lambda self: (lambda x: x.item()))

        class E(nn.Module):
            forward = None

        class F(nn.Module):
            def forward(self, x):
                return x
            forward = staticmethod(forward)

        class G(nn.Module):
            def forward(self, x):
                return self.helper(x)
            helper = functools.partial(plain, None)
    """},
    "metaclasses": {"m.py": """
        import abc
        import torch
        import torch.nn as nn

        class Meta(type):
            def __call__(cls, *args, **kwargs):
                return super().__call__(*args, **kwargs)
            def __new__(mcs, name, bases, ns):
                return super().__new__(mcs, name, bases, ns)

        class MetaModule(type(nn.Module)):
            pass

        class A(nn.Module, metaclass=Meta):
            def forward(self, x):
                return x.item()

        class B(nn.Module, metaclass=abc.ABCMeta):
            @abc.abstractmethod
            def forward(self, x): ...

        class C(B, metaclass=MetaModule):
            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
            def __getattr__(self, name):
                return getattr(self.inner, name)
            def __call__(self, *args):
                return args[0].item()
            def __class_getitem__(cls, item):
                return cls
            def forward(self, x):
                return self.anything(x) + C[int]()(x)

        class D(metaclass=Meta):
            def forward(self, x):
                return x
    """},
    "python311_syntax": {"m.py": """
        import asyncio
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def forward(self, x, /, mask=None, *, mode: str | None = None, **extra):
                match x.shape:
                    case (b, c, *rest) if c > 3:
                        x = x.view(b, -1)
                    case torch.Size([n]):
                        x = x[None]
                    case [_, _] | [_]:
                        pass
                    case {"k": v, **others}:
                        x = v
                    case _:
                        pass
                match mode:
                    case "a" | "b" as m:
                        x = x * len(m)
                    case str(s):
                        print(s)
                if (n := x.shape[0]) > 2 and (s := x.sum()) > 0:
                    x = x / n
                ys = [y for t in x if (y := t * 2).sum() > 0]
                idx = (0, 1)
                z = x[*idx]
                try:
                    x = x + 1
                except* ValueError as group:
                    x = x - 1
                except* (TypeError, KeyError):
                    pass
                with (torch.no_grad() as a,
                      torch.autocast("cpu") as b):
                    x = x.float()
                type = x.dtype
                lam = lambda *a, k=1, **kw: a[0] * k
                f = f"{x.shape!r:>{10}} {'nested'} {x.sum().item()=}"
                def gen():
                    nonlocal x
                    yield from range(3)
                    x = x + 1
                    return x
                global GLOBAL
                GLOBAL = x
                print = None
                super = None
                torch = None
                return lam(x) + sum(ys) + z

            async def aforward(self, x):
                async with self.lock:
                    async for t in self.stream():
                        x = x + await t
                return [y async for y in self.stream()]

        class N(nn.Module):
            async def forward(self, x):
                await asyncio.sleep(0)
                return x.item()

        class O(nn.Module):
            def forward(self, x):
                yield x.item()
                return x
    """},
    "weird_bindings": {"m.py": """
        import torch
        import torch.nn as nn
        import torch.nn as nn
        nn = nn
        Module = nn.Module
        del nn
        class M(Module):
            x: int
            def forward(self, x):
                self = None
                del self
                x: torch.Tensor
                import torch.nn.functional as F
                from torch import relu as torch
                global forward
                return F.relu(x) + torch(x)
        class N(torch.nn.Module):
            def forward(*args, **kwargs):
                return args[1].item()
        class O(torch.nn.Module):
            def forward():
                return 1
        class P(torch.nn.Module):
            @staticmethod
            def forward(x):
                return x.item()
            @classmethod
            def build(cls):
                return cls()
        forward = 3
    """},
    "odd_text": {"m.py": "\ufeff# -*- coding: utf-8 -*-\r\nimport torch\r\n\x0cclass M(torch.nn.Module):\r\n"
                         "\tdef forward(self, x):\r\n\t\treturn x.item()  # \u00e9\u4e2d\U0001f600\r\n"
                         "s = '" + "a" * 200_000 + "'\r\n"},
    "no_roots_but_mentions": {"m.py": "# torch forward\nforward = 1\ntorch = forward\n"},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pathological_file(tmp_path, name):
    if name == "python311_syntax" and sys.version_info < (3, 11):
        pytest.skip("Python 3.11 syntax (except*, x[*idx]): flake8 reports E999 before the plugin runs")
    files = CASES[name]
    write_tree(tmp_path, files)
    for relative in files:
        if relative.endswith("__init__.py"):
            continue
        lint_file(tmp_path / relative)


def test_deep_hierarchy_is_still_analysed(tmp_path):
    """500 levels of `super().forward`: the roots are found and linted (not lost to a notice)."""
    write_tree(tmp_path, {"m.py": _deep_hierarchy(500, bases_first=True)})
    analysis, found, _ = lint_file(tmp_path / "m.py")
    assert len(analysis.graphs) == 500


def test_deep_hierarchy_in_another_module(tmp_path):
    """A model whose base is the 500th level of a hierarchy defined in a sibling module (valid
    Python, unlike the reversed file): the model is still found and linted."""
    hierarchy = _deep_hierarchy(500, bases_first=True)
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": hierarchy, "pkg/m.py": """
        from .layers import C499

        class Top(C499):
            def forward(self, x):
                return super().forward(x).sum().item()
    """})
    analysis, found, _ = lint_file(tmp_path / "pkg" / "m.py")
    assert [g.root for g in analysis.graphs] == ["Top.forward"], analysis.notices
    assert not analysis.notices
    # The chain of super().forward is deeper than --staticfx-max-inline-depth: its value is
    # unknown, so nothing is claimed about `.item()` on it.
    assert not [message for _, _, message in found if message.startswith("SFX1")], found


def test_many_classes_last_root_is_linted(tmp_path):
    """3000 roots in one file: the `.item()` of the last one is still reported."""
    write_tree(tmp_path, {"m.py": _many_classes(3000)})
    analysis, found, _ = lint_file(tmp_path / "m.py")
    last = [line for line, code in codes(found) if code.startswith("SFX")]
    assert last, f"no diagnostics; notices: {analysis.notices[:3]}"


def test_long_forward_reports_its_break(tmp_path):
    write_tree(tmp_path, {"m.py": _long_forward(10_000)})
    analysis, found, _ = lint_file(tmp_path / "m.py")
    assert found or analysis.notices


def test_binop_chain_3000(tmp_path):
    """Python 3.11 and 3.12 cannot build the ast of 3000 chained `+` at the default recursion
    limit (flake8 reports E999 and never calls the plugin; 3.10 and 3.13 build it); analyze()
    parsing it itself must still return, with the graph (it raises the limit while it works)
    or a notice."""
    source = _model("return " + " + ".join(["x"] * 3000))
    if (3, 11) <= sys.version_info < (3, 13):
        with pytest.raises(RecursionError):
            ast.parse(source)
    start = time.process_time()
    with wall_clock_guard(WALL_LIMIT):
        analysis = analyze(source, str(tmp_path / "m.py"), None, OPTIONS)
        list(flake8_diagnostics(analysis, True))
    assert time.process_time() - start < CASE_LIMIT
    assert analysis.graphs or analysis.notices


@pytest.mark.parametrize("deep", ["binop_chain_2000", "nested_calls_190", "attribute_chain_2000"])
def test_deep_expression_does_not_hide_other_roots(tmp_path, deep):
    """A root too deep to analyse is contained: another model in the file is still linted."""
    source = CASES[deep]["m.py"] + textwrap.dedent("""

        class Other(nn.Module):
            def forward(self, x):
                return x.sum().item()
    """)
    write_tree(tmp_path, {"m.py": source})
    analysis, found, _ = lint_file(tmp_path / "m.py")
    other_starts = source[:source.index("class Other")].count("\n") + 1
    assert any(line > other_starts and message.startswith("SFX") for line, _, message in found), \
        (found, analysis.notices)


def test_no_user_code_runs(tmp_path):
    """exec/eval/decorators/metaclasses in the linted file: nothing of it is executed."""
    marker = tmp_path / "ran"
    write_tree(tmp_path, {"m.py": f"""
        import torch.nn as nn
        open({str(marker)!r}, "w").write("module")
        exec("open({str(marker)!r}, 'w').write('exec')")
        def deco(f):
            open({str(marker)!r}, "w").write("decorator")
            return f
        class Meta(type):
            def __new__(mcs, *a):
                open({str(marker)!r}, "w").write("metaclass")
                return super().__new__(mcs, *a)
        @deco
        class M(nn.Module, metaclass=Meta):
            scale = open({str(marker)!r}, "w").write("class body")
            def forward(self, x, n=open({str(marker)!r}, "w").write("default")):
                eval("open({str(marker)!r}, 'w').write('eval')")
                return x * self.scale
    """})
    lint_file(tmp_path / "m.py")
    assert not marker.exists(), marker.read_text()


# ---------------------------------------------------------------------------
# Static evaluation of huge constants (in a subprocess: no alarm stops a C-level loop)

RESOURCE_CASES = {
    "int_power": "n = 2 ** 10 ** 10",
    "builtin_pow": "n = pow(7, 10 ** 8)",
    "module_level_power": "n = BIG + 1",
    "str_repeat": "s = 'a' * 5 * 10 ** 8",
    "str_method": "s = 'a'.ljust(5 * 10 ** 8)",
    "str_format": "s = '{:>500000000}'.format(1)",
    "big_range_loop": "for i in range(10 ** 18):\n            x = x + i",
    "big_list": "xs = [0] * 10 ** 9\n        ys = list(range(10 ** 9))",
}
SUBPROCESS_TIMEOUT = 10.0
MEMORY_LIMIT_MB = 1500     # per subprocess (address space); they run at once
MEMORY_GROWTH_LIMIT_MB = 200

_RUNNER = r"""
import json, resource, sys, time
limit = int(sys.argv[2]) * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import flake8_diagnostics
path = sys.argv[1]
source = open(path, encoding="utf-8").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
analysis = analyze(source, path, None, Options(report_notices=True))
found = list(flake8_diagnostics(analysis, True))
print(json.dumps({"cpu": time.process_time() - start, "found": found,
                  "grew_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}))
"""


@pytest.fixture(scope="module")
def resource_reports(tmp_path_factory) -> dict[str, dict]:
    """Every RESOURCE_CASES file analysed in its own subprocess, all at once (a hang costs
    SUBPROCESS_TIMEOUT once, not once per case)."""
    base = tmp_path_factory.mktemp("resource")
    running = {}
    for name, statement in RESOURCE_CASES.items():
        write_tree(base / name, {"m.py": _model(statement + "\nreturn x.sum().item()", head="BIG = 2 ** 10 ** 10")})
        running[name] = subprocess.Popen([sys.executable, "-c", _RUNNER, str(base / name / "m.py"),
                                          str(MEMORY_LIMIT_MB)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True)
    deadline = time.monotonic() + SUBPROCESS_TIMEOUT
    reports = {}
    for name, process in running.items():
        try:
            out, err = process.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            reports[name] = {"hang": True}
            continue
        if process.returncode != 0:
            reports[name] = {"error": err[-3000:]}
        else:
            reports[name] = json.loads(out.splitlines()[-1])
    return reports


@pytest.mark.parametrize("name", sorted(RESOURCE_CASES))
def test_huge_static_values(resource_reports, name):
    """The analysis computes static Python values (constant folding); a huge one must not
    hang it or take gigabytes, as CPython's own constant folder refuses to."""
    report = resource_reports[name]
    assert not report.get("hang"), f"`{RESOURCE_CASES[name]}`: still running after {SUBPROCESS_TIMEOUT:g} s (hang)"
    assert "error" not in report, report["error"]
    assert report["cpu"] < CASE_LIMIT, report
    assert report["grew_mb"] < MEMORY_GROWTH_LIMIT_MB, \
        f"`{RESOURCE_CASES[name]}`: the analysis grew by {report['grew_mb']:.0f} MB"
    assert any("SFX" in message for _, _, message in report["found"]), report


# ---------------------------------------------------------------------------
# The benchmark: a crash, a hang and a dead worker are reported, not lost

def test_benchmark_over_examples():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "robustness.py"), str(ROOT / "examples"),
                             "--json", "--jobs", "2", "--quiet"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["files"] == len(list((ROOT / "examples").glob("*.py")))
    assert summary["crashes"] == [] and summary["hangs"] == []
    assert summary["diagnostics"] > 0
    for key in ("notices", "slow", "slowest", "max_time", "peak_memory_mb", "total_time"):
        assert key in summary


def test_benchmark_finds_files_by_path_without_importing_torch():
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: there are no torch files to find")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import robustness; "
            "dirs = robustness.default_dirs(); print(dirs); assert 'torch' not in sys.modules, 'imported torch'")
    result = subprocess.run([sys.executable, "-c", code, str(ROOT / "benchmarks")], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "torch" in result.stdout and "python3" in result.stdout


def _raise(*args, **kwargs):
    raise KeyError("boom")


def _sleep(*args, **kwargs):
    time.sleep(60)


def _die(*args, **kwargs):
    os._exit(3)


@pytest.mark.parametrize("sabotage, status", [(_raise, "crash"), (_sleep, "hang"), (_die, "crash")])
def test_benchmark_reports_sabotage(tmp_path, monkeypatch, sabotage, status):
    """The workers are forked: a sabotaged pipeline in this process is theirs too."""
    module = "import torch\nclass {}(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    write_tree(tmp_path, {"a.py": module.format("A"), "b.py": module.format("B"),
                          "c.py": "x = 1\n"})
    import flake8_staticfx.analysis as analysis_module
    monkeypatch.setattr(analysis_module, "annotate", sabotage)
    files = robustness.python_files([str(tmp_path)])
    results, peak = robustness.run(files, jobs=2, timeout=1.5, use_checker=False, memory_limit_mb=0)
    by_name = {Path(r["path"]).name: r for r in results}
    assert sorted(by_name) == ["a.py", "b.py", "c.py"]
    assert by_name["a.py"]["status"] == status and by_name["b.py"]["status"] == status
    assert by_name["c.py"]["status"] == "ok"  # no torch, no forward: never analysed
    summary = robustness.summarize(results, peak, 1.0, 2.0)
    assert len(summary["crashes"] if status == "crash" else summary["hangs"]) == 2
    if sabotage is _raise:
        assert "KeyError: 'boom'" in summary["crashes"][0]["traceback"]
        assert robustness.main([str(tmp_path), "--quiet", "--timeout", "5"]) == 1
