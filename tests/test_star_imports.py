"""Names a package re-exports by `from .x import *` (torch_geometric.nn, kornia.augmentation):
resolved as Python binds them (`__all__`, else the public names; the last star import wins),
and a called name of a module we read that no statement we follow binds is an SFX900 notice
under --staticfx-notices, never a silent clean."""
from __future__ import annotations

from pathlib import Path

from flake8_staticfx.front.report import flake8_diagnostics

from test_discovery import analyse, codes, write

GATE = """
import torch.nn as nn

__all__ = {exported}


class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x
"""

MODEL = """
import torch.nn as nn
from pkg import Gate


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = Gate()

    def forward(self, x):
        return self.g(x) * 2
"""


def project(tmp_path: Path, init: str, exported: str = '["Gate"]') -> Path:
    write(tmp_path / "pkg" / "__init__.py", init)
    write(tmp_path / "pkg" / "conv.py", GATE.format(exported=exported))
    return write(tmp_path / "model.py", MODEL)


def test_a_class_re_exported_by_a_star_import_breaks_where_it_is_called(tmp_path):
    assert codes(project(tmp_path, "from .conv import *\n")) == [(11, "SFX101")]


def test_through_two_star_re_exports_and_a_cycle_of_them(tmp_path):
    write(tmp_path / "pkg" / "layers" / "__init__.py", "from ..conv import *\nfrom pkg import *\n")
    assert codes(project(tmp_path, "from .layers import *\n")) == [(11, "SFX101")]


def test_the_last_star_import_binding_the_name_wins(tmp_path):
    for order, expected in (("conv", "calm"), []), (("calm", "conv"), [(11, "SFX101")]):
        root = tmp_path / order[0]
        write(root / "pkg" / "calm.py", "import torch.nn as nn\n\n\nclass Gate(nn.Module):\n"
                                        "    def forward(self, x):\n        return x\n")
        assert codes(project(root, "".join(f"from .{name} import *\n" for name in order))) == expected


def test_a_star_import_rebinds_a_name_defined_above_it_not_below(tmp_path):
    calm = "import torch.nn as nn\n\n\nclass Gate(nn.Module):\n    def forward(self, x):\n        return x\n"
    assert codes(project(tmp_path / "above", calm + "\n\nfrom .conv import *\n")) == [(11, "SFX101")]
    assert codes(project(tmp_path / "below", "from .conv import *\n" + calm)) == []


def test_a_name_left_out_of_all_is_not_re_exported_and_the_user_hears_of_it(tmp_path):
    model = project(tmp_path, "from .conv import *\n", exported='["Other"]')
    assert codes(model) == []
    notices = list(flake8_diagnostics(analyse(model), notices=True))
    assert [(line, message.split()[0]) for line, _, message in notices] == [(8, "SFX900")]
    assert "pkg.Gate" in notices[0][2]


def test_a_lazy_package_attribute_is_a_notice_not_a_silent_clean(tmp_path):
    init = "import importlib\n\n\ndef __getattr__(name):\n    return getattr(importlib.import_module('.conv', __name__), name)\n"
    notices = list(flake8_diagnostics(analyse(project(tmp_path, init)), notices=True))
    assert [(line, message.split()[0]) for line, _, message in notices] == [(8, "SFX900")]


def test_only_modules_whose_text_can_bind_the_name_are_parsed(tmp_path, monkeypatch):
    """transformers.models star-imports ~400 packages: parsing every one on the way to the one
    binding `BertConfig` cost 12 s and 900 MiB. A module whose text spells neither the name nor
    a star import is not parsed; the answer is the same."""
    from flake8_staticfx.discover import projects

    parsed = []
    real = projects.parse_source
    monkeypatch.setattr(projects, "parse_source", lambda tree, modname, *rest, **options: parsed.append(modname)
                        or real(tree, modname, *rest, **options))
    for index in range(5):
        write(tmp_path / "pkg" / "others" / f"m{index}.py", f"def helper{index}():\n    return {index}\n")
    write(tmp_path / "pkg" / "others" / "__init__.py",
          "".join(f"from .m{index} import *\n" for index in range(5)))
    model = project(tmp_path, "from .conv import *\nfrom .others import *\n")
    assert codes(model) == [(11, "SFX101")]
    assert not [name for name in parsed if name.startswith("pkg.others")]
