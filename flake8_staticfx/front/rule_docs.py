"""`flake8-staticfx rule CODE`: a rule's documentation, from the rule table (as ruff's `rule`).

    flake8-staticfx rule SFX101 [--output-format text|json]
    flake8-staticfx rule --all

Everything printed comes from rules.RULES (and the forms `fix` rewrites), so it is right for the
installed version; the pages of docs/rules/ add worked examples.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..fix import REWRITTEN_FORMS
from ..messages import render
from ..rules import GB_DOCS, RULES, Rule
from .selection import unknown_codes

# The command-line flag of each dynamo setting that captures a construct instead of breaking.
FLAG_OF_SETTING = {
    "fullgraph": "--staticfx-fullgraph",
    "capture_scalar_outputs": "--staticfx-capture-scalar-outputs",
    "capture_dynamic_output_shape_ops": "--staticfx-capture-dynamic-output-shape-ops",
}
FLAG_OF_IGNORED_BY = {"ignore_logging_functions": "--staticfx-ignore-logging-functions"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", nargs="?", metavar="CODE", help="the rule's code (SFX101)")
    parser.add_argument("--all", action="store_true", help="every rule")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")


def documentation(rule: Rule) -> dict:
    """The rule's documentation as a record: what ruff's `rule --output-format json` gives, and
    what dynamo and `fix` do with it."""
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "message": render(rule, "…", rule.gb_ids[:1]),
        "gb_ids": [{"id": gb, "url": GB_DOCS.format(gb.lower())} for gb in rule.gb_ids],
        "workaround": rule.workaround,
        "enabled_by_default": rule.enabled_by_default,
        "not_reported_with": [FLAG_OF_SETTING.get(setting, setting) for setting in rule.captured_by]
        + ([FLAG_OF_IGNORED_BY.get(rule.ignored_by, rule.ignored_by)] if rule.ignored_by else []),
        "fix": REWRITTEN_FORMS.get(rule.code, ""),
        "page": f"docs/rules/{rule.code}.md",
    }


def render_text(doc: dict) -> str:
    lines = [f"{doc['code']} {doc['name']}: {doc['summary']}", "", f"Reported as: {doc['message']}"]
    if doc["gb_ids"]:
        lines.append("Dynamo graph-break ids: " + ", ".join(f"{gb['id']} ({gb['url']})" for gb in doc["gb_ids"]))
    lines.append(f"Workaround: {doc['workaround']}")
    if doc["not_reported_with"]:
        lines.append("Not reported with: " + ", ".join(doc["not_reported_with"]))
    if not doc["enabled_by_default"]:
        lines.append(f"Off by default: --extend-select={doc['code']} turns it on")
    lines.append(f"flake8-staticfx fix: {doc['fix'] or 'no rewrite; every occurrence is left to you'}")
    lines.append(f"Examples: {doc['page']} in the repository")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.all == (args.code is not None):
        print("error: give one CODE or --all", file=sys.stderr)
        return 2
    if args.all:
        rules = list(RULES.values())
    elif args.code in RULES:
        rules = [RULES[args.code]]
    else:
        kind = "unknown code" if unknown_codes([args.code]) else "not one rule's code (a prefix?)"
        print(f"error: {args.code}: {kind}; the codes are {', '.join(RULES)}", file=sys.stderr)
        return 2
    docs = [documentation(rule) for rule in rules]
    if args.output_format == "json":
        print(json.dumps(docs if args.all else docs[0], indent=2, ensure_ascii=False))
    else:
        sys.stdout.write("\n".join(render_text(doc) for doc in docs))
    return 0
