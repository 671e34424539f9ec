"""Rewrite: turn on the dynamo setting that captures the breaks no local rewrite removes."""
from __future__ import annotations

from dataclasses import replace

from ..config import Options
from ..rules import RULES
from .base import Outcome

# The settings fix may add, in the order it tries them.
CAPTURE_SETTINGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")
SETTING_LINE = "torch._dynamo.config.{} = True  # flake8-staticfx fix, process-wide: {}\n"
WHAT_IT_DOES = {
    "capture_scalar_outputs": "trace .item() symbolically",
    "capture_dynamic_output_shape_ops": "trace x[mask], nonzero",
}


def captured_by(code: str) -> str | None:
    """The capture setting that removes a break of this code, if one does."""
    rule = RULES.get(code)
    return next((s for s in CAPTURE_SETTINGS if rule is not None and s in rule.captured_by), None)


def plan_captures(source: str, path: str, options: Options | None, analysis, declined: list[Outcome],
                  select: tuple[str, ...] | None) -> tuple[list[str], list[Outcome]]:
    """The settings to add at the top of the module and the outcomes of the declined breaks
    they remove.

    `torch._dynamo.config.capture_scalar_outputs = True` makes dynamo 2.13 trace `.item()`,
    `int(t)` and a tensor used as a size as an unbacked symbolic integer (a float one as a
    symbolic float), and `capture_dynamic_output_shape_ops = True` traces nonzero, `x[mask]`,
    unique and their like with an unbacked size: the eager code runs unchanged, so its outputs
    are the same; the setting is process-wide, which the added line says. A setting is added
    only where the analysis, run again with it on, finds at least one of the declined breaks
    gone and no break (of any code) it did not find before: a symbolic value that reaches an
    `if` or a Python call breaks there instead, and then nothing is added.
    """
    settings: list[str] = []
    removed: list[Outcome] = []
    current = options or Options()
    found = _regions(analysis, select)
    for setting in CAPTURE_SETTINGS:
        candidates = [o for o in declined if captured_by(o.code) == setting]
        if not candidates or current.captures(setting):
            continue
        from ..analysis import analyze

        trial = replace(current, **{setting: True})
        after = _regions(analyze(source, path, options=trial), select)
        if after - found:
            continue
        gone = [o for o in candidates if (o.code, o.line, o.col) not in after]
        if gone:
            settings.append(setting)
            current, found = trial, after
            removed += [replace(o, rewrite="capture-setting", reason=None,
                                summary=f"torch._dynamo.config.{setting} = True added at the top of the module "
                                        f"(process-wide): {WHAT_IT_DOES[setting]}") for o in gone]
    return settings, removed


def _regions(analysis, select) -> set[tuple[str, int, int]]:
    return {(r.code, r.line, r.col) for graph in analysis.graphs for r in graph.regions
            if not select or r.code.startswith(select)}


def setting_line(setting: str) -> str:
    return SETTING_LINE.format(setting, WHAT_IT_DOES[setting]).rstrip("\n")


def add_module_lines(cst, module, lines: list[str]):
    """The statements `lines` after the module's last top-level import."""
    body = list(module.body)
    imports = [i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
               and any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in s.body)]
    at = imports[-1] + 1 if imports else 0
    statements = [cst.parse_statement(line + "\n") for line in lines]
    if statements:
        statements[0] = statements[0].with_changes(leading_lines=[cst.EmptyLine()])
    body[at:at] = statements
    return module.with_changes(body=body)
