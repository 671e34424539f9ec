"""The plugin through real flake8, in a subprocess, the way users and editors run it."""
from __future__ import annotations

import ast
import gc
import subprocess
import sys
import textwrap
import weakref
from collections import OrderedDict
from pathlib import Path

import pytest

from flake8_staticfx.discover import projects
from flake8_staticfx.front import plugin
from flake8_staticfx.discover.projects import Project
from flake8_staticfx.messages import FIX_HINT
from flake8_staticfx.front.plugin import Checker
from flake8_staticfx.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FORMAT = "--format=%(path)s|%(row)d|%(col)d|%(code)s|%(text)s"


def run_flake8(*args: str, cwd: Path, stdin: str | None = None, isolated: bool = True,
               select: str | None = "SFX") -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "flake8", FORMAT]
    if select:
        command.append(f"--select={select}")
    if isolated:
        command.append("--isolated")
    result = subprocess.run([*command, *args], capture_output=True, text=True, cwd=cwd, input=stdin,
                            timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), (result.returncode, result.stderr)
    assert result.returncode == (1 if result.stdout else 0)
    return result


def reports(*args: str, cwd: Path, **kwargs) -> list[tuple[str, int, int, str, str]]:
    """(path, 1-based line, 1-based column as flake8 prints it, code, text) per diagnostic."""
    found = []
    for line in run_flake8(*args, cwd=cwd, **kwargs).stdout.splitlines():
        path, row, col, code, text = line.split("|", 4)
        found.append((path, int(row), int(col), code, text))
    return found


def brief(found) -> list[tuple[str, int, str]]:
    return [(Path(path).name, row, code) for path, row, _, code, _ in found]


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


def test_plugin_is_registered():
    result = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True,
                            timeout=120)
    assert "flake8-staticfx" in result.stdout


def test_help_documents_every_option():
    result = subprocess.run([sys.executable, "-m", "flake8", "--help"], capture_output=True, text=True,
                            timeout=120)
    for option in ("--staticfx-fullgraph", "--staticfx-capture-scalar-outputs",
                   "--staticfx-capture-dynamic-output-shape-ops", "--staticfx-ignore-logging-functions",
                   "--staticfx-module-bases", "--staticfx-max-inline-depth", "--staticfx-notices",
                   "--staticfx-library-path", "--staticfx-library-roots", "--staticfx-mode", "--staticfx-dtype",
                   "--staticfx-device", "--staticfx-configuration",
                   "--staticfx-cache-dir", "--staticfx-no-cache"):
        assert option in result.stdout


def test_examples():
    found = reports("examples/", cwd=ROOT)
    assert [(Path(p).as_posix(), row, col, code) for p, row, col, code, _ in found] == [
        ("examples/conditional_net.py", 14, 12, "SFX101"),
        ("examples/moe_router.py", 27, 22, "SFX401"),
        ("examples/transformer_block.py", 35, 17, "SFX102"),
        ("examples/transformer_block.py", 36, 9, "SFX202"),
    ]


# -- positions and messages ---------------------------------------------------------

POSITIONS = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = h * 2
        total = 1 + h.sum().item()
        print(total)
        return h
"""


def test_lines_are_1_based_and_columns_printed_as_col_plus_1(tmp_path):
    path = write(tmp_path / "model.py", POSITIONS)
    lines = path.read_text().splitlines()
    found = reports("model.py", cwd=tmp_path)
    expected = []
    for code, construct in (("SFX101", "h.mean() > 0"), ("SFX102", "h.sum().item()"), ("SFX201", "print(total)")):
        row = next(i for i, text in enumerate(lines, 1) if construct in text)
        expected.append((row, lines[row - 1].index(construct) + 1, code))
    assert [(row, col, code) for _, row, col, code, _ in found] == expected


@pytest.mark.parametrize("code", ["SFX101", "SFX102", "SFX201"])
def test_message_names_construct_gb_id_and_workaround(tmp_path, code):
    write(tmp_path / "model.py", POSITIONS)
    found = {c: text for _, _, _, c, text in reports("model.py", cwd=tmp_path)}
    rule = RULES[code]
    text = found[code]
    assert text.startswith(f"{rule.summary}: `")  # the same first words for every occurrence
    assert any(gb in text for gb in rule.gb_ids)  # the ids of this occurrence
    # the print is a statement `fix` guards, and the message says so
    assert text.endswith(f"; {rule.fix}" + (f" ({FIX_HINT})" if code == "SFX201" else ""))
    assert len(f"{code} {text}") <= 160


def test_statistics_summarise_each_code_by_its_first_words(tmp_path):
    # Two files, each code with occurrences of different constructs (and, for SFX102, different
    # GB ids: .item() is GB0124, a size is GB0033): --statistics prints one occurrence's message
    # per code, so its first words must be the same for every occurrence.
    write(tmp_path / "a_model.py", POSITIONS)
    write(tmp_path / "b_model.py", POSITIONS.replace("h.mean() > 0", "h.max() < 1").replace(
        "total = 1 + h.sum().item()", "total = torch.arange(h.sum())"))
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", "--statistics",
                             "a_model.py", "b_model.py"], capture_output=True, text=True, cwd=tmp_path,
                            timeout=300)
    lines = result.stdout.splitlines()
    occurrences = [line for line in lines if line.startswith(("a_model.py", "b_model.py"))]
    assert len(occurrences) == 6 and "(GB0033)" in "".join(occurrences) and "(GB0124)" in "".join(occurrences)
    statistics = [line.split(None, 2) for line in lines if line not in occurrences]
    assert [(count, code) for count, code, _ in statistics] == [("2", "SFX101"), ("2", "SFX102"), ("2", "SFX201")]
    for line in occurrences:
        code, text = line.split(": ", 1)[1].split(" ", 1)
        assert text.startswith(f"{RULES[code].summary}: `")
    for _, code, text in statistics:
        assert text.startswith(f"{RULES[code].summary}: `"), text


def test_a_construct_in_another_file_is_located_from_the_project_root(tmp_path):
    pkg = tmp_path / "pkg"
    for package in (pkg, pkg / "sub", pkg / "sub" / "deep"):
        write(package / "__init__.py", "")
    write(pkg / "sub" / "deep" / "utils.py", """
        def peak(x):
            return x.max().item()
    """)
    write(pkg / "model.py", """
        import torch.nn as nn
        from .sub.deep.utils import peak


        class Net(nn.Module):
            def forward(self, x):
                return x / peak(x)
    """)
    for cwd, path in ((tmp_path, "pkg/model.py"), (pkg, "model.py")):
        (found,) = reports(path, cwd=cwd)
        assert found[1:4] == (7, 20, "SFX102")  # at the call in the linted file
        assert " in `peak` at pkg/sub/deep/utils.py:2 (GB0124); " in found[4], found[4]
        assert (tmp_path / found[4].split(" at ")[1].split(":")[0]).is_file()


# -- noqa ---------------------------------------------------------------------------

@pytest.mark.parametrize(("comment", "suppressed"), [
    ("# noqa: SFX101", True),
    ("# noqa:SFX101,SFX102", True),
    ("# noqa", True),
    ("# noqa: SFX1", True),
    ("# noqa: SFX102", False),
    ("# noqa: E501", False),
    ("", False),
])
def test_noqa(tmp_path, comment, suppressed):
    write(tmp_path / "model.py", POSITIONS.replace("if h.mean() > 0:", f"if h.mean() > 0:  {comment}"))
    codes = [code for _, _, _, code, _ in reports("model.py", cwd=tmp_path)]
    assert ("SFX101" not in codes) == suppressed
    assert "SFX102" in codes and "SFX201" in codes


def test_disable_noqa(tmp_path):
    write(tmp_path / "model.py", POSITIONS.replace("if h.mean() > 0:", "if h.mean() > 0:  # noqa: SFX101"))
    codes = [code for _, _, _, code, _ in reports("--disable-noqa", "model.py", cwd=tmp_path)]
    assert "SFX101" in codes


def test_noqa_inside_a_multi_line_statement_goes_on_the_reported_line(tmp_path):
    # flake8 looks for noqa on the reported physical line (it joins only multi-line strings).
    def codes(first, second):
        write(tmp_path / "model.py", POSITIONS.replace(
            "total = 1 + h.sum().item()",
            f"total = 1 + (\n            h.sum().item(){first}\n        ){second}"))
        return [code for _, _, _, code, _ in reports("model.py", cwd=tmp_path)]

    assert codes("  # noqa: SFX102", "") == ["SFX101", "SFX201"]
    assert codes("", "") == ["SFX101", "SFX102", "SFX201"]


# -- options: the dynamo settings ------------------------------------------------------

# A trigger for every rule that some setting captures (rules.py's captured_by).
CAPTURED_CASES = {
    "SFX102": "scale = h.max().item()",
    "SFX103": "values = h.tolist()",
    "SFX401": "idx = torch.nonzero(h)",
    "SFX317": "for _ in range(2):\n    print(h)\nparts = [h * v for v in {'a': 1.0}.values()]",
}
# What a case needs reported before it, whatever the setting: SFX317 follows the loop's print,
# which makes dynamo give up on forward (under fullgraph nothing is given up: the print fails it).
CAUSES = {"SFX317": ["SFX201"]}
CAPTURED_RULES = sorted(code for code, rule in RULES.items() if rule.captured_by)
SETTINGS = ["fullgraph", "capture_scalar_outputs", "capture_dynamic_output_shape_ops"]


def setting_model(tmp_path: Path, statement: str) -> Path:
    statement = statement.replace("\n", "\n" + " " * 16)  # the body's indentation below
    return write(tmp_path / "model.py", f"""
        import logging
        import math

        import torch
        import torch.nn as nn

        logger = logging.getLogger(__name__)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                h = self.fc(x)
                {statement}
                if h.sum() > 0:
                    h = -h
                return h
    """)


def test_every_captured_rule_has_a_case():
    assert sorted(CAPTURED_CASES) == CAPTURED_RULES


@pytest.mark.parametrize("code", CAPTURED_RULES)
@pytest.mark.parametrize("setting", SETTINGS)
def test_settings_change_the_answer_as_the_rule_table_says(tmp_path, code, setting):
    setting_model(tmp_path, CAPTURED_CASES[code])
    option = "--staticfx-" + setting.replace("_", "-")
    default = [c for _, _, _, c, _ in reports("model.py", cwd=tmp_path)]
    with_option = [c for _, _, _, c, _ in reports(option, "model.py", cwd=tmp_path)]
    causes = CAUSES.get(code, [])
    assert default == [*causes, code, "SFX101"]
    if setting in RULES[code].captured_by:
        left = [*causes, "SFX101"]  # the branch is never captured
        assert with_option == (left[:1] if setting == "fullgraph" else left)  # fullgraph fails at the first
    else:
        assert with_option == default


@pytest.mark.parametrize(("option", "reported"), [
    ("--staticfx-ignore-logging-functions=logging.Logger.info", False),
    ("--staticfx-ignore-logging-functions=logging.Logger.debug,logging.Logger.info", False),
    ("--staticfx-ignore-logging-functions=logging.Logger.warning", True),
    ("--staticfx-fullgraph", True),
])
def test_ignore_logging_functions(tmp_path, option, reported):
    setting_model(tmp_path, 'logger.info("hidden %s", h.shape)')
    codes = [c for _, _, _, c, _ in reports(option, "model.py", cwd=tmp_path)]
    assert codes == (["SFX202", "SFX101"] if reported else ["SFX101"])


def test_transformer_example_under_the_options():
    def codes(*options):
        return [c for _, _, _, c, _ in reports(*options, "examples/transformer_block.py", cwd=ROOT)]

    assert codes() == ["SFX102", "SFX202"]
    assert codes("--staticfx-capture-scalar-outputs") == ["SFX202"]
    assert codes("--staticfx-ignore-logging-functions=logging.Logger.debug") == ["SFX102"]
    assert codes("--staticfx-fullgraph", "--staticfx-ignore-logging-functions=logging.Logger.debug") == []


# -- options from configuration files -------------------------------------------------------

@pytest.mark.parametrize("config_file", ["setup.cfg", "tox.ini", ".flake8"])
def test_options_from_a_config_file(tmp_path, config_file):
    setting_model(tmp_path, 'scale = h.max().item()\nlogger.debug("scale %s", scale)')
    assert [c for *_, c, _ in reports("model.py", cwd=tmp_path, isolated=False)] == ["SFX102", "SFX202", "SFX101"]
    (tmp_path / config_file).write_text(textwrap.dedent("""
        [flake8]
        staticfx-capture-scalar-outputs = true
        staticfx-ignore-logging-functions =
            logging.Logger.debug,
            logging.Logger.info
    """), encoding="utf-8")
    assert [c for *_, c, _ in reports("model.py", cwd=tmp_path, isolated=False)] == ["SFX101"]
    # --isolated ignores the file
    assert [c for *_, c, _ in reports("model.py", cwd=tmp_path)] == ["SFX102", "SFX202", "SFX101"]


def test_module_bases_and_inline_depth_from_a_config_file(tmp_path):
    write(tmp_path / "model.py", """
        from mylib import TrainableBase


        class Net(TrainableBase):
            def forward(self, x):
                return self.helper(x)

            def helper(self, x):
                return x.sum().item()
    """)
    assert reports("model.py", cwd=tmp_path, isolated=False) == []
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-module-bases = TrainableBase\n", encoding="utf-8")
    assert brief(reports("model.py", cwd=tmp_path, isolated=False)) == [("model.py", 9, "SFX102")]
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-module-bases = TrainableBase\n"
                                        "staticfx-max-inline-depth = 0\n", encoding="utf-8")
    assert reports("model.py", cwd=tmp_path, isolated=False) == []


def test_select_from_a_config_file(tmp_path):
    setting_model(tmp_path, "pass")
    (tmp_path / "tox.ini").write_text("[flake8]\nselect = SFX\n", encoding="utf-8")
    assert brief(reports("model.py", cwd=tmp_path, isolated=False, select=None)) == [("model.py", 18, "SFX101")]


def test_per_file_ignores(tmp_path):
    setting_model(tmp_path, "pass")
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "model.py").write_text((tmp_path / "model.py").read_text())
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = SFX\nper-file-ignores =\n    legacy/*.py: SFX101\n",
                                        encoding="utf-8")
    found = brief(reports("model.py", "legacy/model.py", cwd=tmp_path, isolated=False, select=None))
    assert found == [("model.py", 18, "SFX101")]


def test_repository_config_does_not_change_the_answer():
    # tox.ini's [flake8] section is an example: it spells every option with its default.
    assert reports("examples/", cwd=ROOT, isolated=False) == reports("examples/", cwd=ROOT)


# -- stdin (editors) -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["conditional_net.py", "transformer_block.py", "simple_net.py", "moe_router.py"])
def test_stdin_gives_the_same_diagnostics(name):
    display = f"examples/{name}"
    from_file = reports(display, cwd=ROOT)
    from_stdin = reports(f"--stdin-display-name={display}", "-", cwd=ROOT,
                         stdin=(EXAMPLES / name).read_text(encoding="utf-8"))
    assert from_stdin == from_file


def test_stdin_uses_the_buffer_not_the_file_on_disk(tmp_path):
    # An editor lints unsaved text: the file on disk is clean, the buffer is not.
    write(tmp_path / "model.py", POSITIONS.replace("print(total)", "pass"))
    buffer = textwrap.dedent(POSITIONS).lstrip("\n")
    from_stdin = reports("--stdin-display-name=model.py", "-", cwd=tmp_path, stdin=buffer)
    assert [c for *_, c, _ in from_stdin] == ["SFX101", "SFX102", "SFX201"]
    assert [c for *_, c, _ in reports("model.py", cwd=tmp_path)] == ["SFX101", "SFX102"]


def test_stdin_without_a_display_name(tmp_path):
    found = reports("-", cwd=tmp_path, stdin=textwrap.dedent(POSITIONS).lstrip("\n"))
    assert [(p, c) for p, _, _, c, _ in found] == [("stdin", "SFX101"), ("stdin", "SFX102"), ("stdin", "SFX201")]


def test_stdin_in_a_package_sees_the_other_files(tmp_path):
    pkg = tmp_path / "pkg"
    write(pkg / "__init__.py", "")
    write(pkg / "ops.py", """
        def peak(x):
            return x.max().item()
    """)
    source = """
        import torch.nn as nn
        from .ops import peak


        class Net(nn.Module):
            def forward(self, x):
                return x / peak(x)
    """
    write(pkg / "model.py", source)
    from_file = reports("pkg/model.py", cwd=tmp_path)
    assert brief(from_file) == [("model.py", 7, "SFX102")]
    assert reports("--stdin-display-name=pkg/model.py", "-", cwd=tmp_path,
                   stdin=textwrap.dedent(source).lstrip("\n")) == from_file


# -- the notice, and files that are not models ---------------------------------------------------

HUGE = """
import torch.nn as nn


class Huge(nn.Module):
    def forward(self, x):
        for i in range(60):
            for j in range(60):
                for k in range(60):
                    x = x + 1
        return x
"""


@pytest.mark.parametrize("select", [None, "SFX", "SFX9"])
def test_sfx900_is_off_by_default(tmp_path, select):
    write(tmp_path / "model.py", HUGE)
    assert reports("model.py", cwd=tmp_path, select=select) == []


@pytest.mark.parametrize("args", [
    ("--staticfx-notices", "--select=SFX"),
    ("--staticfx-notices", "--extend-select=SFX900"),
])
def test_sfx900_with_staticfx_notices(tmp_path, args):
    write(tmp_path / "model.py", HUGE)
    found = reports(*args, "model.py", cwd=tmp_path, select=None)
    assert brief(found) == [("model.py", 5, "SFX900")]
    assert found[0][2] == 5  # the def of the root, column 4 + 1
    assert "Huge.forward" in found[0][4]


def test_sfx900_notices_from_a_config_file(tmp_path):
    write(tmp_path / "model.py", HUGE)
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-notices = true\n", encoding="utf-8")
    assert brief(reports("model.py", cwd=tmp_path, isolated=False)) == [("model.py", 5, "SFX900")]


DECORATED = """
import torch.nn as nn
from registry import register


@register("net")
class Net(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Child(Net):
    scale = 2
"""


def test_unknown_class_decorator_gives_a_notice_not_a_silent_pass(tmp_path):
    # The decorator may replace forward, so neither class is linted; --staticfx-notices says so
    # at each class instead of passing it in silence.
    write(tmp_path / "model.py", DECORATED)
    assert reports("model.py", cwd=tmp_path) == []
    found = reports("--staticfx-notices", "model.py", cwd=tmp_path)
    classes = [i for i, text in enumerate(DECORATED.lstrip("\n").splitlines(), 1) if text.startswith("class ")]
    assert [(row, col, code) for _, row, col, code, _ in found] == [(row, 1, "SFX900") for row in classes]
    assert found[0][4] == "not analysed: `Net.forward` (unknown decorator: `@register('net')` may replace forward)"
    assert found[1][4] == ("not analysed: `Child.forward` (unknown decorator: `@register('net')` on `Net` "
                           "may replace forward)")


def test_timm_fx_markers_keep_the_class_linted(tmp_path):
    # timm's register_notrace_module adds the class to a set for torch.fx and returns it: dynamo
    # compiles the forward as written (mobilevit, nfnet: 102 uses in timm were "not analysed").
    write(tmp_path / "model.py", """
import torch.nn as nn
from timm.layers import register_notrace_module


@register_notrace_module
class Block(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x
""")
    found = reports("--staticfx-notices", "model.py", cwd=tmp_path)
    assert [(row, code) for _, row, _, code, _ in found] == [(8, "SFX101")]


def test_a_forward_picked_by_configuration_names_the_setting_that_runs_it(tmp_path):
    # transformers' experts dispatch replaces forward by the implementation the config names
    # (grouped_mm by default): the eager loop written in the class runs only when asked for.
    write(tmp_path / "model.py", """
import torch
import torch.nn as nn
from transformers.integrations.moe import use_experts_implementation


@use_experts_implementation
class Experts(nn.Module):
    def forward(self, x, top_k_index):
        for expert in torch.unique(top_k_index).tolist():
            x = x + expert
        return x
""")
    assert reports("model.py", cwd=tmp_path) == []
    [found] = reports("--staticfx-notices", "model.py", cwd=tmp_path)
    assert found[4] == ("not analysed: `Experts.forward` (`config._experts_implementation` picks the forward "
                        "at run time (grouped_mm by default); this one runs if \"eager\")")


def test_known_decorators_give_no_notice(tmp_path):
    path = write(tmp_path / "model.py", DECORATED.replace('from registry import register\n', """import functools


def register(name):
    def decorate(cls):
        @functools.wraps(cls)
        def make(*args):
            return cls(*args)
        return make
    return decorate
"""))
    found = reports("--staticfx-notices", "model.py", cwd=tmp_path)
    branch = path.read_text().splitlines().index("        if x.sum() > 0:") + 1
    assert [(row, code) for _, row, _, code, _ in found] == [(branch, "SFX101")]  # Net's and Child's, once


def test_syntax_error_does_not_crash(tmp_path):
    write(tmp_path / "model.py", """
        import torch.nn as nn


        class Net(nn.Module):
            def forward(self, x)
                return x.item()
    """)
    assert reports("model.py", cwd=tmp_path) == []
    assert [c for *_, c, _ in reports("model.py", cwd=tmp_path, select="SFX,E999")] == ["E999"]


@pytest.mark.parametrize("source", [
    "",
    "def add(a, b):\n    return a + b\n",
    "import numpy as np\n\n\nclass Model:\n    def forward(self, x):\n        if x.sum() > 0:\n            print(x)\n",
    "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n",
    "import torch\n\nx = torch.ones(3)\nif x.sum() > 0:\n    print(x.item())\n",
])
def test_files_without_models_are_quiet(tmp_path, source):
    (tmp_path / "model.py").write_bytes(source.encode("latin-1" if "latin-1" in source else "utf-8"))
    assert reports("model.py", cwd=tmp_path) == []


def test_parallel_jobs_give_the_same_output():
    serial = reports("--jobs=1", "examples/", cwd=ROOT)
    assert reports("--jobs=2", "examples/", cwd=ROOT) == serial
    assert len(serial) == 4


def test_repository_config_spells_the_defaults():
    import configparser

    from flake8_staticfx.config import Options
    from flake8_staticfx.config import DEFAULT_MODULE_BASES

    config = configparser.ConfigParser()
    config.read(ROOT / "tox.ini")
    section = config["flake8"]
    bases = tuple(name.strip() for name in section["staticfx-module-bases"].split(",") if name.strip())
    assert bases == DEFAULT_MODULE_BASES
    assert int(section["staticfx-max-inline-depth"]) == Options().max_inline_depth
    for setting in ("fullgraph", "capture_scalar_outputs", "capture_dynamic_output_shape_ops"):
        assert section.getboolean("staticfx-" + setting.replace("_", "-")) is getattr(Options(), setting)
    assert section.getboolean("staticfx-notices") is Options().report_notices
    assert section["staticfx-ignore-logging-functions"].strip() == ""


@pytest.fixture
def thawed_collector():
    """In-process plugin runs freeze this test process's objects: give them back afterwards."""
    yield
    gc.unfreeze()


MODEL = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n"


def run_in_process(path: Path) -> list:
    checker = Checker(ast.parse(MODEL), str(path), MODEL.splitlines(keepends=True))
    return list(checker.run())


def test_a_linted_file_freezes_the_cached_trees_out_of_the_collector(tmp_path, thawed_collector):
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "layers.py", "class A:\n    pass\n")
    cached = Project(str(tmp_path)).load("pkg.layers")
    run_in_process(write(tmp_path / "pkg" / "model.py", MODEL))
    assert not any(o is cached.node for o in gc.get_objects())  # frozen objects are not listed


def test_a_frozen_tree_dropped_from_its_cache_is_collected_after_a_thaw(tmp_path, monkeypatch, thawed_collector):
    monkeypatch.setattr(projects, "PROJECT_CACHE_SIZE", 1)
    # Only this test's parses are dropped: the projects and libraries earlier tests left are not.
    monkeypatch.setattr(projects, "_PROJECTS", OrderedDict())
    monkeypatch.setattr(projects, "_LIBRARIES", OrderedDict())
    monkeypatch.setattr(plugin, "_evictions_at_thaw", projects.evicted_parses())  # as if thawed just now
    write(tmp_path / "pkg" / "__init__.py", "")
    model = write(tmp_path / "pkg" / "model.py", MODEL)
    project = Project(str(tmp_path))
    dropped = []
    for index in range(plugin.THAW_AFTER_EVICTIONS + 1):
        write(tmp_path / "pkg" / f"layer{index}.py", "class A:\n    pass\n")
        loaded = project.load(f"pkg.layer{index}")  # evicts the one before
        dropped.append(weakref.ref(loaded.node))
        del loaded
        run_in_process(model)
    assert dropped[-1]() is not None  # still cached
    assert all(ref() is None for ref in dropped[:-1])


HELPER_MODEL = ("import torch\n\n\ndef double(x):\n    return x * 2\n\n\n"
                "class Net(torch.nn.Module):\n    def forward(self, x):\n        return double(x) + 1\n")


def test_linted_files_trees_are_not_kept_after_their_analysis(tmp_path, thawed_collector):
    """Caches keyed by a function of the linted file (interpreter._MUTATES) held every linted
    file's tree for the rest of the process: 57 of 60 transformers files, 12 MiB. (astroid's
    class-level `special_attributes` keeps the last class it answered for: one tree at most.)"""
    from astroid import nodes

    paths = {str(write(tmp_path / f"model{index}.py", HELPER_MODEL)) for index in range(4)}
    for path in paths:
        checker = Checker(ast.parse(HELPER_MODEL), path, HELPER_MODEL.splitlines(keepends=True))
        assert list(checker.run()) == []
    del checker
    gc.unfreeze()
    gc.collect()
    assert len([o for o in gc.get_objects() if type(o) is nodes.Module and o.file in paths]) <= 1
