"""`flake8-staticfx check`, run through the installed console script, held to flake8's answers."""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = shutil.which("flake8-staticfx", path=os.path.dirname(sys.executable))

pytestmark = pytest.mark.skipif(SCRIPT is None, reason="the flake8-staticfx console script is not installed "
                                                       "(pip install -e .)")

BREAK_MODEL = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)
        if x.sum() > 0:
            return x
        return -x
"""


def check(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SCRIPT, "check", *args], capture_output=True, text=True, cwd=cwd, timeout=300, env=env)


def flake8(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def rows(text: str) -> list[tuple[str, int, int, str, str]]:
    """(path, line, col, code, message) of flake8's default format."""
    found = []
    for line in text.splitlines():
        path, lineno, col, rest = line.split(":", 3)
        code, message = rest.strip().split(" ", 1)
        found.append((path, int(lineno), int(col), code, message))
    return found


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# -- the same answer as flake8 ---------------------------------------------------------------

def test_check_agrees_with_flake8_line_by_line_on_the_cases():
    expected = flake8("--isolated", "--select=SFX,E999", "tests/cases")
    got = check("--isolated", "tests/cases")
    assert expected.returncode == got.returncode == 1, got.stderr
    assert got.stderr == ""
    assert len(rows(expected.stdout)) > 50
    assert rows(got.stdout) == rows(expected.stdout)  # same findings, same messages, same order


def test_text_output_is_flake8s_on_the_examples_with_the_repository_config():
    # tox.ini's [flake8] section (every staticfx option at its default) is read by both
    expected = flake8("--select=SFX", "examples/")
    got = check("examples/")
    assert got.returncode == expected.returncode == 1
    assert got.stdout == expected.stdout


def test_module_entry_point_runs_the_same_check():
    by_module = subprocess.run([sys.executable, "-m", "flake8_staticfx", "check", "examples/"],
                               capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert by_module.returncode == 1
    assert by_module.stdout == check("examples/").stdout


def test_noqa_like_flake8(tmp_path):
    write(tmp_path / "model.py", '''\
        import torch
        from torch import nn


        class Net(nn.Module):
            def forward(self, x):
                a = x.sum().item()  # noqa
                b = x.max().item()  # noqa: SFX1
                c = x.min().item()  # noqa: SFX101
                d = x.mean().item()  # NOQA:SFX102,SFX202
                if x.sum() > 0:  # noqa: E501
                    pass
                e = x.amax().item(); f = """
                spans # noqa
                """
                return a + b + c + d + e
        ''')
    expected = flake8("--isolated", "--select=SFX", "model.py", cwd=tmp_path)
    got = check("--isolated", "model.py", cwd=tmp_path)
    assert {row[1] for row in rows(got.stdout)} == {9, 11}  # c (other code named) and the if (E501)
    assert got.stdout == expected.stdout
    assert {row[1] for row in rows(check("--isolated", "--disable-noqa", "model.py", cwd=tmp_path).stdout)} \
        == {7, 8, 9, 10, 11, 13}


def test_file_level_noqa_skips_the_file(tmp_path):
    write(tmp_path / "model.py", "# flake8: noqa\n" + BREAK_MODEL)
    assert flake8("--isolated", "--select=SFX", "model.py", cwd=tmp_path).stdout == ""
    result = check("--isolated", "model.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


def test_select_and_ignore_match_flake8s_decision():
    """selection.Selection against flake8's own DecisionEngine, for every combination tried."""
    from flake8.style_guide import Decision, DecisionEngine

    from flake8_staticfx.front.selection import Selection

    lists = [None, [], ["SFX"], ["SFX1"], ["SFX101"], ["E"], ["SFX", "E"], ["E9", "SFX2"]]
    extends = [[], ["SFX10"], ["SFX9"], ["E999"]]
    codes = ["SFX101", "SFX102", "SFX202", "SFX900", "E999"]
    compared = 0
    combinations = itertools.product(lists, lists, extends, extends, codes)
    for select, ignore, extend_select, extend_ignore, code in combinations:
        options = argparse.Namespace(select=select, ignore=ignore, extend_select=extend_select,
                                     extend_ignore=extend_ignore, extended_default_ignore=["SFX900"],
                                     extended_default_select=["SFX", "E", "W", "F", "C90"])
        expected = DecisionEngine(options).decision_for(code) is Decision.Selected
        assert Selection(select, ignore, extend_select, extend_ignore).reports(code) == expected, \
            (select, ignore, extend_select, extend_ignore, code)
        compared += 1
    assert compared == 8 * 8 * 4 * 4 * 5


def test_select_ignore_and_exclude_from_the_config_and_the_command_line(tmp_path):
    write(tmp_path / "model.py", BREAK_MODEL)
    write(tmp_path / "legacy" / "model.py", BREAK_MODEL)
    write(tmp_path / "setup.cfg", "[flake8]\nextend-exclude = legacy\n")
    assert [r[0] for r in rows(check(".", cwd=tmp_path).stdout)] == ["./model.py"]
    assert [r[0] for r in rows(flake8("--select=SFX", ".", cwd=tmp_path).stdout)] == ["./model.py"]
    write(tmp_path / "setup.cfg", "[flake8]\nextend-ignore = SFX1\n")
    assert check(".", cwd=tmp_path).returncode == 0
    assert check("--extend-ignore=E501", ".", cwd=tmp_path).returncode == 1  # the flag replaces the config's
    write(tmp_path / "setup.cfg", "[flake8]\nselect = E,W,F\n")  # a project that never selected SFX
    assert "SFX" not in flake8(".", cwd=tmp_path).stdout
    assert (check(".", cwd=tmp_path).returncode, check(".", cwd=tmp_path).stdout) == (0, "")


# -- configuration: one source, flake8's ----------------------------------------------------

SETTING_MODEL = """\
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def forward(self, x):
        scale = x.max().item()
        logger.debug("scale %s", scale)
        return x * scale
"""


def codes(result: subprocess.CompletedProcess) -> list[str]:
    return [row[3] for row in rows(result.stdout)]


@pytest.mark.parametrize("config_file", ["setup.cfg", "tox.ini", ".flake8"])
def test_options_from_each_config_file(tmp_path, config_file):
    write(tmp_path / "model.py", SETTING_MODEL)
    assert codes(check("model.py", cwd=tmp_path)) == ["SFX102", "SFX202"]
    write(tmp_path / config_file, """\
        [flake8]
        staticfx-capture-scalar-outputs = true
        staticfx-ignore-logging-functions =
            logging.Logger.debug,
            logging.Logger.info
        """)
    assert check("model.py", cwd=tmp_path).returncode == 0
    assert flake8("--select=SFX", "model.py", cwd=tmp_path).stdout == ""
    assert codes(check("--isolated", "model.py", cwd=tmp_path)) == ["SFX102", "SFX202"]
    # from a subdirectory, found upwards, as flake8 finds it
    (tmp_path / "sub").mkdir()
    assert check("../model.py", cwd=tmp_path / "sub").returncode == 0


def test_config_precedence_is_flake8s(tmp_path):
    """setup.cfg before tox.ini before .flake8; a file without a [flake8] section does not count."""
    write(tmp_path / "model.py", SETTING_MODEL)
    write(tmp_path / "tox.ini", "[flake8]\nstaticfx-capture-scalar-outputs = true\n")
    write(tmp_path / ".flake8", "[flake8]\nstaticfx-ignore-logging-functions = logging.Logger.debug\n")
    write(tmp_path / "setup.cfg", "[metadata]\nname = x\n")
    assert codes(check("model.py", cwd=tmp_path)) == ["SFX202"]
    assert codes(flake8("--select=SFX", "model.py", cwd=tmp_path)) == ["SFX202"]
    write(tmp_path / "setup.cfg", "[flake8]\nmax-line-length = 100\n")
    assert codes(check("model.py", cwd=tmp_path)) == ["SFX102", "SFX202"]
    assert codes(flake8("--select=SFX", "model.py", cwd=tmp_path)) == ["SFX102", "SFX202"]
    assert codes(check("--config", ".flake8", "model.py", cwd=tmp_path)) == ["SFX102"]


def test_command_line_overrides_the_config(tmp_path):
    write(tmp_path / "model.py", SETTING_MODEL)
    write(tmp_path / "setup.cfg", "[flake8]\nstaticfx-ignore-logging-functions = logging.Logger.info\n"
                                  "staticfx-max-inline-depth = 0\n")
    assert codes(check("model.py", cwd=tmp_path)) == ["SFX102", "SFX202"]
    assert codes(check("--staticfx-ignore-logging-functions=logging.Logger.debug", "model.py", cwd=tmp_path)) \
        == ["SFX102"]
    assert codes(check("--staticfx-fullgraph", "model.py", cwd=tmp_path)) == ["SFX202"]


def test_extend_module_bases(tmp_path):
    body = "\n    def forward(self, x):\n        return x.sum().item()\n"
    write(tmp_path / "model.py", f"from lightning import LightningModule\nfrom mylib import TrainableBase\n\n\n"
                                 f"class Net(LightningModule):{body}\n\nclass Mine(TrainableBase):{body}")

    def lines(*args):
        return [row[1] for row in rows(check("--isolated", *args, "model.py", cwd=tmp_path).stdout)]

    assert lines() == [7]
    assert lines("--staticfx-module-bases=TrainableBase") == [12]
    assert lines("--staticfx-extend-module-bases=TrainableBase") == [7, 12]
    write(tmp_path / ".flake8", "[flake8]\nstaticfx-extend-module-bases = mylib.TrainableBase\n")
    assert [row[1] for row in rows(check("model.py", cwd=tmp_path).stdout)] == [7, 12]
    assert [row[1] for row in rows(flake8("--select=SFX", "model.py", cwd=tmp_path).stdout)] == [7, 12]


# -- formats --------------------------------------------------------------------------------

def test_json_has_one_object_per_finding():
    text = rows(check("examples/").stdout)
    result = check("--format", "json", "examples/")
    assert result.returncode == 1
    found = json.loads(result.stdout)
    assert [(f["path"], f["line"], f["col"], f["code"], f["message"]) for f in found] == text
    by_code = {f["code"]: f for f in found}
    assert by_code["SFX101"]["gb_ids"] == ["GB0170"]
    assert by_code["SFX101"]["url"] == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html"
    assert all(set(f) == {"path", "line", "col", "code", "message", "gb_ids", "url", "torch", "condition", "waits_on"}
               for f in found)
    assert all(f["gb_ids"] and f"({f['gb_ids'][0]}" in f["message"] for f in found)
    clean = check("--format", "json", "examples/simple_net.py")
    assert (clean.returncode, json.loads(clean.stdout)) == (0, [])


def test_sarif_2_1_0_required_fields():
    text = rows(check("examples/").stdout)
    result = check("--format", "sarif", "examples/")
    assert result.returncode == 1
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "flake8-staticfx" and driver["version"]
    assert "informationUri" not in driver  # optional in SARIF; the package has no page (not on PyPI)
    rules = driver["rules"]
    for rule in rules:
        assert rule["id"] and rule["name"] and rule["helpUri"].startswith("https://")
        assert rule["shortDescription"]["text"]
    from flake8_staticfx.rules import RULES

    assert set(RULES) <= {rule["id"] for rule in rules}
    got = []
    for item in run["results"]:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
        assert item["level"] == "warning"
        (location,) = item["locations"]
        physical = location["physicalLocation"]
        region = physical["region"]
        got.append((physical["artifactLocation"]["uri"], region["startLine"], region["startColumn"],
                    item["ruleId"], item["message"]["text"]))
    assert got == text  # uris relative, forward slashes: examples/x.py, as given


def test_sarif_of_a_clean_file_has_no_results():
    result = check("--format", "sarif", "examples/simple_net.py")
    assert result.returncode == 0
    assert json.loads(result.stdout)["runs"][0]["results"] == []


def test_github_annotations(tmp_path):
    write(tmp_path / "odd,name:model.py", BREAK_MODEL)
    write(tmp_path / "broken.py", "def f(:\n")
    result = check("--isolated", "--format", "github", ".", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    # flake8 reports this syntax error at 1:8 too
    assert lines[0] == "::error file=broken.py,line=1,col=8,title=E999::SyntaxError: invalid syntax"
    (finding,) = json.loads(check("--isolated", "--format", "json", "odd,name:model.py", cwd=tmp_path).stdout)
    message = finding["message"]
    assert lines[1] == f"::warning file=odd%2Cname%3Amodel.py,line=12,col=12,title=SFX101::{message}"
    assert len(lines) == 2


def test_workflow_command_escaping():
    from flake8_staticfx.front.formats import escape_data, escape_property

    assert escape_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_statistics_like_flake8():
    expected = flake8("--select=SFX", "--statistics", "examples/")
    result = check("--statistics", "examples/")
    assert result.stdout == expected.stdout
    assert "1     SFX101 " in result.stdout
    # machine formats keep stdout parseable: the counts go to stderr
    as_json = check("--statistics", "--format", "json", "examples/")
    assert json.loads(as_json.stdout) and "1     SFX101 " in as_json.stderr


# -- exit status ----------------------------------------------------------------------------

def test_exit_0_when_clean():
    result = check("examples/simple_net.py", "examples/resnet_block.py")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_exit_1_on_findings():
    assert check("examples/conditional_net.py").returncode == 1


def test_an_unparseable_file_is_a_finding(tmp_path):
    write(tmp_path / "broken.py", "import torch\nclass A(torch.nn.Module):\n    def forward(self, x)\n")
    result = check("broken.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == flake8("--select=E999", "broken.py", cwd=tmp_path).stdout \
        == "broken.py:3:26: E999 SyntaxError: expected ':'\n"
    # whatever select says: a file that cannot be linted must not pass
    assert check("--select=SFX", "broken.py", cwd=tmp_path).returncode == 1


def test_exit_2_on_a_path_that_does_not_exist():
    result = check("examples/", "no/such/file.py")
    assert result.returncode == 2
    assert "no/such/file.py" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("args", [["--format", "xml", "examples/"], ["--no-such-flag"],
                                  ["--staticfx-max-inline-depth", "deep", "examples/"]])
def test_exit_2_on_usage_errors(args):
    result = check(*args)
    assert result.returncode == 2 and "usage:" in result.stderr


def test_exit_2_on_a_bad_config_value(tmp_path):
    write(tmp_path / "model.py", BREAK_MODEL)
    write(tmp_path / "tox.ini", "[flake8]\nstaticfx-fullgraph = maybe\n")
    result = check("model.py", cwd=tmp_path)
    assert result.returncode == 2 and "staticfx-fullgraph" in result.stderr
    assert check("--config", "missing.cfg", "model.py", cwd=tmp_path).returncode == 2


# -- --with-importers -----------------------------------------------------------------------

HELPER_CLEAN = "import torch\n\n\ndef scale(x):\n    return x * 2\n"
HELPER_BROKEN = "import torch\n\n\ndef scale(x):\n    return x * x.max().item()\n"


def helper_project(root: Path) -> Path:
    """pkg/model.py calls pkg/helpers.py's scale(); pkg/top.py uses model.Net; other.py neither."""
    write(root / "pkg" / "__init__.py", "")
    write(root / "pkg" / "helpers.py", HELPER_CLEAN)
    write(root / "pkg" / "model.py", """\
        import torch
        from torch import nn

        from .helpers import scale


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return scale(self.fc(x))
        """)
    write(root / "pkg" / "top.py", """\
        import torch
        from torch import nn

        from pkg.model import Net


        class Top(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = Net()

            def forward(self, x):
                return self.net(x) + 1
        """)
    write(root / "pkg" / "other.py", "import torch\n\n\ndef unrelated(x):\n    return x.sum().item()\n")
    return root


def test_with_importers_catches_a_break_added_to_a_helper(tmp_path):
    helper_project(tmp_path)
    assert check("--isolated", ".", cwd=tmp_path).returncode == 0
    (tmp_path / "pkg" / "helpers.py").write_text(HELPER_BROKEN)
    # Alone, the helper's break is found at its own line, through model.py's forward (reach.py).
    alone = check("--isolated", "pkg/helpers.py", cwd=tmp_path)
    assert [(path, line, code) for path, line, _, code, _ in rows(alone.stdout)] == [("pkg/helpers.py", 5, "SFX102")]
    result = check("--isolated", "--with-importers", "pkg/helpers.py", cwd=tmp_path)
    assert result.returncode == 1
    found = rows(result.stdout)
    # model.py imports the helper; top.py reaches it through model.py (transitive)
    assert [(path, line, code) for path, line, _, code, _ in found] == [
        ("pkg/helpers.py", 5, "SFX102"), ("pkg/model.py", 13, "SFX102"), ("pkg/top.py", 13, "SFX102")]
    assert "helpers.py:5" in found[1][4]
    # the same findings as flake8 over the whole project
    assert {row[1:] for row in found} == {row[1:] for row in rows(flake8("--isolated", "--select=SFX", ".",
                                                                         cwd=tmp_path).stdout)}


def test_importers_index(tmp_path):
    from flake8_staticfx.discover.importers import ProjectIndex

    helper_project(tmp_path)
    write(tmp_path / "pkg" / "sub" / "__init__.py", "from .. import helpers as h\n")
    write(tmp_path / "notapkg" / "script.py", "from pkg import helpers\n")  # its own project root
    write(tmp_path / "pkg" / "lazy.py", "def f():\n    try: from pkg.helpers import scale\n    except: pass\n")
    write(tmp_path / "pkg" / "doc.py", '"""Notes.\n\nfrom the helpers (see below\n"""\nimport os\n')
    index = ProjectIndex(str(tmp_path))
    assert "notapkg" not in " ".join(index.files)
    found = index.importers([str(tmp_path / "pkg" / "helpers.py")])
    assert sorted(Path(p).relative_to(tmp_path).as_posix() for p in found) == [
        "pkg/lazy.py", "pkg/model.py", "pkg/sub/__init__.py", "pkg/top.py"]


def test_importers_chain_goes_on_through_an_oversized_module(tmp_path):
    """The analysis follows the top-level functions of a module over MAX_PROJECT_MODULE_SIZE
    (in a slice of it), so a file importing one may reach the helper through it."""
    from flake8_staticfx.discover.projects import MAX_PROJECT_MODULE_SIZE
    from flake8_staticfx.discover.importers import ProjectIndex

    helper_project(tmp_path)
    model = tmp_path / "pkg" / "model.py"
    model.write_text(model.read_text() + "#" * MAX_PROJECT_MODULE_SIZE + "\n")
    found = ProjectIndex(str(tmp_path)).importers([str(tmp_path / "pkg" / "helpers.py")])
    assert sorted(Path(p).name for p in found) == ["model.py", "top.py"]


def test_import_statements_find_what_a_full_parse_finds():
    """Only import statements are parsed; on this repository's files that finds every import."""
    import ast

    from flake8_staticfx.discover.importers import file_imports, imported_modules, import_statements

    compared = 0
    for path in sorted(ROOT.glob("**/*.py")):
        if any(part.startswith(".") for part in path.relative_to(ROOT).parts):
            continue  # .venv, .pytest_cache, an oracle's venv: not this repository's files
        source = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        expected = imported_modules(tree, "pkg.mod", False)
        assert expected <= file_imports(source, "pkg.mod", False), path
        compared += 1
    assert compared > 150
    assert import_statements("x = 1; import os\n") is None  # not at a line start: the file is parsed whole
    statements = import_statements("from a import (\n    b,\n    c)\nimport d\n")
    assert statements == ["from a import (\n    b,\n    c)", "import d"]
    assert imported_modules(ast.parse("from . import a\nfrom ..b import c\nimport d.e"), "p.q.m", False) \
        == {"p", "p.q", "p.q.a", "p.b", "p.b.c", "d", "d.e"}  # importing p.b runs p/__init__.py


def test_pre_commit_hooks_for_check(tmp_path):
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["flake8-staticfx-check"]["entry"] == "flake8-staticfx check"
    importers = hooks["flake8-staticfx-importers"]
    assert importers["entry"] == "flake8-staticfx check --with-importers"
    for hook in (hooks["flake8-staticfx-check"], importers):
        assert hook["language"] == "python" and hook["types"] == ["python"]
        assert hook["require_serial"] is True  # one process sees every changed file and its importers
    # the hook's entry, as pre-commit runs it on a commit that changes only the helper
    helper_project(tmp_path)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPER_BROKEN)
    argv = shlex.split(importers["entry"])
    assert argv[0] == "flake8-staticfx"
    result = subprocess.run([SCRIPT, *argv[1:], "pkg/helpers.py"], capture_output=True, text=True, cwd=tmp_path,
                            timeout=120)
    assert result.returncode == 1 and "pkg/model.py:13:16: SFX102" in result.stdout
    plain = subprocess.run([SCRIPT, *shlex.split(hooks["flake8-staticfx-check"]["entry"])[1:], "pkg/helpers.py"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    # the helper alone: its break at its own line, through model.py's forward (reach.py)
    assert plain.returncode == 1 and "pkg/helpers.py:5:" in plain.stdout


# -- progress -------------------------------------------------------------------------------

def test_progress_line_only_on_a_terminal():
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([SCRIPT, "check", "--isolated", "tests/cases"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=follower, timeout=300)
        os.close(follower)
        follower = None
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
        if follower is not None:
            os.close(follower)
    assert proc.returncode == 1
    count = len(list((ROOT / "tests" / "cases").glob("*.py")))
    assert f"/{count}] tests/cases/".encode() in shown
    assert shown.endswith(b"\r\x1b[K")  # the line is cleared at the end
    assert rows(proc.stdout.decode())  # stdout keeps only the findings
    piped = check("--isolated", "tests/cases")
    assert piped.stderr == ""


# -- the command table ----------------------------------------------------------------------

def test_commands_table_skips_modules_that_are_not_installed(monkeypatch):
    from flake8_staticfx.front import cli

    monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS, cli.Command("later", "flake8_staticfx.not_yet", "soon")))
    parser = cli.build_parser()
    choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert {"check", "graph", "report"} <= set(choices) and "later" not in choices


def test_console_script_lists_its_commands():
    result = subprocess.run([SCRIPT, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "check" in result.stdout and "graph" in result.stdout and "report" in result.stdout


# -- README ---------------------------------------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")  # the commands' reference


def section(title: str, text: str = README) -> str:
    return text.split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]


def test_docs_document_every_check_flag_and_format():
    result = subprocess.run([SCRIPT, "check", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    import re

    flags = set(re.findall(r"--[a-z][a-z-]+", result.stdout)) - {"--help"}
    text = section("check", COMMANDS)
    staticfx = {flag for flag in flags if flag.startswith("--staticfx-")}
    assert staticfx and staticfx <= set(re.findall(r"--staticfx-[a-z-]+", section("Configuration")))
    assert flags - staticfx <= set(re.findall(r"--[a-z][a-z-]+", text))
    formats = set(re.search(r"--format \{([a-z,]+)\}", result.stdout)[1].split(","))
    assert formats == set(re.search(r"--format ([a-z|]+)", text)[1].split("|")) == {"text", "json", "sarif", "github"}
    output_formats = set(re.search(r"--output-format \{([a-z,]+)\}", result.stdout)[1].split(","))
    assert output_formats == set(re.search(r"--output-format ([a-z|]+)", text)[1].split("|")) \
        == {"full", "concise", "json", "sarif", "github"}
    hooks = set(re.findall(r"`(flake8-staticfx[a-z-]*)`", section("pre-commit")))
    manifest = set(re.findall(r"^- id: (\S+)", (ROOT / ".pre-commit-hooks.yaml").read_text(), flags=re.M))
    assert hooks == manifest  # README names every hook


def test_readme_ci_commands_are_check_commands():
    text = section("CI: annotations and SARIF")
    assert "flake8-staticfx check --output-format github ." in text
    assert "flake8-staticfx check --output-format sarif . > staticfx.sarif" in text
    assert '"flake8.importStrategy": "fromEnvironment"' in section("Editors")


def test_per_file_ignores_like_flake8(tmp_path):
    for name in ("model.py", "legacy/model.py", "legacy/deep/model.py", "tests/model.py"):
        write(tmp_path / name, SETTING_MODEL)
    write(tmp_path / "setup.cfg", "[flake8]\nselect = SFX\nper-file-ignores =\n    legacy/*.py: SFX101,SFX102\n"
                                  "    legacy/deep/*.py: SFX2\n    model.py:SFX202\n")
    expected = flake8(".", cwd=tmp_path)
    got = check(".", cwd=tmp_path)
    assert rows(got.stdout) == rows(expected.stdout)
    # the longest matching pattern decides; `model.py` (no slash) matches every model.py
    assert {(row[0], row[3]) for row in rows(got.stdout)} == {
        ("./model.py", "SFX102"), ("./tests/model.py", "SFX102"), ("./legacy/model.py", "SFX202"),
        ("./legacy/deep/model.py", "SFX102")}
    bad = check("--per-file-ignores=SFX101: model.py", ".", cwd=tmp_path)
    assert bad.returncode == 2 and "per-file-ignores" in bad.stderr


def test_pre_commit_importers_hook_fails_the_commit_that_breaks_a_helper(tmp_path):
    """pre-commit itself, with the hook installed from this repository, on a commit that
    changes only the helper."""
    pytest.importorskip("pre_commit")
    from test_precommit import _git, _snapshot

    snap = _snapshot(tmp_path)
    project = helper_project(tmp_path / "project")
    _git("init", "-q", cwd=project)
    _git("add", "-A", cwd=project)
    _git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "clean", cwd=project)
    (project / "pkg" / "helpers.py").write_text(HELPER_BROKEN)
    _git("add", "-A", cwd=project)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc-home"), PRE_COMMIT_COLOR="never")

    def run_hook(hook_id):
        # without --all-files pre-commit passes only the staged files: pkg/helpers.py
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(snap), hook_id], cwd=project,
                              env=env, capture_output=True, text=True, timeout=600)

    failed = run_hook("flake8-staticfx-importers")
    out = failed.stdout + failed.stderr
    if "An unexpected error has occurred" in out or "CalledProcessError" in out:
        pytest.skip(f"pre-commit could not install the hook environment (offline?):\n{out[-2000:]}")
    assert failed.returncode == 1, out
    assert "pkg/model.py:13:16: SFX102" in out and "pkg/top.py:13:16: SFX102" in out, out
    # The changed file alone: its break is found at its own line, through model.py (reach.py).
    plain = run_hook("flake8-staticfx-check")
    assert plain.returncode == 1 and "pkg/helpers.py:5:" in plain.stdout + plain.stderr, plain.stdout + plain.stderr


@pytest.mark.parametrize("how", ["console script", "python -m"])
def test_check_with_importers_runs_none_of_the_project(tmp_path, how):
    """tests/test_no_execution.py's project, whose every module has side effects on import,
    linted by check from a directory whose torch.py and numpy.py would show an import too."""
    from test_no_execution import make_project, traces

    root, model, markers = make_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    command = [SCRIPT, "check"] if how == "console script" else [sys.executable, "-m", "flake8_staticfx", "check"]
    helpers = sorted(p for p in model.parent.glob("*.py") if p != model)
    result = subprocess.run([*command, "--isolated", "--with-importers", *map(str, helpers)],
                            cwd=tmp_path / "shadow", env=env, capture_output=True, text=True, timeout=300)
    assert traces(markers) == [], (traces(markers), result.stdout, result.stderr)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    # the model was linted as an importer of its helpers, and its breaks found through them
    assert {row[3] for row in rows(result.stdout) if row[0].endswith("model.py")} >= {"SFX101", "SFX102"}


def test_stdin_like_flake8(tmp_path):
    """An editor's buffer on stdin, reported under its path, with helpers found from that path."""
    helper_project(tmp_path)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPER_BROKEN)
    buffer = (tmp_path / "pkg" / "model.py").read_text()
    args = ["--isolated", "--stdin-display-name=pkg/model.py", "-"]
    got = subprocess.run([SCRIPT, "check", *args], input=buffer, capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    expected = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", *args], input=buffer,
                              capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert got.returncode == 1, got.stderr
    assert got.stdout == expected.stdout == check("--isolated", "pkg/model.py", cwd=tmp_path).stdout
    assert got.stdout.startswith("pkg/model.py:13:16: SFX102")


def test_sarif_uri_outside_the_current_directory_is_a_file_uri(tmp_path):
    write(tmp_path / "model.py", BREAK_MODEL)
    (tmp_path / "elsewhere").mkdir()
    result = check("--isolated", "--format", "sarif", str(tmp_path / "model.py"), cwd=tmp_path / "elsewhere")
    (item,) = json.loads(result.stdout)["runs"][0]["results"]
    artifact = item["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (tmp_path / "model.py").as_uri()}


def test_check_imports_neither_torch_nor_flake8():
    """check lints without torch (like the plugin) and without flake8 (its reason to exist)."""
    script = textwrap.dedent(f"""
        import sys
        from flake8_staticfx.front.cli import main
        status = main(["check", "--isolated", "--format", "sarif", {str(ROOT / "examples")!r}])
        print(status, sorted({{m.split(".")[0] for m in sys.modules}} & {{"torch", "numpy", "flake8"}}))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "1 []"
