"""Output formats of `flake8-staticfx check`: concise (flake8's text), full (with the source line),
JSON, SARIF 2.1.0, GitHub annotations."""
from __future__ import annotations

import json
import linecache
import os
from collections import Counter
from pathlib import Path
from urllib.parse import quote
from typing import Callable, Sequence

from .. import __version__
from .lint import READ_ERROR, SYNTAX_ERROR, SYNTAX_ERROR_URL, Finding, display_path
from ..rules import RULES, Rule

TOOL_NAME = "flake8-staticfx"
GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_text(findings: Sequence[Finding]) -> str:
    """flake8's default format, `path:line:col: CODE message`."""
    return "".join(finding.text() + "\n" for finding in findings)


def render_full(findings: Sequence[Finding]) -> str:
    """ruff's full format: each finding, the source line under it with a caret at the column, and
    the page of its GB id."""
    blocks = []
    for finding in findings:
        block = [finding.text()]
        source = linecache.getline(finding.path, finding.line).rstrip("\r\n").replace("\t", " ")
        gutter = " " * len(str(finding.line))
        if source:
            block += [f"{gutter} |", f"{finding.line} | {source}", f"{gutter} | {' ' * (finding.col - 1)}^"]
        if finding.url:
            block.append(f"{gutter} = docs: {finding.url}")
        blocks.append("\n".join(block) + "\n")
    return "\n".join(blocks)


def render_json(findings: Sequence[Finding]) -> str:
    """A JSON array, one object per finding (one per line)."""
    rows = [json.dumps({"path": f.path, "line": f.line, "col": f.col, "code": f.code, "message": f.message,
                        "gb_ids": list(f.gb_ids), "url": f.url or None, "torch": f.torch or None,
                        "condition": f.condition or None, "waits_on": f.waits_on})
            for f in findings]
    return "[\n" + ",\n".join(rows) + ("\n" if rows else "") + "]\n"


# -- SARIF --------------------------------------------------------------------------------

def _short_description(rule: Rule) -> str:
    return rule.summary


def _sarif_rules() -> list[dict]:
    rules = []
    for code, rule in RULES.items():
        rules.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": _short_description(rule)},
            "fullDescription": {"text": f"{_short_description(rule)}: {rule.workaround}"},
            "helpUri": rule.docs_url or GB_SITE,
            "help": {"text": rule.workaround},
            "properties": {"gb_ids": list(rule.gb_ids)},
            "defaultConfiguration": {"level": "warning" if rule.enabled_by_default else "note"},
        })
    rules.append({
        "id": SYNTAX_ERROR, "name": "syntax-error",
        "shortDescription": {"text": "the file does not parse, so it was not linted"},
        "helpUri": SYNTAX_ERROR_URL, "defaultConfiguration": {"level": "error"},
    })
    rules.append({
        "id": READ_ERROR, "name": "unreadable-file",
        "shortDescription": {"text": "the file cannot be read, so it was not linted"},
        "helpUri": SYNTAX_ERROR_URL.replace("#SyntaxError", "#OSError"), "defaultConfiguration": {"level": "error"},
    })
    return rules


def _artifact(path: str) -> dict:
    """A path relative to the checkout (the current directory), or a file: URI outside it."""
    shown = display_path(path)
    if os.path.isabs(shown):
        return {"uri": Path(shown).as_uri()}
    return {"uri": quote(shown), "uriBaseId": "%SRCROOT%"}


def render_sarif(findings: Sequence[Finding]) -> str:
    rules = _sarif_rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for finding in findings:
        if finding.code not in index:  # a code from a newer rules table than ours: still reported
            index[finding.code] = len(rules)
            rules.append({"id": finding.code, "name": finding.code, "helpUri": finding.url or GB_SITE,
                          "shortDescription": {"text": finding.code}})
        results.append({
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": "error" if finding.is_error else "warning",
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact(finding.path),
                "region": {"startLine": finding.line, "startColumn": finding.col},
            }}],
            **({"properties": {"gb_ids": list(finding.gb_ids), "torch": finding.torch,
                               **({"condition": finding.condition} if finding.condition else {}),
                               **({"waits_on": finding.waits_on} if finding.waits_on is not None else {})}}
               if finding.gb_ids else {}),
        })
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            # no informationUri: the package has no page of its own (it is not on PyPI)
            "tool": {"driver": {"name": TOOL_NAME, "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "columnKind": "unicodeCodePoints",
            # The torch releases the answers are for (torch_versions.resolve), one per project linted.
            "properties": {"torch": sorted({f.torch for f in findings if f.torch})},
            "results": results,
        }],
    }
    return json.dumps(sarif, indent=2) + "\n"


# -- GitHub workflow commands -------------------------------------------------------------

def escape_data(text: str) -> str:
    """The message of a workflow command (actions/toolkit's escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value of a workflow command (actions/toolkit's escapeProperty)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: Sequence[Finding]) -> str:
    """`::warning file=PATH,line=L,col=C,title=CODE::message`, one line per finding."""
    lines = []
    for finding in findings:
        kind = "error" if finding.is_error else "warning"
        properties = ",".join(f"{key}={escape_property(str(value))}" for key, value in (
            ("file", display_path(finding.path)), ("line", finding.line), ("col", finding.col),
            ("title", finding.code)))
        lines.append(f"::{kind} {properties}::{escape_data(finding.message)}\n")
    return "".join(lines)


FORMATS: dict[str, Callable[[Sequence[Finding]], str]] = {
    "concise": render_text, "full": render_full, "json": render_json, "sarif": render_sarif, "github": render_github,
}


def statistics(findings: Sequence[Finding]) -> str:
    """flake8's --statistics: per code, the count and the first message."""
    counts = Counter(f.code for f in findings)
    first: dict[str, str] = {}
    for finding in findings:
        first.setdefault(finding.code, finding.message)
    return "".join(f"{counts[code]:<5} {code} {first[code]}\n" for code in sorted(counts))


__all__ = ["FORMATS", "statistics", "escape_data", "escape_property", "READ_ERROR"]
