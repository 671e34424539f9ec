"""Stage 1: which classes and functions are compile roots.

A root is the `forward` of an nn.Module subclass (found through any import spelling, through
user base classes and mixins, in this file or another file of the same project) or a function
decorated with torch.compile. Everything else is not linted as a root.
"""
from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.config import DEFAULT_MODULE_BASES
from flake8_staticfx.front.report import flake8_diagnostics


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


def analyse(path: Path, options: Options | None = None):
    return analyze(path.read_text(encoding="utf-8"), str(path), options=options)


def roots(path: Path, options: Options | None = None) -> list[str]:
    return [graph.root for graph in analyse(path, options).graphs]


def codes(path: Path, options: Options | None = None) -> list[tuple[int, str]]:
    return [(line, message.split()[0]) for line, _, message in flake8_diagnostics(analyse(path, options))]


# A body whose break tells that the forward was analysed, not only listed.
BODY = """
    def forward(self, x):
        return x.sum().item()
"""


@pytest.mark.parametrize(("imports", "base"), [
    ("import torch.nn as nn", "nn.Module"),
    ("import torch", "torch.nn.Module"),
    ("import torch.nn", "torch.nn.Module"),
    ("from torch.nn import Module", "Module"),
    ("from torch.nn import Module as TorchModule", "TorchModule"),
    ("from torch import nn", "nn.Module"),
    ("from torch import nn as tnn", "tnn.Module"),
    ("import torch as T", "T.nn.Module"),
    ("from torch.nn.modules.module import Module", "Module"),
    ("import torch.nn as nn", "nn.Linear"),  # a subclass of a torch layer is a module too
])
def test_module_found_through_every_import_spelling(tmp_path, imports, base):
    path = write(tmp_path / "model.py", f"{imports}\n\n\nclass Net({base}):{BODY}")
    assert roots(path) == ["Net.forward"]
    assert codes(path) == [(6, "SFX102")]


def test_unrelated_module_named_like_torch_is_not_a_module(tmp_path):
    path = write(tmp_path / "model.py", f"import mylib.nn as nn\n\n\nclass Net(nn.Module):{BODY}")
    assert roots(path) == []
    assert codes(path) == []


def test_user_base_class_and_mixin_in_the_same_file(tmp_path):
    path = write(tmp_path / "model.py", """
        import torch.nn as nn


        class Base(nn.Module):
            def helper(self, x):
                return x * 2


        class Middle(Base):
            pass


        class LoggingMixin:
            def describe(self):
                return type(self).__name__


        class Net(LoggingMixin, Middle):
            def forward(self, x):
                return self.helper(x).sum().item()


        class MixinFirstThenTorch(LoggingMixin, nn.Module):
            def forward(self, x):
                return x.tolist()
    """)
    assert roots(path) == ["Net.forward", "MixinFirstThenTorch.forward"]
    assert codes(path) == [(20, "SFX102"), (25, "SFX103")]


def test_module_classes_need_a_forward_to_be_roots(tmp_path):
    path = write(tmp_path / "model.py", """
        import torch.nn as nn


        class Base(nn.Module):
            def helper(self, x):
                return x.sum().item()


        class Child(Base):
            def forward(self, x):
                return x
    """)
    assert roots(path) == ["Child.forward"]


def test_subclass_compiles_the_inherited_forward(tmp_path):
    # A subclass that only changes attributes is compiled with the forward it inherits: a root
    # of its own, whose breaks are still reported once per line.
    path = write(tmp_path / "model.py", """
        import torch.nn as nn


        class Base(nn.Module):
            def forward(self, x):
                return x.sum().item()


        class Child(Base):
            def extra(self):
                return 1
    """)
    assert roots(path) == ["Base.forward", "Child.forward"]
    assert codes(path) == [(6, "SFX102")]


def make_package(tmp_path: Path) -> Path:
    """pkg/ with its base classes in submodules; returns the package directory."""
    pkg = tmp_path / "pkg"
    write(pkg / "__init__.py", "")
    write(pkg / "layers" / "__init__.py", "from .common import Backbone\n")
    write(pkg / "layers" / "common.py", """
        import torch.nn as nn


        class Backbone(nn.Module):
            def features(self, x):
                return x * 2


        class Head(Backbone):
            pass
    """)
    write(pkg / "mixins.py", """
        class ConfigMixin:
            def config(self):
                return {}
    """)
    return pkg


@pytest.mark.parametrize(("imports", "base"), [
    ("from .layers.common import Backbone", "Backbone"),
    ("from pkg.layers.common import Backbone", "Backbone"),
    ("from .layers import common", "common.Backbone"),
    ("import pkg.layers.common as common", "common.Backbone"),
    ("import pkg.layers.common", "pkg.layers.common.Backbone"),
    ("from .layers import Backbone", "Backbone"),  # re-exported by layers/__init__.py
    ("from .layers.common import Head", "Head"),  # two user classes deep, in the other file
])
def test_user_base_class_in_another_file_of_the_package(tmp_path, imports, base):
    pkg = make_package(tmp_path)
    path = write(pkg / "model.py", f"""
        {imports}
        from .mixins import ConfigMixin


        class Net(ConfigMixin, {base}):
            def forward(self, x):
                return self.features(x).sum().item()
    """)
    assert roots(path) == ["Net.forward"]
    assert codes(path) == [(7, "SFX102")]


def test_mixin_from_another_file_alone_does_not_make_a_module(tmp_path):
    pkg = make_package(tmp_path)
    path = write(pkg / "model.py", f"""
        from .mixins import ConfigMixin


        class NotAModule(ConfigMixin):{BODY}""")
    assert roots(path) == []


@pytest.mark.parametrize("spelling", [
    "from lightning import LightningModule",
    "from pytorch_lightning import LightningModule",
    "import pytorch_lightning as pl",
    "from transformers import PreTrainedModel",
])
def test_default_module_bases(tmp_path, spelling):
    name = spelling.split()[-1]
    base = {"pl": "pl.LightningModule"}.get(name, name)
    path = write(tmp_path / "model.py", f"{spelling}\n\n\nclass Net({base}):{BODY}")
    assert roots(path) == ["Net.forward"]
    assert codes(path) == [(6, "SFX102")]
    assert roots(path, Options(module_bases=())) == []


def test_default_module_bases_are_the_documented_ones():
    assert "LightningModule" in DEFAULT_MODULE_BASES
    assert Options().module_bases == DEFAULT_MODULE_BASES


def test_custom_module_base_through_the_analysis_options(tmp_path):
    path = write(tmp_path / "model.py", f"from mylib.models import TrainableBase\n\n\nclass Net(TrainableBase):{BODY}")
    assert roots(path) == []
    assert roots(path, Options(module_bases=("TrainableBase",))) == ["Net.forward"]
    assert roots(path, Options(module_bases=("mylib.models.TrainableBase",))) == ["Net.forward"]


def flake8(*args: str, cwd: Path) -> list[str]:
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", *args],
                            capture_output=True, text=True, cwd=cwd, timeout=120)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout.splitlines()


def test_module_bases_flake8_option(tmp_path):
    write(tmp_path / "model.py", f"from mylib.models import TrainableBase\n\n\nclass Net(TrainableBase):{BODY}")
    assert flake8("model.py", cwd=tmp_path) == []
    found = flake8("--staticfx-module-bases=Other,TrainableBase", "model.py", cwd=tmp_path)
    assert [line.split(": ")[0] + ": " + line.split(": ")[1].split()[0] for line in found] \
        == ["model.py:6:16: SFX102"]


def test_module_bases_option_replaces_the_defaults(tmp_path):
    write(tmp_path / "model.py", f"from lightning import LightningModule\n\n\nclass Net(LightningModule):{BODY}")
    assert len(flake8("model.py", cwd=tmp_path)) == 1
    assert flake8("--staticfx-module-bases=TrainableBase", "model.py", cwd=tmp_path) == []


TWO_BASES = f"""from lightning import LightningModule
from mylib.models import TrainableBase


class Net(LightningModule):{BODY}

class Mine(TrainableBase):{BODY}"""


def test_extend_module_bases_adds_to_the_defaults(tmp_path):
    write(tmp_path / "model.py", TWO_BASES)
    assert [line.split(": ")[0] for line in flake8("model.py", cwd=tmp_path)] == ["model.py:7:16"]
    assert [line.split(": ")[0] for line in flake8("--staticfx-module-bases=TrainableBase", "model.py",
                                                   cwd=tmp_path)] == ["model.py:12:16"]
    extended = flake8("--staticfx-extend-module-bases=TrainableBase", "model.py", cwd=tmp_path)
    assert [line.split(": ")[0] for line in extended] == ["model.py:7:16", "model.py:12:16"]


def test_extend_module_bases_from_a_config_file_adds_to_the_replaced_list(tmp_path):
    write(tmp_path / "model.py", TWO_BASES)
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-module-bases = Other\n"
                                        "staticfx-extend-module-bases = mylib.models.TrainableBase\n")
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "model.py"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert [line.split(": ")[0] for line in result.stdout.splitlines()] == ["model.py:12:16"], result.stderr


def test_torch_compile_decorated_functions_are_roots(tmp_path):
    path = write(tmp_path / "model.py", """
        import torch
        from torch import compiler


        @torch.compile
        def plain(x):
            return x.sum().item()


        @torch.compile(fullgraph=False, dynamic=True)
        def called(x):
            return x.tolist()


        @compiler.compile
        def through_compiler(x):
            return print(x)


        @torch.no_grad()
        def not_compiled(x):
            return x.sum().item()


        def undecorated(x):
            return x.sum().item()


        class Runner:
            @torch.compile
            def step(self, x):
                return x.sum().item()
    """)
    assert roots(path) == ["plain", "called", "through_compiler", "Runner.step"]
    assert codes(path) == [(7, "SFX102"), (12, "SFX103"), (17, "SFX201"), (32, "SFX102")]


@pytest.mark.parametrize(("imports", "decorator"), [
    ("from torch import compile", "@compile"),
    ("from torch import compile as tcompile", "@tcompile"),
    ("from torch import compile as tcompile", "@tcompile(mode='max-autotune')"),
    ("import torch as T", "@T.compile"),
    ("import torch.compiler as tc", "@tc.compile"),
])
def test_torch_compile_through_every_import_spelling(tmp_path, imports, decorator):
    path = write(tmp_path / "model.py", f"{imports}\n\n\n{decorator}\ndef step(x):\n    return x.sum().item()\n")
    assert roots(path) == ["step"]
    assert codes(path) == [(6, "SFX102")]


def test_functions_compiled_by_calling_torch_compile_are_roots(tmp_path):
    """`f = torch.compile(f)` and `self.m = torch.compile(self.m)` compile the function and the
    method (tests/cases/compiled_by_call.py records dynamo's breaks in both)."""
    path = write(tmp_path / "model.py", """
        import re

        import torch


        def step(x):
            return x.sum().item()


        def never(x):
            return x.sum().item()


        fast_step = torch.compile(step, mode="reduce-overhead")
        pattern = re.compile(never)


        class Trainer:
            def __init__(self):
                self.update = torch.compile(self.update)

            def update(self, x):
                return x.tolist()
    """)
    assert roots(path) == ["step", "Trainer.update"]
    assert codes(path) == [(7, "SFX102"), (23, "SFX103")]


@pytest.mark.parametrize("binding, found", [
    ("model = torch.compile(tiny())", []),  # what tiny returns is compiled: tiny runs eagerly, before
    ("model = tiny()\n    model.compile()", []),
    ("model = torch.compile(tiny)()", [(6, "SFX203")]),  # tiny itself: its manual_seed breaks
])
def test_a_factory_called_inside_torch_compile_is_not_compiled(tmp_path, binding, found):
    """`model = torch.compile(tiny_model())` (minGPT, FLUX and minRF drivers in
    tests/recompile_cases): the factory's body is eager code, where nothing breaks a graph."""
    path = write(tmp_path / "driver.py", f"""
import torch
import torch.nn as nn


def tiny():
    torch.manual_seed(0)
    return nn.Linear(2, 2)


def run():
    {binding}
    model(torch.randn(2, 2))
""")
    assert codes(path) == found


def test_settings_written_in_the_code_are_read(tmp_path):
    """`@torch.compile(fullgraph=True)` captures `.item()` (as --staticfx-fullgraph does, measured
    in tests/test_oracle_options.py); `torch._dynamo.config.capture_scalar_outputs = True` at
    module level does for the whole file (tests/cases/config_in_code.py)."""
    path = write(tmp_path / "model.py", """
        import torch


        @torch.compile(fullgraph=True)
        def whole(x):
            return x.sum().item()


        def split(x):
            return x.sum().item()


        def whole_by_call(x):
            return x.sum().item()


        compiled = torch.compile(split, dynamic=True)
        also = torch.compile(whole_by_call, fullgraph=True)
    """)
    assert roots(path) == ["whole", "split", "whole_by_call"]
    assert codes(path) == [(10, "SFX102")]
    configured = write(tmp_path / "configured.py", "import torch\n\ntorch._dynamo.config.capture_scalar_outputs = True\n"
                       + path.read_text(encoding="utf-8"))
    assert codes(configured) == []


def test_a_module_compiled_at_module_level_keeps_its_settings(tmp_path):
    """`model = torch.compile(Model(), fullgraph=True)` compiles Model's forward with
    fullgraph=True, which captures `.item()` (tests/cases/cfg_compiled_model_global.py)."""
    path = write(tmp_path / "model.py", """
        import torch
        import torch.nn as nn


        class Whole(nn.Module):
            def forward(self, x):
                return x.sum().item()


        class Split(nn.Module):
            def forward(self, x):
                return x.sum().item()


        model = torch.compile(Whole(), fullgraph=True)
        other = torch.compile(Split())
    """)
    assert codes(path) == [(12, "SFX102")]


def test_a_break_under_fullgraph_says_the_compile_fails(tmp_path):
    """With fullgraph=True dynamo raises at the first break instead of splitting the graph."""
    path = write(tmp_path / "model.py", """
        import torch


        @torch.compile(fullgraph=True)
        def whole(x):
            print(x.shape)
            return x


        @torch.compile
        def split(x):
            print(x.shape)
            return x
    """)
    messages = [message for _, _, message in flake8_diagnostics(analyse(path))]
    assert ["fullgraph=True: the compile fails here" in message for message in messages] == [True, False]


def test_config_patch_decorators_scope_their_settings(tmp_path):
    """Measured with 2.13 (tests/cases/cfg_config_patch_forward.py and a forward decorated the
    same way): a call of a patched helper breaks (GB0142) and the helper compiles as a frame
    of its own with the patch on; a patched forward compiles with it too."""
    path = write(tmp_path / "model.py", """
        import torch
        import torch.nn as nn


        @torch._dynamo.config.patch(capture_scalar_outputs=True)
        def captured(h):
            return h.sum().item()


        @torch._dynamo.config.patch(cache_size_limit=16)
        def split(h):
            return h.sum().item()


        class Head(nn.Module):
            def forward(self, x):
                total = captured(x)
                return total + split(x)


        class PatchedHead(nn.Module):
            @torch._dynamo.config.patch(capture_scalar_outputs=True)
            def forward(self, x):
                return split(x) + x.sum().item()
    """)
    assert roots(path) == ["Head.forward", "PatchedHead.forward"]
    assert codes(path) == [(12, "SFX102"), (17, "SFX308"), (18, "SFX308"), (24, "SFX308")]


def test_a_break_the_settings_remove_hides_no_break_after_it(tmp_path):
    """Measured with 2.13 (tests/cases/cfg_code_scalar_capture_loop.py,
    cfg_code_ignored_logger_loop.py, cfg_option_settings_first.py): a captured `.item()` or an
    ignored logger call in a loop is no break, so the print after it is the break that makes
    dynamo give up on forward; the settings hold whether the code writes them or the options do."""
    body = """
        class Peak(nn.Module):
            def forward(self, x):
                for _ in range(2):
                    peak = x.abs().max().item()
                    print("peak", peak)
                return x


        class Logged(nn.Module):
            def forward(self, x):
                for step in range(2):
                    logger.info("step %d", step)
                    print("step", step)
                return x
    """
    header = "import logging\n\nimport torch\nimport torch.nn as nn\n\nlogger = logging.getLogger(__name__)\n"
    plain = write(tmp_path / "plain.py", header + textwrap.dedent(body))
    # Without the settings each print is a to-do item, waiting on the break before it.
    assert codes(plain) == [(11, "SFX102"), (12, "SFX201"), (19, "SFX202"), (20, "SFX201")]
    assert [line for line, _, message in flake8_diagnostics(analyse(plain)) if "no longer breaks" in message] == [12, 20]
    assert codes(plain, Options(capture_scalar_outputs=True)) == [(12, "SFX201"), (19, "SFX202"), (20, "SFX201")]
    assert codes(plain, Options(ignore_logging_functions=("logging.Logger.info",))) == \
        [(11, "SFX102"), (12, "SFX201"), (20, "SFX201")]
    written = write(tmp_path / "written.py", header + "torch._dynamo.config.capture_scalar_outputs = True\n"
                    "torch._dynamo.config.ignore_logger_methods = {logger.info}\n" + textwrap.dedent(body))
    assert codes(written) == [(14, "SFX201"), (22, "SFX201")]


def test_functions_named_compile_elsewhere_are_not_roots(tmp_path):
    path = write(tmp_path / "model.py", """
        import re
        from mylib import compile


        @compile
        def step(x):
            return x.sum().item()


        @re.compile
        def other(x):
            return x.sum().item()
    """)
    assert roots(path) == []


def test_non_modules_are_not_roots(tmp_path):
    path = write(tmp_path / "model.py", """
        import dataclasses

        import torch


        class Plain:
            def forward(self, x):
                return x.sum().item()


        @dataclasses.dataclass
        class Config:
            width: int = 4

            def forward(self, x):
                return x.sum().item()


        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.sum().item()


        def forward(x):
            return x.sum().item()


        class Dataset(torch.utils.data.Dataset):
            def forward(self, x):
                return x.sum().item()
    """)
    assert roots(path) == []
    assert codes(path) == []


def test_class_decorated_by_an_unknown_decorator_is_not_linted(tmp_path):
    # The decorator may replace forward (e.g. a library's kernel dispatch).
    path = write(tmp_path / "model.py", f"""
        import torch.nn as nn
        from mylib import swap_forward


        @swap_forward
        class Net(nn.Module):{BODY}""")
    assert roots(path) == []


def test_roots_in_source_order_with_nested_classes(tmp_path):
    path = write(tmp_path / "model.py", """
        import torch.nn as nn


        class Outer(nn.Module):
            class Inner(nn.Module):
                def forward(self, x):
                    return x

            def forward(self, x):
                return x


        class Last(nn.Module):
            def forward(self, x):
                return x
    """)
    assert sorted(roots(path)) == ["Inner.forward", "Last.forward", "Outer.forward"]


def test_cyclic_class_hierarchy_does_not_hang(tmp_path):
    # Not valid at run time, but a linter sees code mid-edit.
    path = write(tmp_path / "model.py", """
        import torch.nn as nn


        class A(B):
            def forward(self, x):
                return x.sum().item()


        class B(A):
            pass
    """)
    assert roots(path) == []


NET_AND_AUGMENT = """
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            return h / h.abs().max().item()


    class Jitter(nn.Module):
        # data augmentation, run in the data loader
        def forward(self, x):
            if x.std() > 1.0:
                x = x / x.std()
            return x
"""


@pytest.mark.parametrize("compile_line", [
    "net = torch.compile(Net(), fullgraph=True)",
    "net = Net()\n    net = torch.compile(net, fullgraph=True)",
    "net = Net()\n    net.compile(fullgraph=True)",
])
def test_a_model_compiled_in_another_file_gets_that_calls_settings(tmp_path, compile_line):
    """`torch.compile(Net(), fullgraph=True)` in train.py compiles model.py's Net with
    fullgraph=True, which captures `.item()` (as in the same file, above)."""
    model = write(tmp_path / "model.py", NET_AND_AUGMENT)
    write(tmp_path / "train.py", f"""
import torch
from model import Jitter, Net


def main():
    augment = Jitter()
    {compile_line}
    return net(augment(torch.randn(2, 4)))
""")
    assert codes(model) == [(18, "SFX101")]
    assert codes(model, Options(compiled_only=True)) == []


def test_compiled_only_keeps_what_the_project_compiles(tmp_path):
    """The augmentation module never compiles: with --staticfx-compiled-only it is not linted,
    also when the compile call names the model through its package's re-export."""
    model = write(tmp_path / "pkg" / "model.py", NET_AND_AUGMENT)
    write(tmp_path / "pkg" / "__init__.py", "from .model import Jitter, Net\n")
    write(tmp_path / "train.py", """
        import torch
        from pkg import Net

        model = torch.compile(Net())
    """)
    assert codes(model) == [(12, "SFX102"), (18, "SFX101")]
    assert roots(model, Options(compiled_only=True)) == ["Net.forward"]
    assert codes(model, Options(compiled_only=True)) == [(12, "SFX102")]


def test_compiled_only_without_a_compile_call_lints_every_forward_and_says_so_once(tmp_path, capsys):
    model = write(tmp_path / "model.py", NET_AND_AUGMENT)
    other = write(tmp_path / "other.py", NET_AND_AUGMENT)
    assert codes(model, Options(compiled_only=True)) == [(12, "SFX102"), (18, "SFX101")]
    assert codes(other, Options(compiled_only=True)) == [(12, "SFX102"), (18, "SFX101")]
    told = capsys.readouterr().err
    assert told.count("no torch.compile call found") == 1 and str(tmp_path) in told


def test_the_linted_text_counts_not_the_file_on_disk(tmp_path):
    """An editor lints unsaved text: a compile call typed into it counts before it is saved."""
    model = write(tmp_path / "model.py", NET_AND_AUGMENT)
    edited = model.read_text(encoding="utf-8") + "\nnet = torch.compile(Net(), fullgraph=True)\n"
    found = flake8_diagnostics(analyze(edited, str(model), options=Options(compiled_only=True)))
    assert [message.split()[0] for _, _, message in found] == []


def test_settings_the_compile_calls_disagree_on_are_not_applied(tmp_path):
    model = write(tmp_path / "model.py", NET_AND_AUGMENT)
    write(tmp_path / "a.py", "import torch\nfrom model import Net\nfast = torch.compile(Net(), fullgraph=True)\n")
    write(tmp_path / "b.py", "import torch\nfrom model import Net\nsplit = torch.compile(Net())\n")
    assert codes(model, Options(compiled_only=True)) == [(12, "SFX102")]


def test_a_project_too_big_to_index_by_default_is_indexed_for_compiled_only(tmp_path, monkeypatch):
    from flake8_staticfx.discover import compiled

    monkeypatch.setattr(compiled, "MAX_DEFAULT_INDEX_BYTES", 10)
    model = write(tmp_path / "model.py", NET_AND_AUGMENT)
    write(tmp_path / "train.py", "import torch\nfrom model import Net\nnet = torch.compile(Net(), fullgraph=True)\n")
    assert codes(model) == [(12, "SFX102"), (18, "SFX101")]  # in-file calls only: none here
    assert codes(model, Options(compiled_only=True)) == []


LAZY_BODIES_SOURCE = '''
"""A module whose functions are built on first use."""
import torch


def helper(x, *rest, scale=2, **extra):
    """Docstring only stays the doc."""
    from math import sqrt as root
    y = x * scale
    for i, item in enumerate(rest):
        y = y + item
    return root(y)


def only_doc():
    """Nothing else."""


async def fetch(url):
    data = await url.read()
    return data


def factory():
    class Local(torch.nn.Module):
        def forward(self, x):
            return x.sum()

    return Local


class Net(torch.nn.Module):
    def forward(self, x):
        try:
            z = x + 1
        except ValueError as err:
            z = err
        with torch.no_grad() as ctx:
            w = z
        return w
'''


def _functions(module):
    from astroid import nodes

    return list(module.nodes_of_class(nodes.FunctionDef))


def test_lazily_built_function_bodies_equal_an_eager_parse():
    import ast

    from flake8_staticfx.discover.parse import parse_source

    eager = parse_source(ast.parse(LAZY_BODIES_SOURCE), "m", "/p/m.py")
    lazy = parse_source(ast.parse(LAZY_BODIES_SOURCE), "m", "/p/m.py", LAZY_BODIES_SOURCE)
    assert list(lazy.locals) == list(eager.locals)
    # locals first (before the body), then the whole function
    for lazy_fn, eager_fn in zip(_functions(lazy), _functions(eager), strict=True):
        assert type(lazy_fn).__name__ == type(eager_fn).__name__
        assert {k: len(v) for k, v in lazy_fn.locals.items()} == {k: len(v) for k, v in eager_fn.locals.items()}
        assert lazy_fn.as_string() == eager_fn.as_string()
        assert (lazy_fn.doc_node.value if lazy_fn.doc_node else None) == \
            (eager_fn.doc_node.value if eager_fn.doc_node else None)
    assert [n.name for n in lazy.nodes_of_class(nodes_of_interest())] == \
        [n.name for n in eager.nodes_of_class(nodes_of_interest())]


def nodes_of_interest():
    from astroid import nodes

    return (nodes.ClassDef, nodes.FunctionDef, nodes.AssignName)


def test_definitions_walks_statements_only_and_finds_nested_roots(tmp_path):
    import ast

    from astroid import nodes

    from flake8_staticfx.discover.parse import definitions, parse_source

    module = parse_source(ast.parse(LAZY_BODIES_SOURCE), "m", "/p/m.py", LAZY_BODIES_SOURCE)
    expected = [(n.lineno, n.name) for n in parse_source(ast.parse(LAZY_BODIES_SOURCE), "m", "/p/m.py")
                .nodes_of_class((nodes.ClassDef, nodes.FunctionDef))]
    assert [(n.lineno, n.name) for n in definitions(module)] == expected
    path = write(tmp_path / "pkg" / "m.py", LAZY_BODIES_SOURCE)
    assert roots(path) == ["Local.forward", "Net.forward"]


def test_a_global_statement_keeps_the_module_locals_complete():
    """`global X` in a function assigns the module's X: it must be bound before any body is read."""
    import ast

    from flake8_staticfx.discover.parse import parse_source

    source = "def configure():\n    global LIMIT\n    LIMIT = 4\n"
    module = parse_source(ast.parse(source), "m", "/p/m.py", source)
    assert "LIMIT" in module.locals


def test_the_word_global_in_text_keeps_function_bodies_lazy():
    """Only a `global` statement needs eager bodies; the word in a comment or docstring does not
    (it cost transformers' masking_utils, generic and rope utils their lazy bodies)."""
    import ast

    from flake8_staticfx.discover.parse import parse_source

    source = '"""Global attention masks."""\n# global pooling below\ndef pool(x):\n    y = x.mean()\n    return y\n'
    function = parse_source(ast.parse(source), "m", "/p/m.py", source).body[0]
    assert function._pending is not None  # noqa: SLF001 - the body is not built yet
    assert [type(n).__name__ for n in function.body] == ["Assign", "Return"]
    for statement in ("def f(): global X", "x = 1; global X", "def f():\n\tglobal  X, Y"):
        eager = parse_source(ast.parse(statement), "m", "/p/m.py", statement)
        assert getattr(eager.body[-1], "_pending", None) is None, statement


def test_attributes_set_on_self_read_an_unbuilt_body_without_building_it():
    import ast

    from flake8_staticfx.discover.parse import attributes_set_on_self, parse_source

    source = ("class A:\n    def f(self, x):\n        '''doc'''\n        self.a = 1\n        self.b += 2\n"
              "        x.c = 3\n        def g():\n            self.d = 4\n        return self.e\n")
    method = parse_source(ast.parse(source), "m", "/p/m.py", source).body[0].body[0]
    assert attributes_set_on_self(method) == {"a", "b", "d"}
    assert method._pending is not None  # noqa: SLF001 - still unbuilt
    method.body  # noqa: B018 - build it: the astroid walk must agree
    assert attributes_set_on_self(method) == {"a", "b", "d"}


def test_nodes_of_class_walks_as_astroid_does():
    import ast

    from astroid import nodes

    from flake8_staticfx.discover.parse import nodes_of_class, parse_source

    source = Path(__file__).parent.joinpath("test_discovery.py").read_text(encoding="utf-8") + LAZY_BODIES_SOURCE
    module = parse_source(ast.parse(source), "m", "/p/m.py")
    functions = list(module.nodes_of_class(nodes.FunctionDef))
    for klass, skip in [(nodes.Call, None), ((nodes.Attribute, nodes.Call, nodes.FunctionDef), None),
                        (nodes.Return, (nodes.FunctionDef, nodes.Lambda)), (nodes.Name, nodes.Call)]:
        expected = [list(root.nodes_of_class(klass, skip_klass=skip)) for root in [module, *functions]]
        assert any(expected)
        assert [list(nodes_of_class(root, klass, skip)) for root in [module, *functions]] == expected


PASSED_FUNCTION = """
import torch


def peak(x):
    return x / x.max().item()


def apply(fn, x, steps):
    if steps > 2:
        x = x + len(x.tolist())
    return fn(x)

{compile}

def run(x):
    return {call}
"""


@pytest.mark.parametrize(("compile", "call", "expected"), [
    # Every call passes `peak` and an int: dynamo traces peak (its .item() breaks) and skips
    # the branch (tests/cases/passed_arguments.py records both).
    ("opt = torch.compile(apply)", "opt(peak, x, steps=1) + opt(fn=peak, x=x, steps=1)", [(5, "SFX102")]),
    ("opt = torch.compile(apply)", "opt(peak, x, 3)", [(5, "SFX102"), (10, "SFX103")]),
    # A use that is not a call has callers we do not see: tensors, as before.
    ("opt = torch.compile(apply)\nHANDLERS = [opt]", "opt(peak, x, 1)", [(10, "SFX103")]),
    # Two functions: fn is not known (steps still is).
    ("opt = torch.compile(apply)", "opt(peak, x, 1) + opt(torch.relu, x, 1)", []),
])
def test_compiled_function_parameters_typed_by_the_files_calls(tmp_path, compile, call, expected):
    path = write(tmp_path / "passing.py", PASSED_FUNCTION.replace("{compile}", compile).replace("{call}", call))
    assert codes(path) == expected


PASSED_ITERATOR = """
import torch


class Registry:
    def items(self):
        return [("a", 1.0)]


@torch.compile
def total(pairs, x):
    for k, v in pairs:
        x = x + v
    return x

{more}

def run(x):
    parts = {{"a": x}}
    return {call}
"""


@pytest.mark.parametrize(("more", "call", "expected"), [
    # A zip, an enumerate, a view of a dict the caller builds: dynamo cannot step it.
    ("", "total(zip([1.0], [x]), x)", [(11, "SFX318")]),
    ("", "total(enumerate([x]), x)", [(11, "SFX318")]),
    ("", "total(parts.items(), x)", [(11, "SFX318")]),
    ("", "total({'a': x}.values(), x)", [(11, "SFX318")]),
    # One call passing a zip breaks on that call, whatever a call we do not see passes.
    ("HANDLERS = [total]", "total(zip([1.0], [x]), x) + total([(1.0, x)], x)", [(11, "SFX318")]),
    # An object's own items() may return a list; a tuple of the items is stepped.
    ("", "total(Registry().items(), x)", []),
    ("", "total(tuple(zip([1.0], [x])), x)", []),
    ("zip = list", "total(zip([(1.0, x)]), x)", []),
])
def test_compiled_function_iterated_over_an_iterator_its_callers_pass(tmp_path, more, call, expected):
    path = write(tmp_path / "iterating.py", PASSED_ITERATOR.format(more=more, call=call))
    assert codes(path) == expected


@pytest.mark.parametrize(("passed", "expected"), [
    ("zip([1.0], [x])", [(5, "SFX318")]),
    ("tuple(zip([1.0], [x]))", []),
])
def test_compiled_function_typed_by_the_calls_of_the_files_importing_it(tmp_path, passed, expected):
    write(tmp_path / "pkg" / "__init__.py", "")
    steps = write(tmp_path / "pkg" / "steps.py", """
        import torch

        @torch.compile
        def total(pairs, x):
            for k, v in pairs:
                x = x + v
            return x
        """)
    write(tmp_path / "pkg" / "driver.py", f"""
        from .steps import total as run_total


        def run(x):
            return run_total({passed}, x)
        """)
    assert codes(steps) == expected


@pytest.mark.parametrize(("call", "expected"), [
    ("model(zip([1.0], [x]), x)", [(7, "SFX318")]),
    ("model(tuple(zip([1.0], [x])), x)", []),
    ("Summer()(zip([1.0], [x]), x)", []),  # an instance not compiled: its caller's graph made the zip
])
def test_compiled_module_forward_iterated_over_an_iterator_its_driver_passes(tmp_path, call, expected):
    path = write(tmp_path / "summing.py", f"""
        import torch
        import torch.nn as nn


        class Summer(nn.Module):
            def forward(self, pairs, x):
                for k, v in pairs:
                    x = x + v
                return x


        def drive(x):
            model = torch.compile(Summer())
            return {call}
        """)
    assert codes(path) == expected


BODIES_AS_TEXT_SOURCE = '''import torch


def one_line(x): return x + 1


def after_doc(x):
    """doc"""; y = x
    return y


def signature(
    x,
    y,
):
    z = (x,
y)  # a continuation line at column 0
    text = """
class NotAClass:
def not_a_def():
"""
    return z, text


class Net(torch.nn.Module):
    @torch.no_grad()
    def forward(self, x):
        def inner(a):
            return a * 2

        async def waits(b):
            return [await c async for c in b]
        if x:
            return inner(x)
        return x.é if hasattr(x, "é") else x


def decorated_first(x):
    @torch.no_grad()
    def inner(y):
        return y
    return inner(x)


def continued_first(x):
    @ \\
        torch.no_grad()
    def continued(y):
        return y
    return continued(x)


def tabbed(x):
\tif x:
\t\treturn x
\treturn -x
'''


def test_function_bodies_kept_as_their_lines_build_the_nodes_of_an_eager_parse():
    """An unbuilt body keeps where its statements stand in the module's text, not their `ast`
    (two fifths of a long run's peak memory); built, every node sits at the lines and columns
    an eager parse gives it."""
    import ast

    from astroid import nodes

    from flake8_staticfx.discover.parse import _BodyText, definitions, parse_source

    def positions(module):
        return [(type(n).__name__, n.lineno, n.col_offset, n.end_lineno, n.end_col_offset, n.as_string())
                for n in module.nodes_of_class(nodes.NodeNG)]

    lazy = parse_source(ast.parse(BODIES_AS_TEXT_SOURCE), "m", "/p/m.py", BODIES_AS_TEXT_SOURCE, kept=True)
    assert isinstance(parse_source(ast.parse(BODIES_AS_TEXT_SOURCE), "m", "/p/m.py", BODIES_AS_TEXT_SOURCE)
                      .body[-1]._pending[1], list)  # noqa: SLF001 - the linted file's own tree goes with it
    kept = {f.name: type(f._pending[1]) for f in definitions(lazy)  # noqa: SLF001 - unbuilt yet
            if isinstance(f, nodes.FunctionDef) and f._pending is not None}  # noqa: SLF001
    assert {kept[name] for name in ("signature", "forward", "tabbed", "decorated_first", "inner",
                                  "continued_first")} == {_BodyText}  # the last found in the module's parse
    assert kept["after_doc"] is kept["one_line"] is list  # a statement sharing the docstring's or header's line
    eager = parse_source(ast.parse(BODIES_AS_TEXT_SOURCE), "m", "/p/m.py")
    assert positions(lazy) == positions(eager)


def test_an_unbuilt_body_kept_as_text_is_read_without_building_it():
    import ast

    from flake8_staticfx.discover.parse import attributes_set_on_self, parse_source

    source = ("def f(self):\n    self.y = 1\n    return self.y\n\n\n"
              "def g(self):\n    class A:\n        pass\n    self.z += 1\n    return A\n")
    f, g = parse_source(ast.parse(source), "m", "/p/m.py", source, kept=True).body
    assert f.defines_nothing() and not g.defines_nothing()
    assert attributes_set_on_self(f) == {"y"} and attributes_set_on_self(g) == {"z"}
    assert f._pending is not None and g._pending is not None  # noqa: SLF001 - neither is built


def test_a_resolver_notes_the_project_lookup_of_a_library_name_on_every_ask(tmp_path):
    """The lookup of a library's top-level name in the project (which would shadow it) is done
    once per file, but each recording that asks depends on the paths it tested: a module
    `transformers.py` created in the project later changes the answer."""
    from flake8_staticfx.discover import parse, projects, resolver
    from flake8_staticfx.discover.reads import recording

    main = tmp_path / "model.py"
    names = resolver.Resolver(projects.SourceModule(parse.parse_source(ast.parse(""), "model", str(main)), str(main), "model"),
                              projects.Project(str(tmp_path)))
    shadowing = {str(tmp_path / "transformers.py"), str(tmp_path / "transformers" / "__init__.py")}
    for _ in range(2):
        with recording() as reads:
            names._library("transformers.models.bert")
        assert shadowing <= reads.paths
