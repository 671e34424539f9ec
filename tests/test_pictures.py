"""Pictures of the graphs: `--format html` (self-contained) and `--format svg` (Graphviz)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "transformer_block.py"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def graph(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def test_html_is_self_contained_with_a_drawing_and_the_breaks():
    result = graph(str(EXAMPLE), "--format", "html")
    assert result.returncode == 0, result.stderr
    page = result.stdout
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)=["']https?:""", page), "the page must not load anything"
    roots = re.findall(r"<h2>([^<]+)</h2>", page)
    assert "TransformerBlock.forward" in roots
    assert page.count("<svg") == len(roots)  # one drawing per root
    # each break region: its code, its line of code, its reason and its workaround
    assert "SFX102" in page and "SFX202" in page
    assert "x.abs().max().item()" in page
    assert "Workaround:" in page
    assert re.search(r"graphs predicted</td><td>\d+", page)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_html_renders_in_headless_chromium(tmp_path):
    page = tmp_path / "graph.html"
    page.write_text(graph(str(EXAMPLE), "--format", "html").stdout, encoding="utf-8")
    shot = tmp_path / "graph.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000  # a real picture, not a blank page


def test_svg_through_graphviz_or_a_clear_message():
    result = graph(str(EXAMPLE), "--format", "svg")
    if shutil.which("dot"):
        assert result.returncode == 0, result.stderr
        assert "<svg" in result.stdout and "TransformerBlock.forward" in result.stdout
    else:
        assert result.returncode == 2
        assert "Graphviz" in result.stderr and "--format html" in result.stderr
