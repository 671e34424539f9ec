"""The command lines a user meets first: README's commands, CI's script, `python -m flake8_staticfx`."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")  # the commands' reference
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def code_blocks(text: str, language: str | None = None) -> list[str]:
    """Fenced blocks, without the fence's own indentation (blocks inside list items)."""
    blocks = re.findall(r"^( *)```(\w*)\n(.*?)^\1```", text, flags=re.S | re.M)
    return [re.sub(f"^{indent}", "", body, flags=re.M) for indent, lang, body in blocks
            if language in (None, lang)]


def section(text: str, title: str) -> str:
    return text.split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]


def quick_start_commands() -> list[str]:
    return [block.strip() for block in code_blocks(section(README, "Quick start"), "bash")]


# -- README ------------------------------------------------------------------------------

def test_readme_is_a_guide_of_at_most_300_lines():
    """A user's guide (issue 37): the development log lives in docs/ and CHANGELOG.md."""
    assert len(README.splitlines()) <= 300


def test_readme_starts_with_the_two_commands():
    head = README.split("## ", 2)[1]  # the first section
    assert head.startswith("Quick start")
    install_and_lint, install_and_test = quick_start_commands()
    assert install_and_lint.startswith("python3 -m venv .venv && ")
    assert "pip install -e . " in install_and_lint
    # E999: a file that does not parse fails; E902: so does a path that does not exist
    assert install_and_lint.endswith("flake8 --select=SFX,E902,E999 examples/")
    assert "torch" not in install_and_lint  # the linter needs no torch
    assert install_and_test.startswith("python3 -m venv .venv && ")
    steps = [step.strip() for step in install_and_test.split("&&")]
    assert steps[1] == ".venv/bin/pip install torch==2.13.0"  # torch first, pinned
    assert steps[2] == ".venv/bin/pip install -e '.[test]'"
    assert steps[3].startswith(".venv/bin/python -m pytest")


def test_readme_sample_output_is_what_the_first_command_prints():
    sample = README.split("The first command prints", 1)[1]
    expected = code_blocks(sample, "text")[0]
    args = quick_start_commands()[0].split("flake8 ", 1)[1].split()
    result = subprocess.run([sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 1
    assert result.stdout == expected, "README's sample is stale: run python docs/gen_rules_table.py --write"


def test_readme_first_command_fails_on_a_file_that_does_not_parse(tmp_path):
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "broken.py").write_text("import torch\n\n\ndef forward(x)\n    return x\n")
    args = quick_start_commands()[0].split("flake8 ", 1)[1].split()
    result = subprocess.run([sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=tmp_path,
                            timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("examples/broken.py:4:") and " E999 SyntaxError" in result.stdout


def test_readme_graph_sample_is_what_the_cli_prints():
    sample = next(block for block in code_blocks(section(COMMANDS, "graph"), "text") if block.startswith("$ "))
    command, expected = sample.split("\n", 1)
    args = command.removeprefix("$ python ").split()
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected, "docs/commands.md's sample is stale: run python docs/gen_rules_table.py --write"


def test_readme_documents_every_option():
    result = subprocess.run([sys.executable, "-m", "flake8", "--help"], capture_output=True, text=True, timeout=120)
    options = set(re.findall(r"--staticfx-[a-z-]+", result.stdout))
    assert options
    documented = set(re.findall(r"--staticfx-[a-z-]+", section(README, "Configuration")))
    assert options == documented


@pytest.mark.parametrize("command", ["graph", "report"])
def test_commands_reference_documents_every_cli_flag_and_format(command):
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", command, "--help"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0
    flags = set(re.findall(r"--[a-z][a-z-]+", result.stdout)) - {"--help"}
    formats = set(re.search(r"--format \{([a-z,]+)\}", result.stdout)[1].split(","))
    text = section(COMMANDS, "graph")
    usage = next(line for line in text.splitlines() if line.startswith(f"python -m flake8_staticfx {command}"))
    assert flags and flags <= set(re.findall(r"--[a-z][a-z-]+", text))
    assert formats == set(re.search(r"--format ([a-z|]+)", usage)[1].split("|"))


def test_readme_has_the_accuracy_section():
    assert ("flake8 --select=SFX --isolated ../shared/corpus/cases | python ../shared/tools/score.py "
            "--truth ../shared/corpus/cases/truth.json") in section(README, "Accuracy").replace("\\|", "|")


def test_readme_examples_exist():
    for name in re.findall(r"examples/(\w+\.py)", README + COMMANDS):
        assert (ROOT / "examples" / name).is_file(), name


# -- CI ----------------------------------------------------------------------------------

def test_ci_runs_the_readme_test_command():
    install_and_test = quick_start_commands()[1]
    readme_test_command = install_and_test.split("&&")[-1].strip()
    match = re.search(r'^TEST_COMMAND="([^"]+)"', CI, flags=re.M)
    assert match and match[1] == readme_test_command
    assert re.search(r"^\$TEST_COMMAND$", CI, flags=re.M)


def test_ci_installs_pinned_torch_first():
    lines = [line.strip() for line in CI.splitlines() if "pip install" in line and not line.strip().startswith("#")]
    assert len(lines) == 2
    assert '"$TORCH_PIN"' in lines[0] and re.search(r'^TORCH_PIN="torch==2\.13\.0"$', CI, flags=re.M)
    assert "-e '.[test]'" in lines[1]
    assert "python3 -m venv .venv" in CI
    # never an unpinned torch
    for line in CI.splitlines():
        if "pip" in line and "torch" in line and not line.strip().startswith("#"):
            assert "TORCH_PIN" in line or "torch==2.13.0" in line


def test_ci_script_is_valid_bash():
    subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], check=True)
    assert CI.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in CI


@pytest.mark.parametrize(("pytest_status", "ci_status"), [(0, 0), (1, 1), (2, 2), (5, 1)])
def test_ci_treats_no_tests_as_failure(tmp_path, pytest_status, ci_status):
    """Run CI's own tail (from the test command on) with a stand-in for pytest."""
    tail = CI[CI.index("set +e"):]
    fake_pytest = tmp_path / "fake-pytest"
    fake_pytest.write_text(f"#!/bin/sh\nexit {pytest_status}\n")
    fake_pytest.chmod(0o755)
    script = tmp_path / "tail.sh"
    script.write_text(f"set -euo pipefail\nstarted=$(date +%s)\nTEST_COMMAND={fake_pytest}\n{tail}")
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == ci_status
    if pytest_status == 5:
        assert "no tests" in result.stderr


def test_pytest_configuration():
    tox = (ROOT / "tox.ini").read_text(encoding="utf-8")
    assert "[pytest]" in tox and "testpaths = tests" in tox
    assert re.search(r"^\s+slow:", tox, flags=re.M)


# -- python -m flake8_staticfx ---------------------------------------------------------------

def test_module_without_a_command_shows_usage():
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "usage: python -m flake8_staticfx" in result.stderr and "graph" in result.stderr


def test_module_help():
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "--help"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and "graph" in result.stdout


def test_graph_of_a_file_without_roots(tmp_path):
    (tmp_path / "plain.py").write_text("def add(a, b):\n    return a + b\n")
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", "plain.py"], capture_output=True,
                            text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 0
    assert result.stdout.strip() == "" and result.stderr == ""


def test_graph_of_a_file_with_a_syntax_error(tmp_path):
    """An error naming the file and line, exit status 2 (it said "no compile root", status 0)."""
    (tmp_path / "broken.py").write_text("import torch\nclass A(torch.nn.Module):\n    def forward(self, x)\n")
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", "broken.py", "--format", "json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: broken.py:3:") and "SyntaxError" in result.stderr, result.stderr


# -- python -m flake8_staticfx report ----------------------------------------------------------

def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8_staticfx", "report", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_report_json_lists_every_root_of_the_examples():
    import json

    result = report("examples/", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = {(Path(row["file"]).name, row["class"]): row for row in json.loads(result.stdout)}
    assert rows[("simple_net.py", "SimpleNet")]["breaks"] == {}
    assert rows[("simple_net.py", "SimpleNet")]["graphs"] == 1
    assert rows[("conditional_net.py", "ConditionalNet")]["breaks"] == {"SFX101": 1}
    assert rows[("conditional_net.py", "ConditionalNet")]["graphs"] == 2
    assert set(rows[("transformer_block.py", "TransformerBlock")]["breaks"]) == {"SFX102", "SFX202"}
    assert rows[("resnet_block.py", "ResNetStage")]["breaks"] == {}
    assert {row["not_followed"] for row in rows.values()} == {0}  # the examples are analysed through
    assert {cls for _, cls in rows} == {"SimpleNet", "ConditionalNet", "FeedForward", "TransformerBlock",
                                        "BasicBlock", "ResNetStage", "Expert", "MoELayer"}


def test_report_options_change_the_breaks():
    import json

    def breaks(*options):
        rows = json.loads(report("examples/transformer_block.py", "--format", "json", *options).stdout)
        return {row["class"]: set(row["breaks"]) for row in rows}["TransformerBlock"]

    assert breaks() == {"SFX102", "SFX202"}
    assert breaks("--capture-scalar-outputs") == {"SFX202"}


def test_report_text_and_markdown_agree():
    text = report("examples/").stdout
    markdown = report("examples/", "--format", "markdown").stdout
    assert "ConditionalNet" in text and "ConditionalNet" in markdown
    assert markdown.startswith("| file | class |")
    assert len([line for line in markdown.splitlines() if line.startswith("| examples/")]) == 8
