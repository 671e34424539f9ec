"""Which codes are reported, and which lines are silenced: flake8's rules, reproduced.

`check` must report exactly what `flake8` reports for the same configuration, so this follows
flake8 7's DecisionEngine (style_guide.py: explicit and implicit select/ignore, the longest
prefix wins when a code is in both) and its `# noqa` handling (defaults.NOQA_INLINE_REGEXP,
processor._noqa_line_mapping: a multi-line token such as a docstring shares its noqa comment
with every line it spans; `# flake8: noqa` alone on a line skips the file). flake8 is MIT
licensed; the logic is re-expressed here so that `check` does not need flake8 to run.
"""
from __future__ import annotations

import re
import tokenize
from typing import Iterable, Sequence

from ..config import split_list
from ..rules import OFF_BY_DEFAULT, RULES

# flake8 selects the codes of its registered plugins by default (extended_default_select):
# for what check reports, this plugin's prefix and pycodestyle's E (E999).
DEFAULT_SELECT = ("SFX", "E")
DEFAULT_IGNORE = ("E121", "E123", "E126", "E226", "E24", "E704", "W503", "W504")
NOQA_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.I)
# What flake8 accepts in select/ignore (flake8.defaults.VALID_CODE_PREFIX); it refuses the rest.
VALID_CODE = re.compile(r"^[A-Z]{1,3}[0-9]{0,3}$", re.ASCII)
PLUGIN_PREFIX = "SFX"


def unknown_codes(codes: Iterable[str]) -> list[str]:
    """The codes that can match nothing: not shaped like a code (flake8 refuses them too), or
    of this plugin's family and the prefix of no rule (a typo: SFX999). Other tools' codes
    (E501, W503) are theirs to check: the [flake8] section is shared."""
    return [code for code in codes if not VALID_CODE.match(code)
            or code.startswith(PLUGIN_PREFIX) and not any(known.startswith(code) for known in RULES)]


def _sorted(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(items, reverse=True))


class Selection:
    """flake8's select / ignore / extend-select / extend-ignore decision for one code."""

    def __init__(self, select: Sequence[str] | None = None, ignore: Sequence[str] | None = None,
                 extend_select: Sequence[str] = (), extend_ignore: Sequence[str] = ()):
        self.selected_explicitly = _sorted([*(select or ()), *extend_select])
        self.ignored_explicitly = _sorted([*(ignore or ()), *extend_ignore])
        self.selected = _sorted([*select, *extend_select] if select is not None
                                else [*DEFAULT_SELECT, *extend_select])
        self.ignored = _sorted([*ignore, *extend_ignore] if ignore is not None
                               else [*DEFAULT_IGNORE, *OFF_BY_DEFAULT, *extend_ignore])
        self._cache: dict[str, bool] = {}

    def reports(self, code: str) -> bool:
        if code not in self._cache:
            self._cache[code] = self._decide(code)
        return self._cache[code]

    def _decide(self, code: str) -> bool:
        if code.startswith(self.selected_explicitly):
            selected = "explicit"
        elif code.startswith(self.selected):
            selected = "implicit"
        else:
            selected = None
        if code.startswith(self.ignored_explicitly):
            ignored = "explicit"
        elif code.startswith(self.ignored):
            ignored = "implicit"
        else:
            ignored = None
        if selected and not ignored:
            return True
        if not selected and ignored:
            return False
        if selected == "explicit" and ignored != "explicit":
            return True
        if selected != "explicit" and ignored == "explicit":
            return False
        if not selected and not ignored:
            return False
        # in both lists the same way: the longest prefix wins
        select = next((s for s in self.selected if code.startswith(s)), "")
        ignore = next(s for s in self.ignored if code.startswith(s))
        return len(select) > len(ignore)


def noqa_lines(lines: list[str]) -> dict[int, str]:
    """Line number -> the text searched for `# noqa` (flake8's _noqa_line_mapping)."""
    mapping: dict[int, str] = {}
    try:
        tokens = list(tokenize.generate_tokens(iter(lines).__next__))
    except (tokenize.TokenError, SyntaxError, StopIteration):
        return {}
    first, last = len(lines) + 2, -1
    for kind, _, (start, _), (end, _), _ in tokens:
        if kind in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        first, last = min(first, start), max(last, end)
        if kind in (tokenize.NL, tokenize.NEWLINE):
            joined = "".join(lines[first - 1:last])
            mapping.update(dict.fromkeys(range(first, last + 1), joined))
            first, last = len(lines) + 2, -1
    return mapping


def silenced(code: str, line: str | None) -> bool:
    """Does `# noqa` (blanket, or naming the code or a prefix of it) silence `code` on `line`?"""
    match = NOQA_INLINE.search(line or "")
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    named = set(split_list(codes))
    return code in named or code.startswith(tuple(named))


def file_is_skipped(lines: list[str]) -> bool:
    """`# flake8: noqa` on a line of its own skips the whole file, as in flake8."""
    return any(NOQA_FILE.match(line) for line in lines)


# -- per-file-ignores ------------------------------------------------------------------------
# flake8's utils.parse_files_to_codes_mapping: `pattern[, pattern]: CODE[, CODE] ...`, with
# commas or whitespace between items.

_MAPPING_TOKENS = (
    (re.compile(r"[A-Z]+[0-9]*(?=$|\s|,)"), "code"),
    (re.compile(r"[^\s:,]+"), "file"),
    (re.compile(r"\s*:\s*"), "colon"),
    (re.compile(r"\s*,\s*"), "comma"),
    (re.compile(r"\s+"), "ws"),
)


def parse_per_file_ignores(value: str) -> list[tuple[str, list[str]]]:
    """[(file pattern, codes)]; ValueError for a value flake8 would reject."""
    tokens = []
    i = 0
    while i < len(value):
        for regex, kind in _MAPPING_TOKENS:
            match = regex.match(value, i)
            if match:
                tokens.append((kind, match.group().strip()))
                i = match.end()
                break
    tokens.append(("eof", ""))
    found: list[tuple[str, list[str]]] = []
    if not value.strip():
        return found
    seen_sep, seen_colon = True, False
    filenames: list[str] = []
    codes: list[str] = []

    def reset() -> None:
        found.extend((name, codes) for name in filenames if codes)

    for kind, text in tokens:
        if kind in ("comma", "ws"):
            seen_sep = True
        elif not seen_colon:
            if kind == "colon":
                seen_colon = seen_sep = True
            elif seen_sep and kind == "file":
                filenames.append(text)
                seen_sep = False
            else:
                raise ValueError(f"per-file-ignores is not a mapping of file patterns to codes: {value.strip()!r}")
        elif kind == "eof":
            reset()
        elif seen_sep and kind == "code":
            codes.append(text)
            seen_sep = False
        elif seen_sep and kind == "file":
            reset()
            seen_sep, seen_colon, filenames, codes = False, False, [text], []
        else:
            raise ValueError(f"per-file-ignores is not a mapping of file patterns to codes: {value.strip()!r}")
    unknown = unknown_codes(code for _, codes in found for code in codes)
    if unknown:
        raise ValueError(f"per-file-ignores: unknown code {', '.join(unknown)}")
    return found
