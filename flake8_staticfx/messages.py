"""The one message formatter: every diagnostic and notice, in one shape, within 160 characters.

    SFX102 tensor converted to a Python number: `x.abs().max().item()` (GB0124); keep it a 0-d tensor

A message is the code, the rule's summary (the same words for every occurrence of the code,
so that `flake8 --statistics` shows a summary of the code), the construct as written, where it
is when it is in another file than the one linted, the graph-break id(s) of this occurrence,
what dynamo runs eagerly when it cannot resume, and the rule's short fix. The construct is
shortened to keep the whole message within LIMIT characters (what flake8 prints after
`path:line:col: `).
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from .discover.projects import project_root
from .ir import AUTOCAST, CONFIGURED, DEVICE, FLOAT_DTYPE, GRAD_ENABLED, INPUT_GIVEN, NOT_EMPTY, TRAINING, Condition
from .rules import Rule

LIMIT = 160
ELLIPSIS = "..."
MIN_WHAT = 20  # shorter than this, the construct is unrecognisable: drop other parts first
FIX_HINT = "`flake8-staticfx fix` does it"  # after the short fix, on occurrences the fix command rewrites
# The end of a to-do item's message: a break dynamo reaches once the earlier one is fixed.
WAITING = "(reached once line {} no longer breaks)"


@dataclass(frozen=True)
class Site:
    """Where a construct reached through a call sits in another file."""

    function: str
    path: str  # as displayed: relative to its project root (see display_path)
    line: int

    def text(self, with_function: bool = True) -> str:
        where = f"at {self.path}:{self.line}"
        return f"in `{self.function}` {where}" if with_function and self.function else where


@functools.lru_cache(maxsize=256)
def display_path(path: str) -> str:
    """`path` relative to its project root (the directory above its top package, as
    discover.project_root finds it): `pkg/sub/deep/utils.py`, which an editor opened on the
    project can jump to. For an installed library the root is site-packages, so the path
    starts with the library's package: `transformers/models/bert/modeling_bert.py`."""
    root, _ = project_root(path)
    relative = os.path.relpath(os.path.abspath(path), root)
    return relative.replace(os.sep, "/")


def shorten(text: str, width: int) -> str:
    """`text` cut to at most `width` characters, the cut marked with an ellipsis."""
    if len(text) <= width:
        return text
    if width <= len(ELLIPSIS):
        return ELLIPSIS[:max(width, 0)]
    return text[:width - len(ELLIPSIS)].rstrip() + ELLIPSIS


def impact(frame_skipped: str | None, skip_context: str | None, rest: bool = False,
           fails_compile: bool = False) -> str:
    """What a break costs beyond the split, in a few words ('' when dynamo resumes). Under
    fullgraph=True there is no split: the compile fails at the first break."""
    if fails_compile:
        return "fullgraph=True: the compile fails here"
    if not frame_skipped:
        return ""
    if rest:
        return f"rest of `{frame_skipped}` runs eagerly"
    where = f"in {skip_context}, " if skip_context else ""
    return f"{where}whole `{frame_skipped}` runs eagerly"


# Each kind of condition in words, when it holds and when it does not ({} is its subject).
CONDITION_WORDS = {
    TRAINING: ("when training", "in eval mode"),
    GRAD_ENABLED: ("with grad enabled", "with grad disabled"),
    INPUT_GIVEN: ("when `{}` is given", "when `{}` is None"),
    FLOAT_DTYPE: ("in {}", "not in {}"),
    AUTOCAST: ("under autocast", "without autocast"),
    DEVICE: ("on {}", "not on {}"),
    NOT_EMPTY: ("when `{}` is not empty", "when `{}` is empty"),
}


# A flag's other value, for `with debug=True` rather than `with debug other than False`.
FLIPPED = {"False": "True", "True": "False", "None": "given"}


def condition_label(conditions: tuple[Condition, ...]) -> str:
    """When a break happens, in a few words (`when training and when `mask` is given`); '' when
    it happens however the model is run."""
    return " and ".join(condition_words(c) for c in conditions)


def condition_words(condition: Condition) -> str:
    if condition.kind != CONFIGURED:
        return CONDITION_WORDS[condition.kind][0 if condition.holds else 1].format(condition.subject)
    if not condition.holds:
        return f"with {condition.subject}={condition.default}"
    if condition.default in FLIPPED:
        return f"with {condition.subject}={FLIPPED[condition.default]}"
    return f"with {condition.subject} other than {condition.default}"


def describe(rule: Rule, what: str, site: Site | None = None) -> str:
    """The summary and the construct, unshortened: a region's `reason` for the graph CLI and JSON."""
    located = f" {site.text()}" if site else ""
    return f"{rule.summary}: `{what}`{located}"


def render(rule: Rule, what: str, gb_ids: tuple[str, ...] = (), *, frame_skipped: str | None = None,
           skip_context: str | None = None, skips_rest: bool = False, site: Site | None = None,
           fails_compile: bool = False, fixable: bool = False, versions: str = "",
           conditions: tuple[Condition, ...] = (), waits_on: int | None = None, fix: str = "",
           limit: int = LIMIT) -> str:
    """The flake8 message of one occurrence, code first, at most `limit` characters.

    The construct is shortened to fit. When it would be cut below MIN_WHAT characters, the
    other parts give way first, in this order: the calling function's name, why dynamo cannot
    resume, FIX_HINT (on an occurrence the fix command rewrites), those two again, the fix,
    which function runs eagerly. The code, summary, location, GB ids, the torch releases
    that break so (`versions`, when not every modeled one does) and when it breaks
    (`conditions`, when not however the model is run) stay, and the line a to-do item waits on
    (`waits_on`: WAITING, at the end).
    """
    gb = f" ({', '.join(filter(None, ('/'.join(gb_ids), versions)))})" if gb_ids or versions else ""
    gb += f" {condition_label(conditions)}" if conditions else ""
    full = site.text() if site else ""
    bare = site.text(with_function=False) if site else ""
    cost = impact(frame_skipped, skip_context, skips_rest, fails_compile)
    short_cost = impact(frame_skipped, None, skips_rest, fails_compile)
    fix = fix or rule.fix  # the advice for this form of the construct, else the rule's
    fixes = [f"{fix} ({FIX_HINT})", fix] if fixable else [fix]
    places = ((full, cost), (bare, cost), (bare, short_cost))
    variants = [*((located, why, fix) for fix in fixes for located, why in places),
                (bare, short_cost, ""), (bare, "", "")]
    head = f"{rule.code} {rule.summary}: `"
    waiting = f" {WAITING.format(waits_on)}" if waits_on is not None else ""
    for located, cost, fix in variants:
        tail = "`" + (f" {located}" if located else "") + gb + "".join(f"; {part}" for part in (cost, fix) if part) \
            + waiting
        room = limit - len(head) - len(tail)
        if room >= min(MIN_WHAT, len(what)):
            break
    return shorten(head + shorten(what, max(room, len(ELLIPSIS))) + tail, limit)


def recompile(rule: Rule, what: str, guard: str, costs: tuple[str, ...], limit: int = LIMIT,
              fix: str | None = None) -> str:
    """A recompile's message: the construct, the guard that fails, what it costs over the calls
    (`costs` from the fullest to the shortest: the first that leaves the construct room is used),
    the fix (`fix`: the one of the construct's form, else the rule's)."""
    fix = fix or rule.fix
    head = f"{rule.code} {rule.summary}: `"
    tails = [f"` (guard `{g}`); {cost}; {fix}" for cost in costs for g in (guard,)]
    tails += [f"`; {cost}; {fix}" for cost in costs[-1:]]
    for tail in tails:
        room = limit - len(head) - len(tail)
        if room >= min(MIN_WHAT, len(what)):
            break
    return shorten(head + shorten(what, max(room, len(ELLIPSIS))) + tail, limit)


def notice(rule: Rule, what: str, reason: str, limit: int = LIMIT) -> str:
    """An SFX900 notice: what was not analysed, and why (the reason shortened to fit)."""
    head = f"{rule.code} {rule.summary}: `{shorten(what, 60)}` ("
    return head + shorten(reason, limit - len(head) - 1) + ")"
