"""Smoke test of benchmarks/library_oracle_setup.sh: skipped unless STATICFX_ORACLE_VENV is set.

The library oracle's venv holds transformers, diffusers, timm and a patched torchvision, which CI
must not install; so this test only runs by hand, on a venv the setup script made (or makes):

    STATICFX_ORACLE_VENV=.oracle/venv .venv/bin/python -m pytest tests/test_library_oracle_setup.py
"""
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("STATICFX_ORACLE_VENV")

pytestmark = pytest.mark.skipif(not VENV, reason="set STATICFX_ORACLE_VENV to the library oracle's venv")


def test_setup_is_idempotent_and_the_libraries_import():
    venv = os.path.abspath(VENV)
    script = os.path.join(REPO, "benchmarks", "library_oracle_setup.sh")
    subprocess.run(["bash", script, venv], check=True, capture_output=True, text=True)
    # a second run finds the patch in place and changes nothing
    p = subprocess.run(["bash", script, venv], check=True, capture_output=True, text=True)
    assert "torchvision patch: already applied" in p.stdout, p.stdout
    py = os.path.join(venv, "bin", "python")
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import library_oracle as o; "
            "assert not o.check_versions(), o.check_versions(); "
            "import torchvision, timm; "
            "timm.create_model('resnet18', pretrained=False, layers=[1, 1, 1, 1], num_classes=3); "
            "print(torchvision.extension._has_ops())")
    out = subprocess.run([py, "-c", code], cwd=REPO, check=True, capture_output=True, text=True)
    assert out.stdout.strip() in ("True", "False")
