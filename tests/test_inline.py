"""Stage 2: calls are inlined the way dynamo inlines them, so a break in called code is found.

Breaks inside the linted file are reported where the construct is; breaks in another file of
the project are reported at the call in the linted file, naming the callee and its file:line.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import flake8_diagnostics


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


def diagnostics(path: Path, options: Options | None = None) -> list[tuple[int, int, str]]:
    analysis = analyze(path.read_text(encoding="utf-8"), str(path), options=options)
    assert not analysis.notices, analysis.notices
    return list(flake8_diagnostics(analysis))


def found(path: Path, options: Options | None = None) -> list[tuple[int, str]]:
    return [(line, message.split()[0]) for line, _, message in diagnostics(path, options)]


def expected(path: Path) -> list[tuple[int, str]]:
    """The `# expect: SFXnnn` markers of a file, as (line, code)."""
    marks = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "# expect:" in text:
            marks += [(number, code) for code in text.split("# expect:")[1].split()]
    return marks


def check(tmp_path: Path, source: str, options: Options | None = None) -> list[tuple[int, str]]:
    """Lint `source` as tmp_path/model.py; what is found must be exactly what is marked."""
    path = write(tmp_path / "model.py", source)
    result = found(path, options)
    assert result == expected(path)
    return result


HEADER = """
import torch
import torch.nn as nn
"""


def test_break_in_helper_method_is_reported_at_the_helper(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        return self.scale(x)

    def scale(self, x):
        return x / x.abs().max().item()  # expect: SFX102
""")


def test_helper_two_calls_deep(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        return self.outer(x + 1)

    def outer(self, y):
        return self.inner(y * 2)

    def inner(self, z):
        if z.mean() > 0:  # expect: SFX101
            return z
        return -z
""")


def test_helpers_not_called_from_forward_are_not_reported(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        return x + 1

    def debug(self, x):
        print(x.sum().item())
""")


def test_property(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    @property
    def temperature(self):
        return self.w.sum().item()  # expect: SFX102

    def forward(self, x):
        return x / self.temperature
""")


def test_staticmethod_and_classmethod(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    @staticmethod
    def clip(x):
        return x.clamp(max=x.max().item())  # expect: SFX102

    @classmethod
    def show(cls, x):
        print(x)  # expect: SFX201
        return x

    def forward(self, x):
        return self.show(self.clip(x))
""")


def test_an_inherited_classmethod_binds_cls_to_the_class_it_is_called_on():
    """gpytorch's settings: `debug.on()` runs the base's classmethod with cls = debug, so it reads
    debug's True and the break under it happens; a subclass keeping the base's False, and the base
    called on itself, break nowhere (dynamo 2.13's truth of the case)."""
    case = Path(__file__).parent / "cases" / "inherited_classmethod_flags.py"
    lines = case.read_text(encoding="utf-8").splitlines()
    assert found(case) == [(lines.index("            if not torch.isfinite(covar).all():") + 1, "SFX101")]


def test_nested_def_and_lambda(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        def norm(t):
            return t / t.norm().item()  # expect: SFX102

        to_list = lambda t: t.tolist()  # expect: SFX103
        return to_list(norm(x))
""")


def test_closure_sees_the_enclosing_tensor(tmp_path):
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        total = x.sum()

        def positive():
            if total > 0:  # expect: SFX101
                return 1
            return 0

        return x * positive()
""")


def test_user_submodule_forward(tmp_path):
    check(tmp_path, HEADER + """

class Gate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, 1)

    def forward(self, x):
        return self.proj(x).sigmoid().mean().item()  # expect: SFX102


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate(8)

    def forward(self, x):
        return x * self.gate(x)
""")


def test_submodule_chain_reports_only_reached_code(tmp_path):
    # Quiet.forward branches on a shape only: no break anywhere.
    check(tmp_path, HEADER + """

class Quiet(nn.Module):
    def forward(self, x):
        if x.shape[0] > 1:
            return x
        return x * 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quiet = Quiet()

    def forward(self, x):
        return self.quiet(x)
""")


ITEM_MODULE = HEADER + """

class Probe(nn.Module):
    def forward(self, x):
        print(x)  # expect: SFX201
        return x

"""


@pytest.mark.parametrize("build, call", [
    ("nn.Sequential(nn.Linear(4, 4), Probe())", "self.body(x)"),
    ("nn.Sequential(*[Probe() for _ in range(2)])", "self.body(x)"),
    ("nn.ModuleList([nn.ReLU(), Probe()])", "self.body[1](x)"),
    ("nn.ModuleList(Probe() for _ in range(3))", "self.body[-1](x)"),
    ("nn.ModuleDict({'act': nn.ReLU(), 'probe': Probe()})", "self.body['probe'](x)"),
])
def test_items_of_containers(tmp_path, build, call):
    check(tmp_path, ITEM_MODULE + f"""
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = {build}

    def forward(self, x):
        return {call}
""")


@pytest.mark.parametrize("forward", [
    # loop over a ModuleList built in a loop
    """
        for layer in self.layers:
            x = layer(x)
        return x
    """,
    # index with range(len(...))
    """
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        return x
    """,
    # zip of two lists
    """
        for layer, norm in zip(self.layers, self.norms):
            x = norm(layer(x))
        return x
    """,
])
def test_modulelist_built_in_a_loop(tmp_path, forward):
    path = write(tmp_path / "model.py", ITEM_MODULE + """
class Net(nn.Module):
    def __init__(self, depth=3):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.Linear(4, 4))
        self.layers.append(Probe())
        self.norms = nn.ModuleList([nn.LayerNorm(4) for _ in range(depth + 1)])

    def forward(self, x):
""" + textwrap.indent(textwrap.dedent(forward).strip("\n"), "        ") + "\n")
    assert found(path) == expected(path) != []


def test_moduledict_iterated_by_items(tmp_path):
    check(tmp_path, ITEM_MODULE + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({name: Probe() for name in ("a", "b")})
        self.fixed = nn.ModuleDict({"a": nn.Linear(4, 4), "b": Probe()})

    def forward(self, x):
        out = {}
        for name, head in self.fixed.items():
            out[name] = head(x)
        return out
""")


def test_inherited_method_from_user_base(tmp_path):
    check(tmp_path, HEADER + """

class Base(nn.Module):
    def summarize(self, x):
        return x.mean().item()  # expect: SFX102


class Net(Base):
    def forward(self, x):
        return x - self.summarize(x)
""")


def test_super_forward(tmp_path):
    check(tmp_path, HEADER + """

class Base(nn.Module):
    def forward(self, x):
        return x.tolist()  # expect: SFX103


class Net(Base):
    def forward(self, x):
        return super().forward(x * 2)
""")


def test_module_level_function(tmp_path):
    check(tmp_path, HEADER + """

def normalise(x):
    return x / x.sum().item()  # expect: SFX102


class Net(nn.Module):
    def forward(self, x):
        return normalise(x)
""")


def make_project(tmp_path: Path) -> Path:
    pkg = tmp_path / "proj"
    write(pkg / "__init__.py", "")
    write(pkg / "ops.py", """
        import torch


        def normalise(x):
            scale = x.abs().max().item()
            return x / scale


        def clean(x):
            return torch.relu(x)
    """)
    write(pkg / "util" / "__init__.py", "")
    write(pkg / "util" / "debug.py", """
        def show(x):
            print(x.shape)
            return x
    """)
    return pkg


@pytest.mark.parametrize(("imports", "call"), [
    ("from .ops import normalise", "normalise(x)"),
    ("from proj.ops import normalise", "normalise(x)"),
    ("from . import ops", "ops.normalise(x)"),
    ("import proj.ops as ops", "ops.normalise(x)"),
    ("from .ops import normalise as norm", "norm(x)"),
])
def test_function_imported_from_another_file(tmp_path, imports, call):
    pkg = make_project(tmp_path)
    path = write(pkg / "model.py", f"""
        import torch.nn as nn
        {imports}


        class Net(nn.Module):
            def forward(self, x):
                h = x + 1
                return {call}  # expect: SFX102
    """)
    result = diagnostics(path)
    assert [(line, message.split()[0]) for line, _, message in result] == expected(path)
    line, col, message = result[0]
    assert col == 15  # the call in the linted file, not the .item() in ops.py
    assert "`normalise`" in message
    assert "ops.py:5" in message


def test_clean_imported_function_and_deeper_package(tmp_path):
    pkg = make_project(tmp_path)
    path = write(pkg / "model.py", """
        import torch.nn as nn
        from .ops import clean
        from .util.debug import show


        class Net(nn.Module):
            def forward(self, x):
                x = clean(x)
                return show(x)  # expect: SFX201
    """)
    result = diagnostics(path)
    assert [(line, message.split()[0]) for line, _, message in result] == expected(path)
    assert "`show`" in result[0][2] and "debug.py:2" in result[0][2]


def test_imported_submodule_class_reported_at_call(tmp_path):
    pkg = make_project(tmp_path)
    write(pkg / "blocks.py", """
        import torch.nn as nn


        class Block(nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x
    """)
    path = write(pkg / "model.py", """
        import torch.nn as nn
        from .blocks import Block


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x):
                return self.block(x) * 2  # expect: SFX101
    """)
    result = diagnostics(path)
    assert [(line, message.split()[0]) for line, _, message in result] == expected(path)
    assert "blocks.py:6" in result[0][2]


def check_bounded(tmp_path: Path, source: str, seconds: float = 10.0) -> None:
    start = time.monotonic()
    check(tmp_path, source)
    assert time.monotonic() - start < seconds


def test_self_recursive_helper_terminates(tmp_path):
    # Dynamo would inline the recursion; the analysis cuts it at the second activation, so
    # the first activation's breaks are found and the analysis goes on after the call.
    check_bounded(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        y = self.expand(x, 3)
        print(y)  # expect: SFX201
        return y

    def expand(self, x, n):
        if n == 0:
            return x
        total = x.sum().item()  # expect: SFX102
        return self.expand(x * total, n - 1)
""")


def test_unbounded_recursion_terminates(tmp_path):
    check_bounded(tmp_path, HEADER + """

class Net(nn.Module):
    def forward(self, x):
        self.again(x)
        return x.sum().item()  # expect: SFX102

    def again(self, x):
        return self.again(x + 1)
""")


def test_mutual_recursion_between_two_modules_terminates(tmp_path):
    check_bounded(tmp_path, HEADER + """

class Ping(nn.Module):
    def __init__(self):
        super().__init__()
        self.pong = Pong()

    def forward(self, x, n: int = 4):
        if n == 0:
            return x
        return self.pong(x, self, n - 1)


class Pong(nn.Module):
    def __init__(self):
        super().__init__()
        self.ping = Ping()  # a construction cycle too

    def forward(self, x, ping, n: int):
        print(x)  # expect: SFX201
        return ping(x * 2, n)
""")


def test_mutual_recursion_between_functions_terminates(tmp_path):
    check_bounded(tmp_path, HEADER + """

def even(x, n):
    return x if n == 0 else odd(x + 1, n - 1)


def odd(x, n):
    x.tolist()  # expect: SFX103
    return even(x.relu(), n - 1)


class Net(nn.Module):
    def forward(self, x):
        even(x, 7)
        return x.sum().item()  # expect: SFX102
""")


DEEP = HEADER + """

class Net(nn.Module):
    def forward(self, x):
        return self.one(x)

    def one(self, x):
        return self.two(x)

    def two(self, x):
        return self.three(x)

    def three(self, x):
        return x.sum().item()  # expect: SFX102
"""


def test_max_inline_depth_is_honoured(tmp_path):
    path = write(tmp_path / "model.py", DEEP)
    assert found(path) == [(16, "SFX102")]
    assert found(path, Options(max_inline_depth=3)) == [(16, "SFX102")]
    assert found(path, Options(max_inline_depth=2)) == []
    assert found(path, Options(max_inline_depth=0)) == []


def test_max_inline_depth_flake8_option(tmp_path):
    write(tmp_path / "model.py", DEEP)

    def flake8(*args):
        result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", *args, "model.py"],
                                capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert "Traceback" not in result.stderr, result.stderr
        return [line.split(": ")[0] + " " + line.split(": ")[1].split()[0] for line in result.stdout.splitlines()]

    assert flake8() == ["model.py:16:16 SFX102"]
    assert flake8("--staticfx-max-inline-depth=3") == ["model.py:16:16 SFX102"]
    assert flake8("--staticfx-max-inline-depth=2") == []


def test_call_reused_by_two_roots_is_reported_once(tmp_path):
    check(tmp_path, HEADER + """

def peak(x):
    return x.max().item()  # expect: SFX102


class A(nn.Module):
    def forward(self, x):
        return peak(x)


class B(nn.Module):
    def forward(self, x):
        return peak(x) + peak(x * 2)
""")


def test_torch_checkpoint_inlines_its_function(tmp_path):
    check(tmp_path, HEADER + """
import torch.utils.checkpoint


class Net(nn.Module):
    def block(self, x):
        return x * x.mean().item()  # expect: SFX102

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self.block, x, use_reentrant=False)
""")


def test_methods_of_plain_project_objects(tmp_path):
    """A scheduler-like object held by the module, and one made in forward: dynamo traces
    their methods and attributes, so breaks inside them are found (tests/cases/gen_euler_sampler.py
    and trn_jagged_embeddings.py measure it). What another method reassigns outside forward
    (`num_steps`) is not a fact: the branch on it stays unknown and both arms are linted."""
    path = write(tmp_path / "model.py", """
        import torch
        import torch.nn as nn


        class Scheduler:
            def __init__(self, steps=10):
                self.sigmas = torch.linspace(1.0, 0.0, steps)
                self.num_steps = None

            def configure(self, num_steps):
                self.num_steps = num_steps

            def index_for(self, t):
                return (self.sigmas == t).nonzero()  # expect: SFX401


        class Lengths:
            def __init__(self, lengths):
                self.lengths = lengths

            @property
            def as_list(self):
                return self.lengths.tolist()  # expect: SFX103


        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.scheduler = Scheduler()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, t):
                h = self.fc(x)
                if self.scheduler.num_steps is None:
                    h = h * 2
                else:
                    print(h)  # expect: SFX201
                idx = self.scheduler.index_for(t)
                sizes = Lengths(h.sum(-1)).as_list  # expect: SFX310
                return h, idx, sizes
    """)
    assert found(path) == expected(path)


@pytest.mark.parametrize("body", [
    # A list appended to on one path only may be empty after the `if` (tests/cases/aux_outputs.py).
    """
        xs = []
        if self.flag:
            xs.append(self.fc(x))
        if not xs:
            return x.sum().item()  # expect: SFX102
        return xs[0]
    """,
    # The same through an alias and a helper that appends to the caller's list.
    """
        xs = []
        alias = xs
        if self.flag:
            add(alias, self.fc(x))
        if len(xs) == 0:
            return x.sum().item()  # expect: SFX102
        return xs[0]
    """,
    # A dict key set on one path only may be missing.
    """
        extras = {}
        if self.flag:
            extras["h"] = self.fc(x)
        if "h" not in extras:
            return x.sum().item()  # expect: SFX102
        return extras["h"]
    """,
    # A path that returns does not flow on: after it the list is known to be empty.
    """
        xs = []
        if self.flag:
            xs.append(self.fc(x))
            return xs[0]
        if xs:
            return x.sum().item()
        return x
    """,
    # Appended on both paths: never empty, the scalar path never runs.
    """
        xs = []
        if self.flag:
            xs.append(self.fc(x))
        else:
            xs.append(x)
        if not xs:
            return x.sum().item()
        return xs[0]
    """,
])
def test_mutations_inside_a_branch_meet_the_other_path(tmp_path, body):
    """Mutation is recorded inside a branch whose outcome is unknown (a constructor argument
    here), so that after the branch a container holds the join of both paths' states."""
    check(tmp_path, HEADER + """

def add(items, item):
    items.append(item)


class Model(nn.Module):
    def __init__(self, flag=False):
        super().__init__()
        self.flag = flag
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
""" + textwrap.indent(textwrap.dedent(body).strip("\n"), "        ") + "\n")


def test_a_helper_that_fills_a_list_is_inlined_at_every_call(tmp_path):
    """A reused call summary replays no mutation: a helper that appends to the list it is given
    runs again at its second call, so the list holds both items (and never looks empty)."""
    check(tmp_path, HEADER + """

def add(items, item):
    items.append(item)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        first, second = [], []
        add(first, self.fc(x))
        add(second, self.fc(x))
        if not second:
            return x.sum().item()
        return first[0] + second[0]
""")


@pytest.mark.parametrize("build", [
    "layers = [Block()]\n        layers += [Block() for _ in range(2)]\n        self.body = nn.Sequential(*layers)",
    "layers = []\n        layers.extend(Block() for _ in range(3))\n        self.body = nn.Sequential(*layers)",
    "self.body = nn.ModuleList()\n        for _ in range(3):\n            self.body.append(Block())",
    "self.body = nn.Sequential()\n        for i in range(3):\n            self.body.add_module(f'b{i}', Block())",
])
def test_blocks_built_the_way_real_code_builds_them(tmp_path, build):
    """`layers += [...]` extends the list in place, as Python does; the blocks are drawn and a
    break inside them is found from the model that uses them."""
    path = write(tmp_path / "model.py", HEADER + f"""

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x) * x.abs().max().item()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        {build}

    def forward(self, x):
        for block in self.body:
            x = block(x)
        return x
""")
    analysis = analyze(path.read_text(encoding="utf-8"), str(path),
                       options=Options(reuse_inlined=False, follow_defaults=True))
    model = next(g for g in analysis.graphs if g.root == "Model.forward")
    names = ["b0", "b1", "b2"] if "add_module" in build else ["0", "1", "2"]
    assert [n.target for n in model.nodes if n.op == "call_module"] == [f"body.{n}.fc" for n in names]
    assert {r.code for r in model.regions} == {"SFX102"}


def test_setattr_with_a_computed_name_assigns_the_attribute(tmp_path):
    check(tmp_path, HEADER + """

class Model(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        for i in range(depth):
            setattr(self, f"layer{i}", nn.Linear(4, 4))

    def forward(self, x):
        x = self.layer0(x)
        return self.layer1(x).sum().item()  # expect: SFX102
""")


SCALED = """
def scaled(x):
    return x * x.abs().max().item()  # expect: SFX102
"""
COUNTING = """
class Counting(nn.Module):
    def __call__(self, x):
        return x * x.abs().max().item()  # expect: SFX102
"""
POOL = """
def pool(x):
    top = x.max(1).values
    if top.sum() > 0:  # expect: SFX101
        return top
    return x
"""


@pytest.mark.parametrize("helpers, params, init, call", [
    (SCALED, "", "self.act = functools.partial(scaled)", "self.act(x)"),  # functools.partial
    (SCALED, ", act=scaled", "self.act = act", "self.act(x)"),  # a function given as a default
    (COUNTING, "", "self.inner = Counting()", "self.inner(x)"),  # an overridden __call__ is what runs
    (COUNTING, ", make=Counting", "self.inner = make()", "self.inner(x)"),  # a class given as a default
    (POOL, "", "pass", "pool(x)"),  # the `values` field of max(dim)'s named tuple is a tensor
])
def test_call_forms_real_code_uses(tmp_path, helpers, params, init, call):
    """tests/cases/call_forms.py records dynamo 2.13 breaking inside each of these."""
    check(tmp_path, HEADER + "import functools\n" + helpers + f"""

class Model(nn.Module):
    def __init__(self{params}):
        super().__init__()
        {init}

    def forward(self, x):
        return {call}
""")


def test_any_over_known_flags_decides_the_branch(tmp_path):
    """`any([flag for flag in self.enabled])` of the constructor's defaults is computed: the
    instance view analyses only the arm it takes (val_any_lists.py AnyHeadEnabled; fx draws
    only `heads.0`)."""
    check(tmp_path, HEADER + """

class Net(nn.Module):
    def __init__(self, enabled=(True, False)):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.enabled = list(enabled)

    def forward(self, x):
        if any([flag for flag in self.enabled]):
            return self.fc(x)
        return x / x.abs().max().item()
""", Options(follow_defaults=True))


def test_a_break_in_the_init_of_an_object_forward_builds_resumes(tmp_path):
    """Measured (registry_metaclass.py, and a plain class the same): dynamo breaks at the class
    call and resumes, the object not on forward's stack yet: no GB0092, unlike a break in a
    method of an object forward holds (the Lengths property above)."""
    path = write(tmp_path / "model.py", """
        import torch
        import torch.nn as nn


        class CheckedScale:
            def __init__(self, scale):
                if scale.min() <= 0:  # expect: SFX101
                    raise ValueError("scale must be positive")
                self.scale = scale

            def apply(self, x):
                return x * self.scale


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(4))

            def forward(self, x):
                return CheckedScale(self.scale).apply(x)
    """)
    assert found(path) == expected(path)


def test_blocks_built_with_other_arguments_do_not_share_a_summary(tmp_path):
    """The first block is built without stochastic depth and never breaks; the second is built
    with it and breaks. The first block's call summary must not stand in for the second's: a
    module not yet built is told apart by its constructor arguments."""
    check(tmp_path, HEADER + """

class Block(nn.Module):
    def __init__(self, dim, drop_prob):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob > 0.0 and self.training and torch.rand(()) < self.drop_prob:  # expect: SFX101
            return x
        return self.fc(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(4, 0.0), Block(4, 0.1))

    def forward(self, x):
        return self.blocks(x)
""")


def test_a_default_computed_by_a_function_that_prints_is_not_a_call_site(tmp_path):
    """A parameter's default is evaluated when the def runs, not at the call: the function it
    calls leaves no break, and the node it makes has no call site (it used to crash the
    analysis of the root, an SFX900 notice)."""
    check(tmp_path, HEADER + """

def announce(value):
    print("default", value)
    return value


def scale(x, factor=announce(2.0)):
    return x * factor


class Model(nn.Module):
    def forward(self, x):
        return scale(x)
""")


MODEL_OUTPUT = """
from collections import OrderedDict
from dataclasses import dataclass


class ModelOutput(OrderedDict):
    def __post_init__(self):
        ...
"""

ENCODER_OUTPUT = """
@dataclass
class EncoderOutput(ModelOutput):
    last_hidden_state: torch.Tensor = None
    pooler_output: torch.Tensor = None
    attentions: torch.Tensor = None
"""

EOS_HEAD = """
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        return EncoderOutput(last_hidden_state=h, attentions=h.softmax(-1))


class EosHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, input_ids, x):
        outputs = self.encoder(x)
        eos_mask = input_ids.eq(2)
        first = outputs[0][eos_mask, :]  # expect: SFX401
        second = outputs[1][eos_mask]  # expect: SFX401
        pooled = outputs["pooler_output"]
        return first, second, pooled.sum() if pooled is not None else x
"""


def test_a_model_output_read_by_position_is_its_fields_that_are_not_none(tmp_path):
    """ModelOutput's dict holds the fields that are not None in declaration order: `out[1]`
    skips the pooler output left None (measured: model_output_index.py)."""
    check(tmp_path, HEADER + MODEL_OUTPUT + ENCODER_OUTPUT + EOS_HEAD)


def test_a_model_output_after_an_unknown_field_is_not_known_by_position(tmp_path):
    check(tmp_path, HEADER + MODEL_OUTPUT + ENCODER_OUTPUT + """
class EosHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, input_ids, x, pooled=None):
        outputs = EncoderOutput(last_hidden_state=self.proj(x), pooler_output=pooled, attentions=x)
        return outputs[1][input_ids.eq(2)]
""")


def test_model_outputs_of_a_module_too_large_to_analyse_are_read_from_its_classes(tmp_path, monkeypatch):
    """transformers' modeling_outputs.py is over MAX_PROJECT_MODULE_SIZE: its dataclasses'
    fields still come from their class statements."""
    from flake8_staticfx.discover import projects

    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "generic.py", MODEL_OUTPUT)
    outputs = write(tmp_path / "pkg" / "outputs.py", "import torch\nfrom dataclasses import dataclass\n"
                    "from .generic import ModelOutput\n" + textwrap.dedent(ENCODER_OUTPUT))
    monkeypatch.setattr(projects, "MAX_PROJECT_MODULE_SIZE", len(outputs.read_text()) - 1)
    path = write(tmp_path / "pkg" / "model.py", HEADER + "from .outputs import EncoderOutput\n" + EOS_HEAD)
    assert found(path) == expected(path)


def test_the_fields_of_an_oversized_output_record_follow_its_file(tmp_path, monkeypatch):
    """The fields are worked out once per file version: an edited module is read again."""
    import ast

    from flake8_staticfx.discover import parse, projects, resolver

    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "generic.py", MODEL_OUTPUT)
    outputs = write(tmp_path / "pkg" / "outputs.py", "import torch\nfrom dataclasses import dataclass\n"
                    "from .generic import ModelOutput\n" + textwrap.dedent(ENCODER_OUTPUT))
    monkeypatch.setattr(projects, "MAX_PROJECT_MODULE_SIZE", len(outputs.read_text()) - 1)
    main = tmp_path / "pkg" / "model.py"
    module = parse.parse_source(ast.parse(""), "pkg.model", str(main))
    names = resolver.Resolver(projects.SourceModule(module, str(main), "pkg.model"), projects.Project(str(tmp_path)))
    before = names.oversized_output_record("pkg.outputs.EncoderOutput")
    outputs.write_text(outputs.read_text() + "    hidden_states: torch.Tensor = torch.zeros(1)\n", encoding="utf-8")
    after = names.oversized_output_record("pkg.outputs.EncoderOutput")
    assert before == {"last_hidden_state": True, "pooler_output": True, "attentions": True}
    assert after == {**before, "hidden_states": False}


def test_init_branch_of_unknown_outcome_joins_what_its_paths_build(tmp_path):
    """Built with its defaults, Picked keeps the Linear: the LSTM the path `__init__` explored
    last builds is no fact (it was reported, a false alarm). Two LSTMs, one per path, are."""
    check(tmp_path, HEADER + """

class Picked(nn.Module):
    def __init__(self, dim=8, mode="linear"):
        super().__init__()
        self.mixer = nn.Linear(dim, dim)
        if mode == "lstm":
            self.mixer = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, x):
        return self.mixer(x)


class EitherLSTM(nn.Module):
    def __init__(self, dim=8, mode="forward"):
        super().__init__()
        if mode == "bidirectional":
            self.rnn = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)
        else:
            self.rnn = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, x):
        return self.rnn(x)  # expect: SFX306
""")


AXIAL_BASE = """

class Identity2(nn.Module):
    def forward(self, x):
        return x, None


class Gate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        return x * torch.sigmoid(self.gate(x)), None


class AxialBase(nn.Module):
    def __init__(self, dim, union="cat"):
        super().__init__()
        self.with_vertical = True
        if union == "horizontal":
            self.with_vertical = False
        self.rnn_v = Identity2()

    def forward(self, x):
        if self.with_vertical:
            x, _ = self.rnn_v(x)  {mark}
        return x
"""


def test_attribute_set_under_a_flag_is_what_the_same_test_in_forward_sees(tmp_path):
    """timm's Sequencer: the base decides `with_vertical` from `union`, whose default is only
    assumed; the subclass builds the LSTM `if self.with_vertical:` after `super().__init__()`,
    and the forward it inherits calls it under the same test: whenever that line runs, the
    module is the LSTM."""
    check(tmp_path, HEADER + AXIAL_BASE.format(mark="# expect: SFX306") + """

class AxialLSTM(AxialBase):
    def __init__(self, dim, union="cat"):
        super().__init__(dim, union)
        if self.with_vertical:
            self.rnn_v = nn.LSTM(dim, dim, batch_first=True)
""")


def test_attribute_kept_under_a_flag_is_no_rnn(tmp_path):
    """The near miss: the subclass builds a gated layer under the flag; no break on either
    side of the test."""
    check(tmp_path, HEADER + AXIAL_BASE.format(mark="") + """

class AxialGate(AxialBase):
    def __init__(self, dim, union="cat"):
        super().__init__(dim, union)
        if self.with_vertical:
            self.rnn_v = Gate(dim)
""")


FLAGGED = """

class Flagged(nn.Module):
    def __init__(self, dim=8, union="cat"):
        super().__init__()
        self.with_vertical = union != "horizontal"
        self.rnn_v = nn.Identity()
        if self.with_vertical:
            self.rnn_v = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, x):
        return self.rnn_v(x){mark}
"""


def test_attribute_set_under_a_flag_is_not_a_fact_where_the_flag_is_not_tested(tmp_path):
    """Under --staticfx-configuration=any, without the test in forward the call may reach
    either side: no claim."""
    check(tmp_path, HEADER + FLAGGED.format(mark=""), Options(configuration="any"))


def test_attribute_set_under_a_flag_is_the_default_configurations(tmp_path):
    """By default the module is built with its defaults (`union="cat"`): the LSTM."""
    check(tmp_path, HEADER + FLAGGED.format(mark="  # expect: SFX306"))


def test_attribute_built_on_one_path_of_init_is_that_module_where_read(tmp_path):
    """transformers' VITS builds `self.cond_layer` only `if config.speaker_embedding_size != 0:`;
    forward reads it only where it exists, so it is the module that path built (a path only
    another configuration than the defaults takes: --staticfx-configuration=any)."""
    check(tmp_path, HEADER + """

class Conditioned(nn.Module):
    def __init__(self, dim=8, cond_size=0):
        super().__init__()
        if cond_size != 0:
            self.cond = nn.GRU(cond_size, dim, batch_first=True)

    def forward(self, x, g=None):
        if g is not None:
            g, _ = self.cond(g)  # expect: SFX306
        return x
""", Options(configuration="any"))


def test_a_functions_own_import_binds_its_local(tmp_path):
    """transformers' import_utils.py imports torch inside each function, never at module level:
    `torch` in such a function is the torch its own `import` binds."""
    pkg = tmp_path / "proj"
    write(pkg / "__init__.py", "")
    write(pkg / "checks.py", """
        def check_all(cond):
            import torch
            from torch import _check_tensor_all as check_tensor

            if isinstance(cond, torch.Tensor):
                check_tensor(cond)
    """)
    path = write(pkg / "model.py", """
        import torch
        import torch.nn as nn
        from .checks import check_all


        class Net(nn.Module):
            def forward(self, x: torch.Tensor):
                check_all(x > 0)
                return x
    """)
    assert found(path) == [(8, "SFX102")]


@pytest.mark.parametrize("disabled, reported", [('"0"', True), ('"1"', False)])
def test_an_early_return_the_default_environment_does_not_take_leaves_the_rest_certain(tmp_path, disabled,
                                                                                          reported):
    """`if os.getenv("DISABLE_CHECKS", "0") == "1": return` in a called function: with the variable
    unset (its default, as dynamo's truth is recorded) the function goes on, so the break after
    it happens on every call; with a default that returns, nothing after it runs."""
    pkg = tmp_path / "proj"
    write(pkg / "__init__.py", "")
    write(pkg / "checks.py", f"""
        import os


        def peak(x):
            if os.getenv("DISABLE_CHECKS", {disabled}) == "1":
                return None
            return x.max().item()
    """)
    path = write(pkg / "model.py", """
        import torch
        import torch.nn as nn
        from .checks import peak


        class Net(nn.Module):
            def forward(self, x: torch.Tensor):
                peak(x)
                return x
    """)
    assert found(path) == ([(8, "SFX102")] if reported else [])


def test_a_summary_key_never_matches_a_freed_modules_successor():
    """A module's signature named its attributes by id(): once the module of one root was
    freed, a module of a later root placed at the same address matched the summaries kept for
    the file, and the graph depended on memory layout."""
    import gc

    from flake8_staticfx.values.base import signature_of
    from flake8_staticfx.values.modules import Module

    kept = set()
    for _ in range(50):
        module = Module("block", attrs={"scale": None})
        key = signature_of(module)
        assert key not in kept
        kept.add(key)
        del module
        gc.collect()
