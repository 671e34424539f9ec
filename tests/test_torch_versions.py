"""The torch release the answers are for: how it is chosen, the data each release ships, the
breaks that moved between releases, and where the version is said."""
import json
import os
import subprocess
import sys

import pytest

from flake8_staticfx import rules, torch_versions
from flake8_staticfx.config import Options
from flake8_staticfx.front.plugin import diagnose
from flake8_staticfx.torch_versions import MODELED, ByVersion, allowed, facts, resolve, since

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CASES = os.path.join(HERE, "cases")
sys.path.insert(0, os.path.join(REPO, "scripts"))


def _site_packages(tmp_path, version: str) -> str:
    directory = tmp_path / "site-packages"
    info = directory / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n\nbody\n")
    return str(directory)


def _project(tmp_path, pins: str = "") -> str:
    root = tmp_path / "project"
    root.mkdir()
    if pins:
        (root / "requirements.txt").write_text(pins)
    return str(root)


def test_the_option_wins_over_the_installed_torch(tmp_path):
    found = resolve("2.15", (_site_packages(tmp_path, "2.14.1+cu130"),), _project(tmp_path, "torch==2.13.0\n"))
    assert (found.minor, found.source) == ("2.15", "option")


def test_the_installed_torch_wins_over_the_pins(tmp_path):
    found = resolve("", (_site_packages(tmp_path, "2.14.1+cu130"),), _project(tmp_path, "torch==2.13.0\n"))
    assert (found.minor, found.source, found.found) == ("2.14", "installed", "2.14.1")
    assert found.describe() == "torch 2.14 (installed: 2.14.1)"


def test_the_pins_answer_with_the_newest_release_they_allow(tmp_path):
    root = _project(tmp_path, "numpy\ntorch>=2.13,<2.15  # not 2.15 yet\n")
    found = resolve("", (), root)
    assert (found.minor, found.source, found.found) == ("2.14", "pinned", "torch>=2.13,<2.15")


def test_pins_are_found_in_pyproject_above_the_project_root(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["torch ~= 2.13.0", "numpy"]\n')
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    assert resolve("", (), str(package)).minor == "2.13"


def test_with_nothing_found_the_newest_release_is_answered_for_and_said_once(tmp_path, capsys):
    root = _project(tmp_path)
    assert resolve("", (), root).minor == MODELED[-1]
    resolve.cache_clear()
    assert resolve("", (), root).source == "default"
    said = capsys.readouterr().err
    assert said.count("answering for torch") == 1 and MODELED[-1] in said


@pytest.mark.parametrize("specifier, versions", [
    ("==2.14.1", ["2.14"]), (">=2.13,<2.15", ["2.13", "2.14"]), ("~=2.14.0", ["2.14"]),
    ("~=2.13", ["2.13", "2.14", "2.15"]), ("!=2.14.*", ["2.13", "2.15"]), ("<2.14.1", ["2.13", "2.14"]),
    (">=2.16", []),
])
def test_specifiers_allow_modeled_releases(specifier, versions):
    assert allowed(specifier) == versions


def test_an_older_or_newer_release_is_answered_for_by_the_nearest_modeled_one():
    assert torch_versions.nearest_modeled("2.9") == MODELED[0]
    assert torch_versions.nearest_modeled("3.0") == MODELED[-1]


def test_a_moved_fact_names_the_releases_that_share_it():
    moved = since("2.14", ("GB0007",), None)
    assert moved.at("2.13") == ("GB0007",) and moved.at("2.15") is None
    assert moved.span("2.13") == "torch 2.13 only"
    assert moved.span("2.15") == "torch 2.14+"
    assert ByVersion((("2.13", 1), ("2.14", 2), ("2.15", 1))).span("2.14") == "torch 2.14 only"
    assert since("2.14", 1, 1).span("2.13") == ""


def test_every_modeled_release_ships_its_data():
    for version in MODELED:
        data = facts(version)
        assert torch_versions.minor_of(data.torch) == version
        assert len(data.graph_breaks) > 500 and "numpy" in data.thirdparty_skiplist
    assert facts("2.13").title("GB0170") == "Data-dependent branching"
    assert "GB0377" not in facts("2.13").graph_breaks and facts("2.14").title("GB0377")


def test_every_gb_id_a_rule_names_is_in_some_release_registry():
    known = set().union(*(facts(version).graph_breaks for version in MODELED))
    named = {gb for rule in rules.RULES.values() for gb in rule.gb_ids}
    assert named - known == set()


def test_torch_mps_is_available_is_skipped_by_2_13_only_by_the_generated_lists():
    assert facts("2.13").skips_torch_function("torch.mps.is_available", by_module=True)
    assert not facts("2.14").skips_torch_function("torch.mps.is_available", by_module=True)
    assert not facts("2.13").skips_torch_function("torch.cuda.is_available", by_module=True)
    assert facts("2.15").skips_torch_function("torch.get_rng_state", by_module=False)


def test_the_data_is_what_the_script_reads_from_the_installed_wheel():
    """scripts/gen_dynamo_facts.py on this environment's torch (read as files) gives the committed file."""
    import importlib.metadata

    import gen_dynamo_facts

    try:
        distribution = importlib.metadata.distribution("torch")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("torch is not installed")
    site_packages = str(distribution.locate_file(""))
    generated = gen_dynamo_facts.facts(site_packages)
    minor = torch_versions.minor_of(generated["torch"])
    with open(os.path.join(torch_versions.DATA, f"dynamo-{minor}.json"), encoding="utf-8") as handle:
        assert json.load(handle) == generated


def _messages(name: str, version: str) -> dict[int, str]:
    path = os.path.join(CASES, name)
    source = open(path, encoding="utf-8").read()
    return {found.line: found.message for found in diagnose(source, path, None, Options(torch_version=version))}


def test_breaks_fixed_after_2_13_are_reported_for_2_13_only():
    old, new = _messages("ver_fixed_after_213.py", "2.13"), _messages("ver_fixed_after_213.py", "2.14")
    assert "`SCALE.get()` (GB0156, torch 2.13 only)" in old[31]
    assert "`torch.mps.is_available()` (GB0007, torch 2.13 only)" in old[41]
    assert old[60].startswith("SFX315") and "(GB0193, torch 2.13 only)" in old[60]
    assert new == {}


def test_breaks_that_moved_name_each_release_s_gb_ids():
    old, new = _messages("ver_moved_breaks.py", "2.13"), _messages("ver_moved_breaks.py", "2.15")
    assert "`random.random()` (GB0007, torch 2.13 only)" in old[17]
    assert new[17].startswith("SFX101") and "(GB0170)" in new[17]
    assert "(GB0007/GB0098, torch 2.13 only)" in old[35] and "(GB0377/GB0098, torch 2.14+)" in new[35]
    assert "(GB0193, torch 2.13 only)" in old[54] and "(GB5687, torch 2.14+)" in new[54]
    assert set(old) == set(new) == {17, 35, 54}  # the near misses stay quiet in both


def test_a_custom_instance_check_breaks_from_2_14():
    assert _messages("ver_instancecheck_meta.py", "2.13") == {}
    assert "(GB2736, torch 2.14+)" in _messages("ver_instancecheck_meta.py", "2.14")[24]


def _run(*args: str, cwd: str = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd)


def test_the_flake8_option_is_read_from_the_flake8_section(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(open(os.path.join(CASES, "ver_moved_breaks.py"), encoding="utf-8").read())
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-torch-version = 2.14\n")
    out = _run("-m", "flake8", "--select=SFX", "model.py", cwd=str(tmp_path)).stdout
    assert "(GB5687, torch 2.14+)" in out
    bad = _run("-m", "flake8", "--select=SFX", "--staticfx-torch-version", "latest", "model.py", cwd=str(tmp_path))
    assert bad.returncode != 0 and "latest" in bad.stderr


def test_version_explain_report_and_check_name_the_release():
    assert "answers for torch" in _run("-m", "flake8_staticfx", "--version").stdout
    path = os.path.join(CASES, "ver_moved_breaks.py")
    common = ("--isolated", "--staticfx-torch-version", "2.14")
    explained = _run("-m", "flake8_staticfx", "explain", path, "--root", "BestOutput", *common).stdout
    assert explained.startswith("Answers for torch 2.14 (--staticfx-torch-version 2.14)")
    assert "GB5687: min/max with non-constant key" in explained
    report = _run("-m", "flake8_staticfx", "report", path, *common).stdout
    assert report.rstrip().endswith("for torch 2.14")
    rows = json.loads(_run("-m", "flake8_staticfx", "check", path, "--format", "json", *common).stdout)
    assert {row["torch"] for row in rows} == {"2.14"}
    sarif = json.loads(_run("-m", "flake8_staticfx", "check", path, "--format", "sarif", *common).stdout)
    assert sarif["runs"][0]["properties"]["torch"] == ["2.14"]


def test_2_15_resumes_after_each_rnn_call_and_traces_torch_assert():
    old, new = _messages("cfg_stacked_recurrent.py", "2.14"), _messages("cfg_stacked_recurrent.py", "2.15")
    assert "(GB0014, torch 2.13-2.14); rest of `forward` runs eagerly" in old[21]
    assert old[22].endswith("(reached once line 21 no longer breaks)")  # a to-do item, no break now
    assert "(GB0148, torch 2.15 only)" in new[21] and "(GB0148, torch 2.15 only)" in new[22]
    assert _messages("assert_detection_ops.py", "2.15") == {}
    assert "(GB0033, torch 2.13-2.14)" in _messages("assert_detection_ops.py", "2.14")[15]


def test_a_project_with_torch_2_14_installed_gets_2_14_answers(tmp_path):
    """No option: the torch of the environment the code runs in decides (found on the library
    search path; here a venv's site-packages given by --staticfx-library-path)."""
    model = tmp_path / "model.py"
    model.write_text(open(os.path.join(CASES, "ver_moved_breaks.py"), encoding="utf-8").read())
    site_packages = _site_packages(tmp_path, "2.14.1+cu130")
    out = _run("-m", "flake8", "--select=SFX", "--isolated", f"--staticfx-library-path={site_packages}",
               "model.py", cwd=str(tmp_path)).stdout
    assert "(GB5687, torch 2.14+)" in out and "torch 2.13 only" not in out
    explained = _run("-m", "flake8_staticfx", "explain", "model.py", "--isolated",
                     f"--staticfx-library-path={site_packages}", cwd=str(tmp_path)).stdout
    assert explained.startswith("Answers for torch 2.14 (installed: 2.14.1)")
