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
    # one drawing per group of nodes (the root's own code, each submodule it inlines), every root drawn
    assert page.count("<svg") == page.count('<details class="group"')
    sections = re.findall(r'<section id="(r\d+)">(.*?)</section>', page, re.S)
    assert len(sections) == len(roots) and all("<svg" in body for _, body in sections)
    # each break region: its code, its line of code, its reason and its workaround
    assert "SFX102" in page and "SFX202" in page
    assert "x.abs().max().item()" in page
    assert "Workaround:" in page
    assert re.search(r"graphs predicted</td><td>\d+", page)


UNET = ROOT / "tests" / "cases" / "gen_unet_resblock.py"
# The loop makes dynamo run `forward` eagerly; `scale`, called from it, is compiled as a frame
# of its own and meets its break on every call (measured: logged for both frames).
LOOP = """\
import torch
from torch import nn


def scale(x):
    return x * x.sum().item()


class Net(nn.Module):
    def forward(self, x):
        for _ in range(3):
            x = scale(x)
        return x
"""


def test_nodes_are_grouped_by_submodule_and_coloured_by_predicted_graph():
    page = graph(str(UNET), "--format", "html").stdout
    mid = re.search(r'<section id="r\d+"><h2>TinyUNetMidBlock.forward</h2>(.*?)</section>', page, re.S).group(1)
    groups = re.findall(r'<details class="group" open[^>]*><summary><b>([^<]+)</b>', mid)
    assert groups[0] == "TinyUNetMidBlock.forward (own code)"
    assert {"get_timestep_embedding", "time_embedding", "resnets"} <= set(groups)
    # a legend chip per predicted graph, and its colour on the nodes of that graph
    facts = int(re.search(r"(\d+) graph\(s\) predicted", mid).group(1))
    chips = re.findall(r'<span style="background:(#[0-9a-f]+)">graph \d+: ', mid)
    assert len(chips) == facts >= 1
    assert f'fill="{chips[0]}"' in mid


def test_a_break_met_once_per_iteration_is_one_card_with_its_count(tmp_path):
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.front.options import full_graph_options
    from flake8_staticfx.config import Options
    from flake8_staticfx.front.pictures import render_html

    path = tmp_path / "model.py"
    path.write_text(LOOP)
    page = render_html(analyze(LOOP, str(path), options=full_graph_options(Options())))  # as `graph` does
    cards = re.findall(r'<div class="region[^"]*" id="[^"]+" data-line="(\d+)" data-nodes="([^"]*)"', page)
    assert [line for line, _ in cards] == ["6"]
    assert '<span class="times">×3</span>' in page
    assert len(cards[0][1].split()) >= 3  # the card links to the nodes of all three iterations


def browser_dom(tmp_path, page: str, fragment: str) -> str:
    """The page's DOM after headless Chromium loaded it at `#fragment` (the page acts on it)."""
    path = tmp_path / "graph.html"
    path.write_text(page, encoding="utf-8")
    result = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                             "--no-first-run", "--disable-background-networking", "--disable-component-update",
                             "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000",
                             "--dump-dom", f"{path.as_uri()}#{fragment}"], capture_output=True, text=True, timeout=120)
    assert "</html>" in result.stdout, result.stderr[-2000:]
    return result.stdout


def ids_with_class(dom: str, name: str) -> set[str]:
    return {m.group(2) for m in re.finditer(r'class="([^"]*)" id="([^"]+)"', dom) if name in m.group(1).split()}


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_search_in_headless_chromium_finds_the_nodes(tmp_path):
    page = graph(str(UNET), "--format", "html").stdout
    matching = set(re.findall(r'<g class="node" id="([^"]+)" data-find="[^"]*conv1', page))
    assert matching and len(matching) < page.count('<g class="node"')
    dom = browser_dom(tmp_path, page, "search=conv1")
    assert ids_with_class(dom, "found") == matching
    assert f'<span id="found">{len(matching)} found' in dom
    # by line: the nodes the line made
    line = re.search(r'<g class="node" id="[^"]+" data-find="[^"]*conv1[^"]*" data-line="(\d+)"', page).group(1)
    on_line = set(re.findall(rf'<g class="node" id="([^"]+)" data-find="[^"]*" data-line="{line}"', page))
    assert ids_with_class(browser_dom(tmp_path, page, f"search=line {line}"), "found") == on_line


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_break_cards_and_source_lines_link_both_ways_in_headless_chromium(tmp_path):
    page = graph(str(EXAMPLE), "--format", "html").stdout
    card, line, nodes = re.search(r'<div class="region[^"]*" id="([^"]+)" data-line="(\d+)" data-nodes="([^"]*)"',
                                  page).groups()
    assert nodes  # the break's node is drawn
    # the card shows its source line and marks its nodes
    dom = browser_dom(tmp_path, page, f"click={card}")
    assert ids_with_class(dom, "current") == {f"L{line}"}
    assert ids_with_class(dom, "linked") == {card, *nodes.split()}
    # the source line shows its card
    dom = browser_dom(tmp_path, page, f"click=L{line}")
    assert card in ids_with_class(dom, "linked") and ids_with_class(dom, "current") == {f"L{line}"}


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_no_label_overflows_its_box_in_headless_chromium(tmp_path):
    llama_or_unet = graph(str(UNET), "--format", "html").stdout
    measure = """<script>
    const over = Array.from(document.querySelectorAll('.node')).filter((g) => {
      const box = g.querySelector('rect').getBBox();
      return Array.from(g.querySelectorAll('text')).some((t) => t.getBBox().x + t.getBBox().width > box.x + box.width);
    });
    document.body.insertAdjacentHTML('beforeend', '<p id="overflowing">' + over.map((g) => g.id).join(' ') + '</p>');
    </script></body>"""
    dom = browser_dom(tmp_path, llama_or_unet.replace("</body>", measure), "")
    assert '<p id="overflowing"></p>' in dom


def test_svg_through_graphviz_or_a_clear_message():
    result = graph(str(EXAMPLE), "--format", "svg")
    if shutil.which("dot"):
        assert result.returncode == 0, result.stderr
        assert "<svg" in result.stdout and "TransformerBlock.forward" in result.stdout
    else:
        assert result.returncode == 2
        assert "Graphviz" in result.stderr and "--format html" in result.stderr
