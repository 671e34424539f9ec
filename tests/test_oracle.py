"""Re-record the dynamo truth with torch 2.13.0 and compare it with tests/cases/truth.json."""
import os
import sys

import progress
import pytest

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDER = os.path.join(HERE, "oracle", "record_truth.py")


@pytest.mark.oracle
@pytest.mark.skipif(not torch.__version__.startswith("2.13.0"), reason="the truth was recorded with torch 2.13.0")
def test_recorded_truth_is_current(request):
    # About ten minutes: the recorder reports each case on stderr, streamed to the terminal.
    proc = progress.run(request.config, [sys.executable, RECORDER, "--check", "-j", "2"], cwd=os.path.dirname(HERE))
    assert proc.returncode == 0, f"truth.json is stale:\n{proc.stdout[-20000:]}"
