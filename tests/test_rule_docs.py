"""docs/rules/SFXnnn.md: one current page per code, with examples that do what they say."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import flake8_diagnostics
from flake8_staticfx.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gen_rule_docs", ROOT / "docs" / "gen_rule_docs.py")
gen = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("gen_rule_docs", gen)  # dataclasses look the module up
_spec.loader.exec_module(gen)


def _codes(source: str, tmp_path: Path, options: Options | None = None) -> list[str]:
    path = tmp_path / "model.py"
    path.write_text(source)
    notices = bool(options and options.report_notices)
    return [message.split()[0] for _, _, message in
            flake8_diagnostics(analyze(source, str(path), options=options), notices=notices)]


def test_every_code_has_a_page():
    assert set(gen.PAGES) == set(RULES)
    assert sorted(p.stem for p in gen.OUT.glob("SFX*.md")) == sorted(RULES)


def test_pages_are_up_to_date():
    assert gen.main(["--check"]) == 0, "run: python docs/gen_rule_docs.py --write"


@pytest.mark.parametrize("code", sorted(RULES))
def test_page_content(code):
    text = (gen.OUT / f"{code}.md").read_text()
    assert text.startswith(f"# {code} `{RULES[code].name}`")
    for heading in ("## What it does", "## Example", "## Fix", "## Not flagged"):
        assert heading in text
    for gb in RULES[code].gb_ids:
        assert f"https://meta-pytorch.github.io/compile-graph-break-site/gb/{gb.lower()}.html" in text


@pytest.mark.parametrize("code", sorted(RULES))
def test_example_triggers_exactly_its_code(code, tmp_path):
    example, _, _ = gen.examples(code)
    settings = {**gen.NOTICE_OPTIONS.get(code, {}), **gen.RELEASE_OPTIONS.get(code, {})}
    options = Options(**settings) if settings else None
    codes = _codes(example, tmp_path, options)
    assert codes and set(codes) == {code, *gen.PAGES[code].with_codes}, codes


@pytest.mark.parametrize("code", sorted(RULES))
def test_fixed_and_not_flagged_trigger_nothing(code, tmp_path):
    _, fixed, not_flagged = gen.examples(code)
    if code != "SFX900":
        assert fixed and not_flagged
    for source in (fixed, not_flagged):
        if source:
            assert _codes(source, tmp_path, Options(report_notices=True)) == []
