"""Never run the user's code: linting a project whose every module has side effects on import.

The project's modules write marker files, open sockets, and call sys.exit / os._exit when
imported; its model file imports them, subclasses their classes and calls their functions
(the analysis follows all of that through the source). A directory on the linting process's
path shadows torch and numpy with modules that do the same, so importing torch would show
too. Linted through real flake8 in a subprocess and through the plugin in this process:
no marker appears, flake8 exits normally with the plugin's diagnostics, and no module of
the project gets into sys.modules. An installed library on the library search path
(--staticfx-library-path) does the same on import; calls into it are followed all the same.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.plugin import Checker
from flake8_staticfx.front.report import flake8_diagnostics

FORMAT = "--format=%(path)s|%(row)d|%(col)d|%(code)s|%(text)s"
PROJECT_MODULES = ("evilproj", "evillib")


def _side_effects(marker_dir: Path, name: str, exit_how: str | None = None) -> str:
    """Module-level code that leaves a trace of having run, then maybe ends the process."""
    marker = str(marker_dir / name)
    code = textwrap.dedent(f"""
        import os as _os, socket as _socket, sys as _sys
        with open({marker!r}, "w") as _f:
            _f.write("imported")
        try:
            _s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
            _s.bind(("127.0.0.1", 0))
            _s.listen(1)
            with open({marker + '.socket'!r}, "w") as _f:
                _f.write(str(_s.getsockname()))
        except OSError:
            pass
    """)
    if exit_how == "sys.exit":
        code += "_sys.exit(17)\n"
    elif exit_how == "os._exit":
        code += "_os._exit(18)\n"
    return code


def make_project(base: Path) -> tuple[Path, Path, Path]:
    """(project root, model file, marker directory); a `shadow` dir holds torch.py/numpy.py."""
    markers = base / "markers"
    markers.mkdir()
    root = base / "proj"
    package = root / "evilproj"
    package.mkdir(parents=True)
    files = {
        "__init__.py": _side_effects(markers, "init"),
        "layers.py": _side_effects(markers, "layers") + textwrap.dedent(f"""
            import torch
            import torch.nn as nn

            def _record(what):
                open({str(markers / 'layers-call')!r} + what, "w").close()
                return what

            def register(cls):
                _record("decorator")
                return cls

            @register
            class Registered(nn.Module):
                def forward(self, x):
                    return x

            class Meta(type(nn.Module)):
                def __new__(mcs, name, bases, ns):
                    _record("metaclass")
                    return super().__new__(mcs, name, bases, ns)

            class Block(nn.Module, metaclass=Meta):
                scale = _record("class-body")

                def __init__(self, dim=_record("default")):
                    super().__init__()
                    self.proj = nn.Linear(4, 4)

                def forward(self, x):
                    _record("forward")
                    if x.sum() > 0:
                        x = self.proj(x)
                    return x
        """),
        "util.py": _side_effects(markers, "util", "sys.exit") + textwrap.dedent(f"""
            import os

            def helper(x):
                os.system("touch " + {str(markers / 'system')!r})
                print("helper", x.shape)
                return x * 2
        """),
        "boom.py": _side_effects(markers, "boom", "os._exit") + textwrap.dedent("""
            def scale(x):
                return x.item() * 2
        """),
        "model.py": textwrap.dedent(f"""
            import torch
            import torch.nn as nn
            import numpy as np

            import evilproj.boom
            from evilproj import util
            from evilproj.layers import Block
            from .util import helper
            from . import boom as kaboom

            exec("open({str(markers / 'exec')!r}, 'w').close()")
            __import__("evilproj.util")


            class Model(Block):
                def __init__(self):
                    super().__init__()
                    self.extra = Block()

                def forward(self, x):
                    x = super().forward(x)
                    x = self.extra(x)
                    x = helper(x) + util.helper(x)
                    s = evilproj.boom.scale(x) + kaboom.scale(x)
                    eval("open({str(markers / 'eval')!r}, 'w').close()")
                    return x * s


            @torch.compile
            def step(model, x):
                return model(x).sum().item()
        """),
    }
    for name, source in files.items():
        (package / name).write_text(source, encoding="utf-8")
    shadow = base / "shadow"
    shadow.mkdir()
    (shadow / "torch.py").write_text(_side_effects(markers, "shadow-torch", "os._exit"), encoding="utf-8")
    (shadow / "numpy.py").write_text(_side_effects(markers, "shadow-numpy", "os._exit"), encoding="utf-8")
    (root / "setup.py").write_text(_side_effects(markers, "setup", "sys.exit"), encoding="utf-8")
    (root / "conftest.py").write_text(_side_effects(markers, "conftest", "sys.exit"), encoding="utf-8")
    return root, package / "model.py", markers


def make_library(base: Path, markers: Path) -> tuple[Path, Path]:
    """(site-packages holding `evillib`, a user file calling it): the library's modules leave
    markers and open sockets on import, and its function breaks on `.item()`."""
    site = base / "site-packages"
    package = site / "evillib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_side_effects(markers, "lib-init") + "from .ops import Norm, scale\n",
                                         encoding="utf-8")
    (package / "ops.py").write_text(_side_effects(markers, "lib-ops", "os._exit") + textwrap.dedent("""
        import torch.nn as nn

        def scale(x):
            return x / x.sum().item()

        class Norm(nn.Module):
            def forward(self, x):
                print(x)
                return x
    """), encoding="utf-8")
    user = base / "user"
    user.mkdir()
    (user / "app.py").write_text(textwrap.dedent("""
        import torch.nn as nn
        import evillib
        from evillib.ops import scale


        class App(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = evillib.Norm()

            def forward(self, x):
                return self.norm(scale(x))
    """), encoding="utf-8")
    return site, user / "app.py"


def traces(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())


@pytest.fixture()
def project(tmp_path):
    return make_project(tmp_path)


def test_flake8_subprocess_runs_nothing(project, tmp_path):
    root, model, markers = project
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    # cwd (first on sys.path under `-m`) holds the torch.py and numpy.py shadows.
    for target in (str(model), str(root)):
        result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", FORMAT, target],
                                cwd=tmp_path / "shadow", env=env, capture_output=True, text=True, timeout=300)
        assert traces(markers) == [], (traces(markers), result.stdout, result.stderr)
        assert result.returncode in (0, 1), (result.returncode, result.stderr)
        assert "Traceback" not in result.stderr, result.stderr
        found = [line.split("|") for line in result.stdout.splitlines()]
        assert all(code.startswith("SFX") for _, _, _, code, _ in found), result.stdout
        # The plugin did analyse the model: through the imported helpers and base class.
        model_codes = {code for path, _, _, code, _ in found if path.endswith("model.py")}
        assert {"SFX101", "SFX102", "SFX201"} <= model_codes, result.stdout
        assert result.returncode == 1


def test_flake8_subprocess_with_notices_and_jobs(project, tmp_path):
    root, model, markers = project
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", "--staticfx-notices",
                             "--jobs=2", FORMAT, str(root)],
                            cwd=tmp_path / "shadow", capture_output=True, text=True, timeout=300)
    assert traces(markers) == [], traces(markers)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr


def test_in_process_runs_nothing(project, monkeypatch):
    root, model, markers = project
    # The project is importable here, as it would be in an editor's process: nothing may use that.
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    audit = _AuditLog(root, markers.parent)
    with audit:
        with tokenize.open(model) as handle:
            lines = handle.readlines()
        source = "".join(lines)
        tree = ast.parse(source)
        options = Options(report_notices=True)
        analysis = analyze(source, str(model), tree, options)
        found = list(flake8_diagnostics(analysis, True))
        Checker.options = options
        try:
            via_checker = list(Checker(tree, str(model), lines).run())
        finally:
            Checker.options = Options()
        # every module of the project, as flake8 would lint the whole tree
        for path in sorted(model.parent.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            list(flake8_diagnostics(analyze(text, str(path), ast.parse(text), options), True))
    added = set(sys.modules) - before
    assert not [m for m in added if m.split(".")[0] in PROJECT_MODULES], added
    assert not [m for m in added if m.split(".")[0] in ("torch", "numpy")], added
    assert traces(markers) == [], traces(markers)
    assert audit.events == [], audit.events
    assert {"SFX101", "SFX102", "SFX201"} <= {message.split()[0] for _, _, message in found}, found
    assert len(via_checker) == len(found)
    assert analysis.graphs, analysis.notices


def test_library_following_runs_nothing(project, tmp_path):
    _, _, markers = project
    site, app = make_library(tmp_path, markers)
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", FORMAT,
                             f"--staticfx-library-path={site}", str(app)],
                            cwd=tmp_path / "shadow", capture_output=True, text=True, timeout=300)
    assert traces(markers) == [], traces(markers)
    assert "Traceback" not in result.stderr, result.stderr
    found = sorted((code, int(row), text) for _, row, _, code, text in (line.split("|") for line in result.stdout.splitlines()))
    assert [(code, row) for code, row, _ in found] == [("SFX102", 13), ("SFX201", 13)], result.stdout
    ops = (site / "evillib" / "ops.py").read_text(encoding="utf-8").splitlines()
    item_line, print_line = (1 + next(i for i, text in enumerate(ops) if what in text) for what in (".item()", "print(x)"))
    assert f"at evillib/ops.py:{item_line}" in found[0][2] and f"at evillib/ops.py:{print_line}" in found[1][2], found

    before = set(sys.modules)
    with _AuditLog(site, tmp_path) as audit:
        source = app.read_text(encoding="utf-8")
        analysis = analyze(source, str(app), ast.parse(source), Options(library_path=(str(site),)))
        in_process = sorted(message.split()[0] for _, _, message in flake8_diagnostics(analysis))
    assert in_process == ["SFX102", "SFX201"], in_process
    assert not [m for m in set(sys.modules) - before if m.split(".")[0] == "evillib"]
    assert traces(markers) == [] and audit.events == [], (traces(markers), audit.events)


def test_the_library_traps_are_live(project, tmp_path):
    _, _, markers = project
    site, _ = make_library(tmp_path, markers)
    result = subprocess.run([sys.executable, "-c", "import evillib"], env=dict(os.environ, PYTHONPATH=str(site)),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 18, result.stderr
    assert {"lib-init", "lib-ops"} <= set(traces(markers)), traces(markers)


class _AuditLog:
    """Records, while active, what running user code would do: import a project module,
    exec/compile code of the project, spawn a process, touch the network, write a file."""

    _installed: list = []
    _active: list[_AuditLog] = []

    def __init__(self, root: Path, base: Path):
        self.root = str(root)
        self.base = str(base)
        self.events: list[tuple] = []
        if not _AuditLog._installed:
            sys.addaudithook(_AuditLog._hook)  # cannot be removed: inert while no log is active
            _AuditLog._installed.append(True)

    def __enter__(self):
        _AuditLog._active.append(self)
        return self

    def __exit__(self, *exc):
        _AuditLog._active.remove(self)

    @staticmethod
    def _hook(event: str, args: tuple) -> None:
        if not _AuditLog._active:
            return
        log = _AuditLog._active[-1]
        if event == "import" and args and str(args[0]).split(".")[0] in (*PROJECT_MODULES, "torch", "numpy"):
            log.events.append((event, args[0]))
        elif event == "exec" and args:
            filename = getattr(args[0], "co_filename", "")
            if filename.startswith(log.base) or filename.startswith("<"):
                log.events.append((event, filename))
        elif event in ("os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.fork",
                       "socket.bind", "socket.connect", "os.kill", "sys.exit"):
            log.events.append((event, repr(args)[:200]))
        elif event == "open" and len(args) >= 2 and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
            log.events.append((event, str(args[0])))


@pytest.mark.parametrize("module, code", [("evilproj", 0), ("evilproj.layers", 18), ("evilproj.util", 17),
                                          ("evilproj.boom", 18),
                                          ("torch", 18)])
def test_the_traps_are_live(project, tmp_path, module, code):
    """Importing any of it does leave a trace (or end the process): the tests above could fail."""
    root, model, markers = project
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "shadow"), str(root)]))
    result = subprocess.run([sys.executable, "-c", f"import {module}"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == code, result.stderr
    assert traces(markers), "importing left no marker"
