"""The linter needs no torch: the same diagnostics in an environment without it.

A virtual environment with only flake8, astroid and this project (installed with --no-deps)
is made once and kept in pytest's cache directory (.pytest_cache/d/no-torch-venv); flake8 runs
there and in the current environment on the same files, and the outputs must be identical.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import progress
import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=900, **kwargs)


def _venv_key() -> str:
    parts = [sys.version, metadata.version("flake8"), metadata.version("astroid")]
    for name in ("setup.cfg", "pyproject.toml"):
        parts.append((ROOT / name).read_text(encoding="utf-8"))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


@pytest.fixture(scope="session")
def no_torch_python(request, tmp_path_factory) -> Path:
    """The python of a venv with flake8, astroid and this project, and no torch."""
    cache = getattr(request.config, "cache", None)  # None under -p no:cacheprovider
    base = Path(cache.mkdir("no-torch-venv")) if cache is not None else tmp_path_factory.mktemp("no-torch-venv")
    venv = base / _venv_key()
    python = venv / "bin" / "python"
    ready = venv / ".ready"
    if not ready.exists():
        progress.say(request.config, f"test_no_torch: building a virtual environment without torch in {venv} "
                                     "(once; about a minute)")
        shutil.rmtree(venv, ignore_errors=True)
        for stale in base.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        # The venv is made from the interpreter running the tests, without its site-packages.
        created = _run([sys.executable, "-m", "venv", str(venv)])
        assert created.returncode == 0, created.stderr
        pip = [str(python), "-m", "pip", "install", "--quiet"]
        steps = [
            [*pip, f"flake8=={metadata.version('flake8')}", f"astroid=={metadata.version('astroid')}",
             f"libcst=={metadata.version('libcst')}"],
            [*pip, "--no-deps", "-e", str(ROOT)],
        ]
        for step in steps:
            result = _run(step)
            assert result.returncode == 0, f"{step}\n{result.stdout}\n{result.stderr}"
        ready.write_text("ok\n")
    probe = _run([str(python), "-c", "import torch"])
    assert probe.returncode != 0 and "No module named 'torch'" in probe.stderr
    return python


def model_package(tmp_path: Path) -> Path:
    """A small project: models across files, so imports between them are resolved too."""
    pkg = tmp_path / "proj"
    files = {
        "__init__.py": "",
        "ops.py": """
            import logging
            import math

            logger = logging.getLogger(__name__)


            def peak(x):
                return x.abs().max().item()


            def report(x):
                logger.info("shape %s", x.shape)
                return math.sqrt(x.sum())
        """,
        "blocks.py": """
            import torch
            import torch.nn as nn

            from .ops import peak


            class Block(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.fc = nn.Linear(dim, dim)

                def forward(self, x):
                    h = self.fc(x)
                    if h.mean() > 0:
                        h = h / peak(h)
                    return torch.nonzero(h)
        """,
        "model.py": """
            import torch.nn as nn

            from .blocks import Block
            from .ops import report


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.ModuleList([Block(8) for _ in range(2)])

                def forward(self, x):
                    for block in self.blocks:
                        x = block(x)
                    print(report(x))
                    return x.tolist()
        """,
    }
    for name, source in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return pkg


def flake8_output(python: Path | str, *paths: str, cwd: Path, extra: tuple[str, ...] = ()) -> str:
    result = _run([str(python), "-m", "flake8", "--select=SFX", "--isolated", *extra, *paths], cwd=cwd)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def test_same_diagnostics_without_torch(no_torch_python, tmp_path):
    pytest.importorskip("torch")  # the comparison needs the torch environment on this side
    model_package(tmp_path)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    paths = ["examples", "proj", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))]
    for test_file in paths[2:]:
        shutil.copy(ROOT / test_file, tmp_path / Path(test_file).name)
    paths = [*paths[:2], *(Path(p).name for p in paths[2:])]
    for extra in ((), ("--staticfx-fullgraph",)):
        with_torch = flake8_output(sys.executable, *paths, cwd=tmp_path, extra=extra)
        without_torch = flake8_output(no_torch_python, *paths, cwd=tmp_path, extra=extra)
        assert with_torch == without_torch
        assert "examples/conditional_net.py:14:12: SFX101" in with_torch
        assert "proj/model.py" in with_torch


def test_graph_cli_without_torch(no_torch_python):
    for fmt in ("text", "json", "dot"):
        command = ["-m", "flake8_staticfx", "graph", "examples/conditional_net.py", "--format", fmt]
        here = _run([sys.executable, *command], cwd=ROOT)
        there = _run([str(no_torch_python), *command], cwd=ROOT)
        assert here.returncode == there.returncode == 0, there.stderr
        assert here.stdout == there.stdout


def test_linting_does_not_import_torch(tmp_path):
    """Even where torch is installed, the plugin never imports it (nor numpy)."""
    script = textwrap.dedent(f"""
        import sys
        from flake8.main.cli import main
        try:
            main(["--select=SFX", "--isolated", "--jobs=1", {str(ROOT / "examples")!r}])
        except SystemExit:
            pass
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy")))
    """)
    result = _run([sys.executable, "-c", script], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
