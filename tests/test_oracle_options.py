"""The linter's dynamo-setting options against truth recorded with those settings (torch 2.13.0).

For each setting, a few case files whose breaks depend on it are re-recorded with
tests/oracle/record_truth.py (``--config NAME=VALUE`` / ``--fullgraph``) into a temporary
directory, the real flake8 runs with the matching ``--staticfx-*`` option over the same files,
and the two are compared line by line with tests/oracle/scoring.py (the helpers of
tests/test_accuracy.py): no false alarm (a diagnostic on a line that ran and is on no break's
stack) and no miss (a break site without a diagnostic on its statement).

Under ``fullgraph=True`` dynamo raises at the first break instead of logging it; the recorder
stores that as a break of kind ``"error"`` and scoring treats it like any other break. The
files chosen for it have at most one break per case, so nothing the linter reports after the
first break goes unjudged. (scoring marks the rest of the function "without a verdict" only
for logged frame skips, not for a raise.)

``torch._dynamo.config.ignore_logger_methods`` (the mirror of
``--staticfx-ignore-logging-functions``) is a set of callables: the recorder takes it as a set
of dotted names, ``--config "ignore_logger_methods={logging.Logger.info}"``, and its worker
resolves them to the methods.
"""
import json
import os
import subprocess
import sys
import tempfile

import progress
import pytest

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CASES = os.path.join(HERE, "cases")
RECORDER = os.path.join(HERE, "oracle", "record_truth.py")
sys.path.insert(0, os.path.join(HERE, "oracle"))

import record_truth  # noqa: E402
import scoring  # noqa: E402

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(not torch.__version__.startswith("2.13.0"),
                       reason="the linter is calibrated on torch 2.13.0"),
]

# setting id -> (recorder arguments, flake8 arguments, case files).
# Each file has one or two fast cases; together they exercise .item()/float()/bool() on a
# tensor (SFX102), boolean-mask indexing and torch.nonzero (dynamic output shape) and a
# logger call (a break no capture setting silences: under fullgraph it is the raise).
SETTINGS = {
    "capture_scalar_outputs": (
        ["--config", "capture_scalar_outputs=True"],
        ["--staticfx-capture-scalar-outputs"],
        ["moe_router.py", "param_scalar.py", "cache_key.py", "cfg_option_settings_first.py"],
    ),
    "capture_dynamic_output_shape_ops": (
        ["--config", "capture_dynamic_output_shape_ops=True"],
        ["--staticfx-capture-dynamic-output-shape-ops"],
        ["mlm_head.py", "query_selector.py"],
    ),
    "ignore_logger_methods": (
        ["--config", "ignore_logger_methods={logging.Logger.info}"],
        ["--staticfx-ignore-logging-functions=logging.Logger.info"],
        ["trunk_logging.py", "eager_diagnostics.py", "cfg_option_settings_first.py"],
    ),
    "fullgraph": (
        ["--fullgraph"],
        ["--staticfx-fullgraph"],
        ["moe_router.py", "mlm_head.py", "trunk_logging.py"],
    ),
}


def record(config, recorder_args, files, out_path):
    # Each case runs torch.compile in a fresh interpreter; the recorder reports each on stderr.
    proc = progress.run(config, [sys.executable, RECORDER, "-j", "2", "--timeout", "120", "-o", out_path,
                                 *recorder_args, *files], cwd=REPO)
    assert proc.returncode == 0 and os.path.exists(out_path), (
        f"record_truth failed (rc={proc.returncode}), its stderr is above:\n{proc.stdout[-5000:]}")
    with open(out_path, encoding="utf-8") as handle:
        return json.load(handle)


def lint(flake8_args, files):
    cmd = [sys.executable, "-m", "flake8", "--select=SFX", "--isolated", *flake8_args,
           *(os.path.relpath(os.path.join(CASES, name), REPO) for name in files)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    assert proc.returncode in (0, 1) and not proc.stderr.strip(), \
        f"flake8 failed (rc={proc.returncode}):\n{proc.stderr}"
    return proc.stdout


def table(document, diagnostics, files):
    """One row per break (truth) and per diagnostic (linter), by file and line."""
    rows = []
    for name in files:
        for case in document["files"][name]["cases"]:
            for brk in case.get("breaks", []):
                rows.append((brk.get("file") or "?", brk.get("line") or 0,
                             f"TRUTH  {case.get('name')}: {brk.get('kind')} {brk.get('gb')} "
                             f"{(brk.get('title') or '')[:60]}"
                             + (" [frame skipped]" if brk.get("frame_skipped") else "")))
            if case.get("compile_error"):
                rows.append((name, 0, f"TRUTH  {case.get('name')}: compile_error {case['compile_error']}"))
        for line, codes in sorted(diagnostics.get(name, {}).items()):
            for code in codes:
                rows.append((name, line, f"LINTER {code[:90]}"))
    return "\n".join(f"  {f}:{line:<4d} {text}" for f, line, text in sorted(rows))


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_linter_option_matches_dynamo_setting(setting, request):
    recorder_args, flake8_args, files = SETTINGS[setting]
    with tempfile.TemporaryDirectory(prefix="sfx_options_") as tmp:
        document = record(request.config, recorder_args, files, os.path.join(tmp, "truth.json"))
    assert sorted(document["files"]) == sorted(files)
    if setting == "fullgraph":
        assert document["fullgraph"] is True
    else:
        key, _, value = recorder_args[1].partition("=")
        assert document["config"] == {key: record_truth.parse_config_value(value)}

    found = scoring.parse_diagnostics(lint(flake8_args, files), CASES)
    diagnostics = {name: lines for name, lines in found.items() if name in files}
    report = scoring.score(document, diagnostics, CASES)
    text = (f"setting {setting}: recorder {' '.join(recorder_args)}, flake8 {' '.join(flake8_args)}\n"
            f"{table(document, diagnostics, files)}\n{report.render(verbose=True)}")
    print(text)

    assert not report.errors, text
    # The setting must matter on these files, on both sides (else the test proves nothing):
    # dynamo's break sites differ from tests/cases/truth.json, and the linter's lines differ
    # from its default run.
    with open(os.path.join(CASES, "truth.json"), encoding="utf-8") as handle:
        default = json.load(handle)
    default = dict(default, files={name: default["files"][name] for name in files})
    assert set(scoring.load_truth(default, CASES).sites) != set(scoring.load_truth(document, CASES).sites), \
        f"{setting} changed no break site of {files}\n{text}"
    plain = scoring.parse_diagnostics(lint([], files), CASES)
    assert ({name: set(plain.get(name, {})) for name in files}
            != {name: set(diagnostics.get(name, {})) for name in files}), \
        f"{' '.join(flake8_args)} changed no diagnostic on {files}\n{text}"
    if setting == "fullgraph":
        # The first break raises: at most one break per case, and it is the raise.
        for name in files:
            for case in document["files"][name]["cases"]:
                kinds = [brk["kind"] for brk in case.get("breaks", [])]
                assert kinds in ([], ["error"]), f"{name}::{case.get('name')}: {kinds}\n{text}"
    assert not report.false_alarms, f"false alarms under {setting}\n{text}"
    assert not report.misses, f"missed breaks under {setting}\n{text}"
