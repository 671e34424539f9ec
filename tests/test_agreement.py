"""One answer everywhere: `graph`, `report`, `explain` and the flake8 plugin give every root of
tests/cases the same break lines and the same graph count, each command run as the user runs it
(its own options and defaults, `--view` named), in-process for speed."""
from __future__ import annotations

import contextlib
import io
import json
import os
from collections import Counter

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front import cli
from flake8_staticfx.front.plugin import diagnose

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
FILES = sorted(name for name in os.listdir(CASES) if name.endswith(".py") and name != "__init__.py")


def _run(*argv: str):
    """The command's JSON output, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main([*argv, "--isolated"])
    assert status == 0, argv
    return json.loads(out.getvalue())


def _commands(path: str, view: str) -> list[dict]:
    """Per root: its name, graph count, break sites (line, code) and waiting sites, as each
    command gives them."""
    graph = _run("graph", path, "--format", "json", "--view", view)["graphs"]
    report = _run("report", path, "--format", "json", "--view", view)
    explain = _run("explain", path, "--format", "json", "--view", view)
    assert [g["name"] for g in graph] == [e["root"] for e in explain] \
        == [f"{r['class']}.{r['root']}" if r["class"] else r["root"] for r in report]
    roots = []
    for g, r, e in zip(graph, report, explain):
        sites = {(region["line"], region["code"]) for region in g["regions"]}
        assert g["predicted_graphs"] == r["graphs"] == e["graph_count"], (path, g["name"])
        assert sites == {(b["line"], b["code"]) for b in e["break_reasons"]}, (path, g["name"])
        assert r["breaks"] == dict(sorted(Counter(code for _, code in sites).items())), (path, g["name"])
        waiting = {(w["line"], w["code"]) for w in g["waiting"]}
        assert waiting == {(w["line"], w["code"]) for w in e["waiting"]}, (path, g["name"])
        roots.append({"root": g["name"], "sites": sites, "waiting": waiting})
    return roots


@pytest.mark.parametrize("name", FILES)
def test_graph_report_explain_and_the_plugin_agree(name):
    path = os.path.join(CASES, name)
    _commands(path, "instance")
    roots = _commands(path, "lint")
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    found = [d for d in diagnose(source, path, None, Options()) if d.code[3] in "1234"]
    sites = {site for root in roots for site in root["sites"]}
    # The plugin also reports at this file's lines the breaks only the roots of the files
    # importing it reach (reach.py); `graph`/`report`/`explain` show those under those roots.
    reached = {(r.line, r.code) for r in analyze(source, path, options=Options()).reached} - sites
    assert {(d.line, d.code) for d in found if d.waits_on is None} - reached == sites
    waiting = {site for root in roots for site in root["waiting"]} - sites
    assert {(d.line, d.code) for d in found if d.waits_on is not None} == waiting
