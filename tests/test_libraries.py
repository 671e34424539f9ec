"""Following calls into installed libraries, and linting a library with --staticfx-library-roots.

The libraries are fake packages written into a `site-packages` directory under tmp_path, found
through --staticfx-library-path, $VIRTUAL_ENV or a `.venv` at the project root; the user file
lives in a directory of its own, so that the library is not part of its project.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_staticfx.discover import oversized, projects
from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import flake8_diagnostics

FORMAT = "--format=%(path)s|%(row)d|%(col)d|%(code)s|%(text)s"
PYTHON_VERSION = f"python{sys.version_info[0]}.{sys.version_info[1]}"

LAYERS = """
    import torch
    from torch import nn


    def scale(x):
        s = x.abs().max().item()
        return x / s


    def clean(x):
        return x * 2


    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            print(x)
            return self.proj(x)
"""

USER = """
    import torch
    from torch import nn
    import fakelib
    from fakelib.layers import scale, clean


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = fakelib.Block(4)

        def forward(self, x):
            y = scale(x)
            y = clean(y)
            return self.block(y)
"""


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


def make_library(site_packages: Path) -> Path:
    write(site_packages / "fakelib" / "__init__.py", "from .layers import Block, clean, scale\n")
    write(site_packages / "fakelib" / "layers.py", LAYERS)
    return site_packages


@pytest.fixture()
def user_file(tmp_path) -> Path:
    return write(tmp_path / "user" / "model.py", USER)


def flake8(*args: str, cwd: Path, env: dict[str, str] | None = None) -> list[tuple[int, str, str]]:
    """(line, code, text) of each diagnostic of a real flake8 run, outside any virtualenv
    unless `env` says so."""
    environment = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    environment.update(env or {})
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", FORMAT, *args],
                            cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stderr
    found = []
    for line in result.stdout.splitlines():
        _, row, _, code, text = line.split("|", 4)
        found.append((int(row), code, text))
    return sorted(found)


def test_library_breaks_are_reported_at_the_users_calls(tmp_path, user_file):
    site = make_library(tmp_path / "site-packages")
    found = flake8(f"--staticfx-library-path={site}", str(user_file), cwd=user_file.parent)
    assert [(line, code) for line, code, _ in found] == [(13, "SFX102"), (15, "SFX201")], found
    assert "in `scale` at fakelib/layers.py:6" in found[0][2]
    assert "`print(x)` in `forward` at fakelib/layers.py:20" in found[1][2]


def test_without_the_library_the_call_is_a_notice_not_a_clean(tmp_path, user_file):
    assert flake8(str(user_file), cwd=user_file.parent) == []
    found = flake8("--staticfx-notices", str(user_file), cwd=user_file.parent)
    # the library class built in __init__ and the two functions called in forward
    assert {(line, code) for line, code, _ in found} == {(10, "SFX900"), (13, "SFX900"), (14, "SFX900")}, found
    assert all("package `fakelib` not found on the library search path" in text for _, _, text in found)


def test_virtual_env_site_packages_are_searched(tmp_path, user_file):
    venv = tmp_path / "venv-elsewhere"
    make_library(venv / "lib" / PYTHON_VERSION / "site-packages")
    found = flake8(str(user_file), cwd=user_file.parent, env={"VIRTUAL_ENV": str(venv)})
    assert [code for _, code, _ in found] == ["SFX102", "SFX201"], found


def test_a_venv_at_the_project_root_is_searched(tmp_path, user_file):
    make_library(user_file.parent / ".venv" / "lib" / "python3.9" / "site-packages")
    found = flake8(str(user_file), cwd=tmp_path)
    assert [code for _, code, _ in found] == ["SFX102", "SFX201"], found


def test_library_path_as_a_config_key(tmp_path, user_file):
    site = make_library(tmp_path / "site-packages")
    write(user_file.parent / "setup.cfg", f"[flake8]\nselect = SFX\nstaticfx-library-path = {site}\n")
    result = subprocess.run([sys.executable, "-m", "flake8", FORMAT, "model.py"], cwd=user_file.parent,
                            capture_output=True, text=True, timeout=300)
    assert [line.split("|")[3] for line in result.stdout.splitlines()] == ["SFX102", "SFX201"], result


def test_the_project_shadows_a_library_of_the_same_name(tmp_path, user_file):
    """A project module named like the library hides all of it, its submodules too."""
    site = make_library(tmp_path / "site-packages")
    write(user_file.parent / "fakelib.py", "def scale(x):\n    return x\n\n\ndef clean(x):\n    return x\n\n"
                                           "def Block(dim):\n    return None\n")
    found = flake8(f"--staticfx-library-path={site}", str(user_file), cwd=user_file.parent)
    assert found == [], found


def test_a_venv_in_the_working_directory_is_searched(tmp_path):
    """pre-commit runs flake8 from the repository root, above a project root of loose files."""
    make_library(tmp_path / "venv" / "lib" / PYTHON_VERSION / "site-packages")
    user = write(tmp_path / "src" / "model.py", USER)
    assert [code for _, code, _ in flake8(str(user), cwd=tmp_path)] == ["SFX102", "SFX201"]


def test_an_installed_librarys_neighbours_are_libraries(tmp_path):
    """Linting a file inside site-packages follows its calls into the packages beside it."""
    site = make_library(tmp_path / "site-packages")
    user = write(site / "userpkg" / "model.py", USER)
    write(site / "userpkg" / "__init__.py", "")
    assert [code for _, code, _ in flake8(str(user), cwd=tmp_path)] == ["SFX102", "SFX201"]


def test_table_functions_of_a_library_keep_their_meaning(tmp_path):
    """transformers' is_torchdynamo_compiling is True under dynamo (tables.STATIC_FUNCTIONS),
    whatever its installed source does."""
    site = tmp_path / "site-packages"
    write(site / "transformers" / "__init__.py", "")
    write(site / "transformers" / "utils.py", """
        def is_torchdynamo_compiling():
            print("checking")
            return False
    """)
    user = write(tmp_path / "user" / "model.py", """
        import torch
        from transformers.utils import is_torchdynamo_compiling


        @torch.compile
        def f(x):
            if is_torchdynamo_compiling():
                return x * 2
            return x.item()
    """)
    assert flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent) == []


def test_torch_is_never_followed(tmp_path):
    """A torch (or functorch) package on the search path is not read: torch means our tables;
    nor is einops, which dynamo registers itself."""
    site = tmp_path / "site-packages"
    write(site / "torch" / "__init__.py", "def relu(x):\n    return x.item()\n\nclass Tensor:\n    pass\n")
    write(site / "functorch" / "__init__.py", "def vmap(f):\n    print(f)\n    return f\n")
    write(site / "einops" / "__init__.py", "def rearrange(x, pattern):\n    return x.item()\n")
    user = write(tmp_path / "user" / "model.py", """
        import torch
        import functorch
        from einops import rearrange


        @torch.compile
        def f(x):
            return functorch.vmap(torch.relu)(rearrange(x, "b n -> n b"))
    """)
    assert flake8(f"--staticfx-library-path={site}", "--staticfx-notices", str(user), cwd=user.parent) == []
    libraries = projects.libraries_for((str(site),), str(user.parent))
    assert libraries.package("torch") is None and libraries.package("functorch") is None
    assert libraries.missing("torch.relu") is None and libraries.missing("functorch.vmap") is None


def test_a_name_a_package_binds_hides_its_submodule_of_that_name(tmp_path):
    """timm.layers' `__init__` does `from .create_attn import create_attn`: once the package is
    imported, `timm.layers.create_attn` is the function, not the submodule create_attn.py."""
    site = tmp_path / "site-packages"
    write(site / "fakelib" / "__init__.py", "from .scale import scale\nfrom . import clean\n")
    write(site / "fakelib" / "scale.py", """
        def scale(x):
            return x / x.abs().max().item()
    """)
    write(site / "fakelib" / "clean.py", """
        def clean(x):
            return x * 2
    """)
    user = write(tmp_path / "user" / "model.py", """
        from torch import nn
        from fakelib import clean, scale


        class Model(nn.Module):
            def forward(self, x):
                return clean.clean(scale(x))
    """)
    found = flake8(f"--staticfx-library-path={site}", "--staticfx-notices", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(7, "SFX102")], found
    assert "in `scale` at fakelib/scale.py:2" in found[0][2]


def test_a_library_module_too_large_keeps_its_classes_opaque_and_follows_its_functions(tmp_path, user_file):
    """A module over MAX_PROJECT_MODULE_SIZE is not analysed whole: the class `Block` (whose
    forward prints) stays opaque, while its top-level functions are followed in a slice of it,
    at the module's own line numbers: `scale` breaks, `clean` does not."""
    site = make_library(tmp_path / "site-packages")
    padding = "\n".join(f"CONSTANT_{i} = {i}" for i in range(projects.MAX_PROJECT_MODULE_SIZE // 12))
    write(site / "fakelib" / "layers.py", textwrap.dedent(LAYERS) + "\n" + padding + "\n")
    found = flake8(f"--staticfx-library-path={site}", str(user_file), cwd=user_file.parent)
    assert [(line, code) for line, code, _ in found] == [(13, "SFX102")], found
    assert "in `scale` at fakelib/layers.py:6" in found[0][2]


IMPORT_UTILS = """
    import os
    from typing import Any


    def is_torchdynamo_compiling() -> bool:
        print("not the source: tables.STATIC_FUNCTIONS says True under dynamo")
        return False


    def is_jit_tracing() -> bool:
        try:
            import torch

            return torch.jit.is_tracing()
        except Exception:
            return False


    def is_tracing(tensor=None) -> bool:
        return is_torchdynamo_compiling() or is_jit_tracing()


    def torch_compilable_check(cond: Any, msg: str) -> None:
        if os.getenv("TRANSFORMERS_DISABLE_TORCH_CHECK", "0") == "1":
            return
        import torch

        if is_tracing():
            if isinstance(cond, torch.Tensor):
                torch._check_tensor_all(cond)
            else:
                torch._check(cond)
            return
        if not cond:
            raise ValueError(msg)
"""

COMPILABLE_CHECKS = """
    import torch
    from torch import nn
    from transformers.utils import torch_compilable_check


    class TokenCheck(nn.Module):
        def forward(self, tokens: torch.Tensor, features: torch.Tensor):
            n_tokens = (tokens == 3).sum()
            torch_compilable_check(n_tokens * features.shape[-1] == features.numel(), f"tokens: {n_tokens}")
            return features * 2


    class WidthCheck(nn.Module):
        def forward(self, tokens: torch.Tensor, features: torch.Tensor):
            torch_compilable_check(features.shape[-1] == 8, f"got {features.shape[-1]}")
            return features * 2
"""


def oversized_transformers(site: Path) -> Path:
    """A transformers-like library whose utils/import_utils.py is over MAX_PROJECT_MODULE_SIZE,
    as the real one (134 KB) is."""
    write(site / "transformers" / "__init__.py", "")
    write(site / "transformers" / "utils" / "__init__.py",
          "from .import_utils import is_torchdynamo_compiling, torch_compilable_check\n")
    padding = "\n".join(f"_package_{i}_available = {i} > 0" for i in range(projects.MAX_PROJECT_MODULE_SIZE // 24))
    module = write(site / "transformers" / "utils" / "import_utils.py", textwrap.dedent(IMPORT_UTILS) + "\n" + padding + "\n")
    assert len(module.read_text()) > projects.MAX_PROJECT_MODULE_SIZE
    return site


def test_a_function_of_an_oversized_library_module_is_followed(tmp_path):
    """transformers' torch_compilable_check (utils/import_utils.py, 134 KB): under dynamo
    `is_tracing()` holds (is_torchdynamo_compiling keeps its table meaning inside the slice)
    and a tensor condition reaches torch._check_tensor_all, whose `.item()` breaks (GB0124,
    measured: val_compilable_checks.py); a shape condition reaches torch._check and traces."""
    site = oversized_transformers(tmp_path / "site-packages")
    user = write(tmp_path / "user" / "model.py", COMPILABLE_CHECKS)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(9, "SFX102")], found
    line = textwrap.dedent(IMPORT_UTILS).lstrip("\n").splitlines().index("            torch._check_tensor_all(cond)") + 1
    assert f"`torch._check_tensor_all(cond)` at transformers/utils/import_utils.py:{line}" in found[0][2]


def test_an_oversized_modules_function_slice_is_parsed_once(tmp_path):
    site = oversized_transformers(tmp_path / "site-packages")
    user = write(tmp_path / "user" / "model.py", COMPILABLE_CHECKS)
    options = Options(library_path=(str(site),))
    source = user.read_text(encoding="utf-8")
    first = list(flake8_diagnostics(analyze(source, str(user), None, options)))
    path = str(site / "transformers" / "utils" / "import_utils.py")
    stat = os.stat(path)
    sliced = oversized.oversized_module(path, (stat.st_mtime_ns, stat.st_size)).function_slice(
        "transformers.utils.import_utils", "torch_compilable_check")
    second = list(flake8_diagnostics(analyze(source, str(user), None, options)))
    assert first == second and [m.split()[0] for _, _, m in first] == ["SFX102"]
    assert sliced is not None and sliced.node.locals.keys() >= {"os", "is_tracing", "torch_compilable_check"}
    assert "_package_0_available" not in sliced.node.locals  # what the function does not read stays out


def test_a_research_packages_one_file_core_is_followed(tmp_path, user_file):
    """vector-quantize-pytorch keeps its VectorQuantize in one 51 KB module, where dynamo
    breaks on `if self.initted:` (the package oracle)."""
    site = make_library(tmp_path / "site-packages")
    padding = "\n".join(f"# {i:06d}" + "-" * 90 for i in range(600))
    write(site / "fakelib" / "layers.py", textwrap.dedent(LAYERS) + "\n" + padding + "\n")
    assert len((site / "fakelib" / "layers.py").read_text()) > 55_000
    found = flake8(f"--staticfx-library-path={site}", str(user_file), cwd=user_file.parent)
    assert [code for _, code, _ in found] == ["SFX102", "SFX201"], found


def test_a_model_familys_file_with_its_registrations_is_followed(tmp_path, user_file):
    """timm's resnet.py is 107 KB: the classes and the dozens of `@register_model` functions
    and default configurations of the whole ResNet family."""
    site = make_library(tmp_path / "site-packages")
    padding = "\n".join(f"# {i:06d}" + "-" * 90 for i in range(1100))
    write(site / "fakelib" / "layers.py", textwrap.dedent(LAYERS) + "\n" + padding + "\n")
    assert len((site / "fakelib" / "layers.py").read_text()) > 107_000
    found = flake8(f"--staticfx-library-path={site}", str(user_file), cwd=user_file.parent)
    assert [code for _, code, _ in found] == ["SFX102", "SFX201"], found


def test_each_library_module_is_parsed_once(tmp_path, user_file):
    site = make_library(tmp_path / "site-packages")
    options = Options(library_path=(str(site),))
    source = user_file.read_text(encoding="utf-8")
    first = list(flake8_diagnostics(analyze(source, str(user_file), None, options)))
    libraries = projects.libraries_for((str(site),), str(user_file.parent))
    loaded = libraries.package("fakelib").load("fakelib.layers")
    second = list(flake8_diagnostics(analyze(source, str(user_file), None, options)))
    assert first == second and [m.split()[0] for _, _, m in first] == ["SFX102", "SFX201"]
    assert loaded is not None and libraries.package("fakelib").load("fakelib.layers") is loaded


LIBRARY_FILE = """
    from typing import Optional

    import torch
    from torch import Tensor, nn

    MaybeTensor = Optional[Tensor]


    def annotated(x: Tensor, eps: float = 1e-6):
        return x / x.pow(2).mean().item()


    def unannotated(x, dim=-1):
        return x.abs().max(dim).item()


    def aliased(x: MaybeTensor):
        if x is not None and x.sum() > 0:
            return x
        return x


    def optional(x: "Tensor | None" = None, y: Optional[torch.Tensor] = None):
        return y.tolist()


    def _private(x: Tensor):
        return x.item()


    class Helper:
        def apply(self, x: torch.Tensor):
            return x.tolist()

        def __call__(self, x: Tensor):
            return x.item()

        def _hidden(self, x: Tensor):
            return x.item()


    class Layer(nn.Module):
        def forward(self, x):
            return x * 2

        def extra(self, y: Tensor):
            return y.item()

        @torch.compiler.disable
        def eager(self, y: Tensor):
            return y.item()
"""


def test_library_roots_are_public_functions_typed_as_forwards(tmp_path):
    """A library's public function is typed as a forward is (issue 34): `unannotated(x)` uses
    `x` as a tensor, so callers pass one (before, only annotated parameters were tensors)."""
    path = write(tmp_path / "lib" / "mylib.py", LIBRARY_FILE)
    assert flake8(str(path), cwd=path.parent) == []
    found = flake8("--staticfx-library-roots", str(path), cwd=path.parent)
    assert [(line, code) for line, code, _ in found] == [
        (10, "SFX102"),  # annotated Tensor
        (14, "SFX102"),  # unannotated, used as a tensor
        (18, "SFX101"),  # a module-level alias of Optional[Tensor]
        (24, "SFX103"),  # Optional[torch.Tensor]
        (33, "SFX103"),  # public method of a plain class
        (36, "SFX102"),  # __call__
        (47, "SFX102"),  # public method of a module
    ], found


METACLASS_LIBRARY = """\
from abc import ABCMeta

import torch

COERCIONS = []


class DistributionMeta(ABCMeta):
    def __call__(cls, *args, **kwargs):
        for coerce_ in COERCIONS:
            result = coerce_(cls, args, kwargs)
            if result is not None:
                return result
        return super().__call__(*args, **kwargs)


class CountingMeta(DistributionMeta):
    def __call__(cls, *args, **kwargs):
        return super().__call__(*args, **kwargs)


class Scaled:
    def __call__(self, x):
        return super().__call__(x)
"""


def test_a_metaclass_call_compiled_as_a_root_breaks_at_super_call(tmp_path):
    """pyro's DistributionMeta.__call__ compiled as a frame of its own (the statement building a
    distribution reran eagerly) breaks at `super().__call__`, type.__call__ (GB0006, the package
    oracle); one whose super() reaches another Python `__call__` inlines that, and a class that
    is no metaclass has no type.__call__ to reach."""
    path = write(tmp_path / "lib" / "dists.py", METACLASS_LIBRARY)
    found = flake8("--staticfx-library-roots", str(path), cwd=path.parent)
    assert [(line, code) for line, code, _ in found] == [(14, "SFX314")], found


def test_library_roots_in_options_table():
    from flake8_staticfx.config import OPTION_SPECS

    flags = {spec.flag: spec for spec in OPTION_SPECS}
    assert flags["--staticfx-library-roots"].default_value is False
    assert flags["--staticfx-library-path"].default_value == ()


def test_a_break_after_a_libraries_early_return_runs_only_on_some_calls(tmp_path):
    """pytorch-metric-learning's convert_to_weights returns `weights + 1` when `indices_tuple`
    is None, before its `torch.unique(indices, return_counts=True)`: dynamo traced the loss with
    no miner to the return and did not break (the package oracle). The loss's `pairs=None` is
    the miner's `indices_tuple=None`: a root's parameter is typed as a forward's (issue 34), so
    one without a default would be a tensor passed in. A `raise` guard is not such a return: the
    calls that get past it all break."""
    site = tmp_path / "site-packages"
    write(site / "weightlib" / "__init__.py", """
        import torch


        def weights(pairs, labels):
            ones = torch.zeros(labels.shape[0])
            if pairs is None:
                return ones + 1
            unique, counts = torch.unique(torch.cat(pairs), return_counts=True)
            return counts


        def checked(pairs, labels):
            if pairs is None:
                raise ValueError("pairs needed")
            unique, counts = torch.unique(torch.cat(pairs), return_counts=True)
            return counts
    """)
    user = write(tmp_path / "user" / "model.py", """
        import torch
        from weightlib import checked, weights


        def loss(embeddings, labels, pairs=None):
            return weights(pairs, labels)


        def strict_loss(embeddings, labels, pairs):
            return checked(pairs, labels)
    """)
    found = flake8(f"--staticfx-library-path={site}", "--staticfx-library-roots", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(10, "SFX401")], found


def test_a_break_on_the_default_calls_path_is_reported():
    """transformers' `get_vision_position_ids(grid_thw, ..., kwargs=kwargs)` returns early only
    when the caller passed `position_ids` in the root's **kwargs, then breaks on
    `grid_thw.tolist()` (the library oracle's qwen2_vl). Called as `model(x)`, the kwargs are
    empty and the break happens; a branch on a constructor's default picks its path so too.
    Recorded in tests/cases/precomputed_kwargs.py: PlainLookup's default returns first."""
    cases = Path(__file__).parent / "cases"
    found = flake8(str(cases / "precomputed_kwargs.py"), cwd=cases.parent)
    assert [(line, code) for line, code, _ in found] == [(16, "SFX401"), (30, "SFX401")], found


def test_a_library_call_whose_every_path_breaks_breaks(tmp_path):
    """pytorch-metric-learning's get_all_triplets_indices takes `torch.where` on small batches
    and a masked index anchor by anchor on big ones: the branch on shapes is not known
    statically, but every call breaks (the package oracle, at `torch.where`). A miner whose
    other path is a masked minimum is not reported, and an always-breaking call is reported at
    each of the file's call sites, not only at the first one inlined."""
    site = tmp_path / "site-packages"
    write(site / "minelib" / "__init__.py", """
        import torch


        def triplets(labels):
            same = labels.unsqueeze(0) == labels.unsqueeze(1)
            if same.shape[0] ** 3 < 2 ** 31 - 1:
                return torch.where(same.unsqueeze(2) & ~same.unsqueeze(1))
            return by_anchor(same)


        def by_anchor(same):
            anchors = torch.arange(len(same))[same.any(1)]
            return anchors, anchors, anchors


        def hardest(distances, labels):
            same = labels.unsqueeze(0) == labels.unsqueeze(1)
            if distances.shape[0] < 4096:
                return distances.masked_fill(same, 1e9).amin(1)
            return distances[~same]
    """)
    user = write(tmp_path / "user" / "model.py", """
        import torch
        from torch import nn
        from minelib import hardest, triplets


        class TripletLoss(nn.Module):
            def forward(self, embeddings, labels):
                a, p, n = triplets(labels)
                return (embeddings[a] - embeddings[p]).sum()


        class HardNegativeLoss(nn.Module):
            def forward(self, distances, labels):
                return hardest(distances, labels).mean()


        class SwappedTripletLoss(nn.Module):
            def forward(self, embeddings, labels):
                a, p, n = triplets(labels)
                return (embeddings[n] - embeddings[a]).sum()
    """)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(8, "SFX401"), (19, "SFX401")], found
    assert all("minelib/__init__.py:7" in text for _, _, text in found), found


def test_a_held_back_break_keeps_the_loop_it_was_in(tmp_path):
    """A break held back under an unknown branch is reported when its call returns, by which
    time the loop around it has ended: that it sat in a loop, which dynamo cannot resume in,
    is what it was at the break."""
    site = tmp_path / "site-packages"
    write(site / "looplib" / "__init__.py", """
        import torch


        def anchors(same):
            if same.shape[0] < 4096:
                for row in range(2):
                    positives = torch.where(same[row])[0]
                return positives
            return same.nonzero()
    """)
    user = write(tmp_path / "user" / "model.py", """
        import torch
        from torch import nn
        from looplib import anchors


        class Miner(nn.Module):
            def forward(self, labels):
                same = labels.unsqueeze(0) == labels.unsqueeze(1)
                return anchors(same)
    """)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(9, "SFX401")], found
    assert "whole `anchors` runs eagerly" in found[0][2], found


def test_a_loop_zipping_a_module_list_with_a_repeated_tuple_unrolls(tmp_path):
    """vector-quantize-pytorch's ResidualVQ builds its layers over `cast_tuple(codebook_size,
    num_quantizers)` (`t if isinstance(t, tuple) else (t,) * length`) and loops over
    `zip(self.layers, (None,) * len(self.layers))`: with isinstance decided on a known value and
    the repetition computed, the loop runs each layer, whose break the package oracle records.
    A scale known to be a float never reaches the `.item()` of the other branch."""
    site = tmp_path / "site-packages"
    write(site / "stacklib" / "__init__.py", """
        import torch
        from torch import nn


        def cast_tuple(t, length=1):
            return t if isinstance(t, tuple) else (t,) * length


        class Stage(nn.Module):
            def __init__(self, dim, scale):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.scale = scale

            def forward(self, x, transform=None):
                if isinstance(self.scale, float):
                    return self.proj(x) * self.scale
                return self.proj(x) * self.scale.item()


        class Residual(nn.Module):
            def __init__(self, dim, depth, scale=0.5, reads_stats=True):
                super().__init__()
                self.layers = nn.ModuleList([Stage(dim, scale) for _ in cast_tuple(dim, depth)])
                self.reads_stats = reads_stats

            def forward(self, x):
                for layer, transform in zip(self.layers, (None,) * len(self.layers)):
                    x = x - layer(x, transform)
                    if self.reads_stats:
                        print(x.norm())
                return x
    """)
    user = write(tmp_path / "user" / "model.py", """
        import torch
        from torch import nn
        from stacklib import Residual


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.residual = Residual(4, 3)
                self.quiet = Residual(4, 3, reads_stats=False)

            def forward(self, x):
                return self.residual(x) + self.quiet(x)
    """)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(13, "SFX201")], found


def test_a_base_init_builds_what_the_subclass_override_returns(tmp_path):
    """pytorch-metric-learning's base __init__ sets `self.distance = self.get_default_distance()`,
    which ArcFaceLoss's base overrides in another file (CosineSimilarity): the loss's forward
    calls that module, and dynamo broke on `cosine[mask == 1]` after it (the package oracle)."""
    site = tmp_path / "site-packages"
    write(site / "losslib" / "__init__.py", "from .losses import MarginLoss\n")
    write(site / "losslib" / "base.py", """
        from torch import nn


        class BaseLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.distance = self.get_default_distance()

            def get_default_distance(self):
                return None

            def forward(self, x):
                cosine = self.distance(x)
                return cosine[cosine > 0]
    """)
    write(site / "losslib" / "losses.py", """
        from torch import nn
        from .base import BaseLoss


        class Cosine(nn.Module):
            def forward(self, x):
                return x / x.norm()


        class MarginLoss(BaseLoss):
            def get_default_distance(self):
                return Cosine()
    """)
    user = write(tmp_path / "user" / "model.py", """
        from torch import nn
        from losslib import MarginLoss


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = MarginLoss()

            def forward(self, x):
                return self.loss(x)
    """)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(11, "SFX401")], found
    assert "at losslib/base.py:14" in found[0][2], found


def test_requires_grad_on_a_registered_buffer_breaks(tmp_path):
    """vector-quantize-pytorch's `loss = self.zero` then `loss.requires_grad_()` in training:
    `zero` is a buffer, autograd does not track it, dynamo broke there (GB0125, the package
    oracle). On a parameter it changes nothing and dynamo traces it."""
    site = tmp_path / "site-packages"
    write(site / "vqlib" / "__init__.py", """
        import torch
        from torch import nn


        class Quantizer(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("zero", torch.tensor(0.0), persistent=False)
                self.scale = nn.Parameter(torch.ones(1))

            def forward(self, x):
                self.scale.requires_grad_()
                loss = self.zero
                if self.training:
                    loss.requires_grad_()
                return x * self.scale, loss
    """)
    user = write(tmp_path / "user" / "model.py", """
        from torch import nn
        from vqlib import Quantizer


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.vq = Quantizer()

            def forward(self, x):
                return self.vq(x)
    """)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(11, "SFX304")], found
    assert "at vqlib/__init__.py:15" in found[0][2], found


def test_a_modules_own_dunder_globals_are_not_packages(tmp_path):
    """`__name__` is the module's own global (a str), not builtins' attribute of that name:
    `__name__.split(".")` is no call into a package called `__name__`."""
    user = write(tmp_path / "user" / "model.py", """
        import torch
        from torch import nn


        class Model(nn.Module):
            def forward(self, x):
                library = __name__.split(".")[0]
                return x * 2 if library else x
    """)
    assert flake8("--staticfx-notices", str(user), cwd=user.parent) == []


FLOW_LIBRARY = """
    import torch
    from torch import nn
    from torch.distributions import Transform, constraints


    class TransformModule(Transform, nn.Module):
        def __init__(self):
            super().__init__(cache_size=1)


    def _masked_identity(outputs, inputs, bound):
        outside = inputs.abs() > bound
        outputs[outside] = inputs[outside]
        return outputs


    class Clipped(TransformModule):
        domain = constraints.real
        codomain = constraints.real

        def __init__(self, bound=3.0):
            super().__init__()
            self.bound = bound
            self.scale = nn.Parameter(torch.ones(2))

        def _call(self, x):
            return x * self.scale

        def _inverse(self, y):
            return _masked_identity(y / self.scale, y, self.bound)

        def log_abs_det_jacobian(self, x, y):
            return self.scale.abs().log().expand_as(x)


    class Affine(Clipped):
        def _inverse(self, y):
            return y / self.scale
"""

FLOW_USER = """
    import torch
    from torch import nn
    from torch.distributions import Normal, TransformedDistribution
    from flowlib import Affine, Clipped


    class ClippedDensity(nn.Module):
        def __init__(self):
            super().__init__()
            self.transform = Clipped()

        def forward(self, x):
            base = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
            return TransformedDistribution(base, [self.transform]).log_prob(x)


    class AffineDensity(nn.Module):
        def __init__(self):
            super().__init__()
            self.transform = Affine()

        def forward(self, x):
            base = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
            return TransformedDistribution(base, [self.transform]).log_prob(x)
"""


def test_torch_distributions_call_a_library_transforms_inverse(tmp_path):
    """TransformedDistribution.log_prob is torch's: it calls each transform's `_inverse` (through
    `Transform.inv`), so a break there is reported at the user's log_prob call (pyro's
    Spline, the package oracle); a transform whose `_inverse` does not break leaves it clean."""
    site = tmp_path / "site-packages"
    write(site / "flowlib" / "__init__.py", "from .flows import Affine, Clipped\n")
    write(site / "flowlib" / "flows.py", FLOW_LIBRARY)
    user = write(tmp_path / "user" / "model.py", FLOW_USER)
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(14, "SFX401")], found
    assert "`inputs[outside]` in `_masked_identity` at flowlib/flows.py:13" in found[0][2]


def test_a_distribution_made_at_import_time_is_the_torch_class_it_wraps(tmp_path):
    """pyro.distributions.torch makes TransformedDistribution with `type(name, (torch class,
    mixin), {})` in a loop: no statement binds the name, so it is known as torch's
    (tables.RUNTIME_TORCH_SUBCLASSES) and its log_prob reaches the transforms."""
    site = tmp_path / "site-packages"
    write(site / "flowlib" / "__init__.py", "from .flows import Affine, Clipped\n")
    write(site / "flowlib" / "flows.py", FLOW_LIBRARY)
    write(site / "pyro" / "__init__.py", "")
    write(site / "pyro" / "distributions" / "__init__.py", "from .torch import TransformedDistribution\n")
    write(site / "pyro" / "distributions" / "torch.py", """
        import torch

        for _name, _Dist in torch.distributions.__dict__.items():
            if isinstance(_Dist, type) and issubclass(_Dist, torch.distributions.Distribution):
                locals()[_name] = type(_name, (_Dist,), {})
    """)
    user = write(tmp_path / "user" / "model.py", FLOW_USER.replace(
        "from torch.distributions import Normal, TransformedDistribution",
        "from torch.distributions import Normal\n    from pyro.distributions import TransformedDistribution"))
    found = flake8(f"--staticfx-library-path={site}", str(user), cwd=user.parent)
    assert [(line, code) for line, code, _ in found] == [(15, "SFX401")], found


def test_an_oversized_modules_statements_are_found_from_its_text(tmp_path):
    """The slice's statements are found by their lines at column 0: not inside a triple-quoted
    string, and an `else:` continues the `if` before it; each is where ast puts it."""
    import ast

    path = write(tmp_path / "big.py", textwrap.dedent('''
        """Notes.
        SCALE = 1 is a line of this docstring, not a statement.
        """
        import os

        if os.name == "nt":
            SCALE = 2
        else:
            SCALE = 3


        @staticmethod
        def scale(x):
            return x.max().item() * SCALE
    ''').lstrip("\n") + "\n".join(f"CONSTANT_{i} = {i}" for i in range(projects.MAX_PROJECT_MODULE_SIZE // 12)) + "\n")
    module = oversized.OversizedModule(str(path))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert [s.first for s in module.statements] == [getattr(n, "decorator_list", None) and n.decorator_list[0].lineno
                                                    or n.lineno for n in tree.body]
    sliced = module.function_slice("big", "scale")
    assert sliced is not None and set(sliced.node.locals) == {"os", "SCALE", "scale"}
    assert sliced.node.locals["scale"][0].body[0].lineno == 14  # its own line in the module
