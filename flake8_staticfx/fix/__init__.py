"""`python -m flake8_staticfx fix PATH...`: rewrite the graph breaks it can prove removable.

The analysis (`analysis.analyze`) says where dynamo breaks: each region's code, line and column.
This module finds the construct at that place in the file's concrete syntax tree (LibCST, so
that formatting and comments outside the edit are kept byte for byte), decides on the tree
whether a rewrite keeps the model's eager outputs, and either edits it or declines with the
reason. Legality never depends on guessing: an expression counts as a tensor only where the
analysis traced a tensor operation at exactly its span.

Each rewrite is one class, in a module of its own (guard, assert_async, where, zero_dim,
equivalent, masked, capture); a code with several tries each, and reports the reason of the one
whose form the construct has (an OtherForm decline says it is not), then the capture setting's
own; a capture setting is decided for the whole file at the end of plan_file; its
docstring states the dynamo 2.13 behaviour it relies on (measured with torch 2.13.0,
`backend="eager"`, default configuration). The shared checks are in base.py.

libcst is imported only by the functions that need it (the flake8 plugin never imports it).
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import sys

from ..front.options import add_compile_options, command_options
from ..front.selection import unknown_codes
from ..front.sources import UnusableInput, python_files, read_python
from .assert_async import AssertAsync, AssertToAsync
from .base import Context, Decline, Edit, FileFix, OtherForm, Outcome, Rewrite, _if_at, tensor_attributes, traced_nodes
from .capture import SETTINGS, CaptureSetting, setting_of
from .equivalent import TraceableEquivalent
from .guard import GuardSideEffect
from .masked import CountNonzero, MaskedCopy, MaskedReduction
from .where import SelectWithWhere
from .zero_dim import KeepZeroDim, MathOfTensor

__all__ = ["REWRITTEN_CODES", "REWRITTEN_FORMS", "Decline", "Outcome", "add_arguments", "apply_edits", "fix_source",
           "has_rewrite", "plan_file", "run"]

# The forms `fix` rewrites, per code (the rule pages say so; each rewrite's docstring says why
# it is safe); every other occurrence is declined with its reason.
REWRITTEN_FORMS = {
    "SFX101": "`if <tensor cond>: raise E(...)` becomes `torch._assert_async(...)`; on a zero-dimensional "
              "tensor condition (a full reduction, a comparison of one with a number, or what the graph "
              "shows to be 0-d; Python's `any(t)`/`all(t)` as `t.any()`/`t.all()`; a captured `.item()` "
              "dropped), an `if`/`else` (or ternary) whose arms only assign the same names from element-wise "
              "expressions of the same operands becomes `torch.where`, and so does an early `if c: return a` "
              "followed by `return b` (or `else: return b`) where `a` and `b` are such expressions and keep "
              "their operands' dtype, and an `if`/`elif`/`else` chain of such assignments becomes nested "
              "torch.where (each later condition visibly 0-d); full reductions and 0-d operands add no shape, reductions over the same "
              "dimension match, a name bound once stands for its value, and `self.<m>(x)` counts as `x` where "
              "`<m>` is an `nn.Linear(d, d)`, a normalisation or an activation module; a condition of unknown "
              "shape becomes `cond.reshape(())`, its one element (the `if` needed one, bool() raises otherwise); "
              "`if s and t:` (no else) with `t` the tensor condition becomes that rewrite of `if t:` inside `if s:`",
    "SFX102": "`t.item()` / `float(t)` whose value only feeds tensor arithmetic or comparisons (directly, through "
              "`max(..., c)`/`min(..., c)` as a clamp, `math.exp` and the like as torch functions, or a property "
              "read only by its class) becomes `t.detach()` (a 0-d tensor); `assert t.item(), msg` asserts `t`; "
              "a conversion inside a print or logging statement that fix guards is removed with it; a tensor read "
              "as a slice bound or a size (repeat, expand, zeros, new_zeros, topk), torch._check_tensor_all, and "
              "an `.item()`/`int()`/`float()` whose number only flows (through arithmetic, sum(), containers, "
              "names) into those or into tensor arithmetic are captured by "
              "`torch._dynamo.config.capture_scalar_outputs = True` after the imports, where every construct that "
              "setting captures in the file is such and the lint finds no new break under it",
    "SFX104": "`torch._assert(<tensor cond>, \"message\")` becomes `torch._assert_async(...)`; `math.exp(t)` "
              "(and the other one-argument math functions with a torch namesake) of a tensor, `min`/`max` of one "
              "and a number inside it, becomes the torch function of `t.detach()` where the value only feeds "
              "tensor arithmetic",
    "SFX401": "`x[mask].sum()`/`.mean()` (also over dimension 0, and `x.masked_select(mask)`'s) becomes a "
              "`torch.where(mask, x, 0)` reduction; `y[mask] = x[mask]` on tensors of one shape becomes "
              "`y = torch.where(mask, x, y)`; `len(torch.nonzero(c))` and `.shape[0]` of it, used in tensor "
              "arithmetic, become `torch.count_nonzero(c)`; a mask read or nonzero/unique/bincount/repeat_interleave "
              "whose result `forward` returns or uses only as a tensor (no size read, no condition) is captured by "
              "`torch._dynamo.config.capture_dynamic_output_shape_ops = True` after the imports, on the same terms",
    "SFX201": "a `print(...)` of tensors and string or number literals is kept and registered in "
              "`torch._dynamo.config.reorderable_logging_functions` (dynamo prints it after the graph); any other "
              "`print(...)` statement is guarded by `if not torch.compiler.is_compiling():`",
    "SFX202": "a logging statement (or an `if logger.isEnabledFor(...)`) is guarded by "
              "`not torch.compiler.is_compiling()`",
    "SFX203": "a `warnings.warn(...)` statement is guarded by `if not torch.compiler.is_compiling():`; "
              "`torch.is_same_size(a, b)` becomes `a.shape == b.shape`, and `copy.copy(self.items)` of a list "
              "attribute (bound once in its class, to `list(...)` or a list display) `list(self.items)`; "
              "`torch.result_type(x, 2.0)` of a tensor and a number literal the dtype torch's promotion gives "
              "(`x.dtype` if `x` is floating or complex, else `torch.get_default_dtype()`)",
}
REWRITTEN_CODES = tuple(REWRITTEN_FORMS)

REWRITES: dict[str, list[Rewrite]] = {}
for _rewrite in (GuardSideEffect(), AssertAsync(), AssertToAsync(), SelectWithWhere(), KeepZeroDim(),
                 MathOfTensor(), TraceableEquivalent(), MaskedReduction(), MaskedCopy(), CountNonzero(),
                 CaptureSetting()):  # last: a setting only where no rewrite of the construct applies
    for _code in _rewrite.codes:
        REWRITES.setdefault(_code, []).append(_rewrite)


def _plan_region(ctx: Context, region) -> Edit:
    rewrites = REWRITES.get(region.code)
    if not rewrites:
        raise Decline(f"fix has no rewrite for {region.code}")
    if region.code == "SFX101":
        try:
            statement = _if_at(ctx, region)
        except Decline:
            statement = None
        if statement is not None and AssertAsync().matches(ctx, statement):
            return AssertAsync().plan(ctx, region, statement)
        return SelectWithWhere().plan(ctx, region)
    declines = []
    for rewrite in rewrites:
        try:
            return rewrite.plan(ctx, region)
        except Decline as decline:
            declines.append((rewrite, decline))
    reasons = [d for _, d in declines if not isinstance(d, OtherForm)] or [declines[0][1]]
    setting = next((d for r, d in declines if isinstance(r, CaptureSetting) and not isinstance(d, OtherForm)), None)
    if setting is not None and setting is not reasons[0]:  # the rewrite's reason, then the setting's
        raise Decline(f"{reasons[0]}; nor can a capture setting take it: {setting}")
    raise reasons[0]


# -- one file ---------------------------------------------------------------------------------

def _regions(analysis, path: str, select: tuple[str, ...] | None):
    """Each break once (by code and place), in source order."""
    seen = set()
    for graph in analysis.graphs:
        for region in graph.regions:
            key = (region.code, region.line, region.col)
            if key in seen or (select and not region.code.startswith(select)):
                continue
            seen.add(key)
            yield region


def plan_file(source: str, path: str, analysis, select: tuple[str, ...] | None = None,
              display: str | None = None, options=None) -> tuple[Context | None, list[Edit], list[Outcome]]:
    """The edits fix would make in one file and the outcome of every break (`options`: the
    analysis' own, under which a capture setting is checked)."""
    path = os.path.abspath(path)
    display = display or path
    outcomes: list[Outcome] = []
    edits: list[Edit] = []
    regions = sorted(_regions(analysis, path, select), key=lambda r: (r.line, r.col, r.code))
    if not regions:
        return None, edits, outcomes
    ctx = Context(source, display, traced_nodes(analysis, path), tensor_attributes(analysis))
    taken: list[Edit] = []
    for region in regions:
        try:
            if os.path.abspath(region.construct_file) != path:
                raise Decline(f"the construct is in {os.path.basename(region.construct_file)}:"
                              f"{region.construct_line}; fix rewrites a construct only in its own file")
            guard = next((other for other in taken if other.outcome.rewrite == GuardSideEffect.name and _contains(
                _edit_span(ctx, other), (region.line, region.col, region.line, region.col))), None)
            if guard is not None:  # print(t.item()): under compile the guarded statement does not run
                outcomes.append(Outcome(display, region.code, region.line, region.col, guard.outcome.rewrite,
                                        summary=f"inside the guard added at line {guard.outcome.line}"))
                continue
            ctx.needs_import_torch = False
            edit = _plan_region(ctx, region)
            edit.needs_torch = ctx.needs_import_torch
            same = next((other for other in taken if other.node is edit.node), None)
            if same is not None:  # an elif's condition: the chain's rewrite removes its break too
                outcomes.append(Outcome(display, region.code, region.line, region.col, same.outcome.rewrite,
                                        summary=f"with the rewrite at line {same.outcome.line}"))
                continue
            span = _edit_span(ctx, edit)
            outer = next((other for other in taken if _overlaps(span, _edit_span(ctx, other))), None)
            if outer is not None:
                raise Decline("it overlaps another rewrite in this run; run fix again")
            taken.append(edit)
            edits.append(edit)
            outcomes.append(edit.outcome)
        except Decline as decline:
            outcomes.append(Outcome(display, region.code, region.line, region.col,
                                    reason=str(decline) + _newer_release_note(region)))
    for setting in SETTINGS:
        declined = [e for e in edits if e.outcome.rewrite == CaptureSetting.name
                    and setting_of(e.outcome.code) == setting]
        why_not = _setting_unsafe(ctx, path, regions, edits, setting, options) if declined else None
        if why_not:
            edits = [e for e in edits if e not in declined]
            outcomes = [dataclasses.replace(o, rewrite=None, summary="", reason=why_not) if any(
                o is e.outcome for e in declined) else o for o in outcomes]
    return ctx, edits, outcomes


def _newer_release_note(region) -> str:
    """What a decline adds where a newer modeled torch does not break there (the region's
    versions end before the newest: 'torch 2.13 only', 'torch 2.13-2.14')."""
    if not region.versions or region.versions.endswith("+"):
        return ""
    return f"; it breaks in {region.versions}, so a newer torch removes it without a change"


def _setting_unsafe(ctx: Context, path: str, regions, edits: list[Edit], setting: str, options) -> str | None:
    """Why `setting` cannot be turned on for this file, None if nothing says so. The lint, run
    under it, lists every construct the setting captures (also those an earlier break hides
    without it): each must have a form CaptureSetting shows safe, unless another edit rewrites
    it; and the lint must find no break the file did not have (a print or an `if` of the
    captured number)."""
    from ..analysis import analyze
    from ..config import Options

    under = analyze(ctx.module.code, path, options=dataclasses.replace(options or Options(), **{setting: True}))
    rewritten = {(e.outcome.line, e.outcome.col) for e in edits if e.outcome.rewrite != CaptureSetting.name}
    prefix = f"torch._dynamo.config.{setting} would capture this, but it is process-wide"
    for construct in sorted({c for graph in under.graphs for c in graph.captured}, key=lambda c: (c.line, c.col)):
        if (construct.line, construct.col) in rewritten:
            continue
        if os.path.abspath(construct.file) != path:
            return f"{prefix} and captures a {construct.code} in {os.path.basename(construct.file)} too"
        try:
            CaptureSetting().plan(ctx, construct)
        except Decline as decline:
            return f"{prefix} and the {construct.code} at line {construct.line} is not a form it is shown safe for " \
                   f"({decline})"
    before = {(r.code, r.line) for r in regions}
    added = sorted({(r.code, r.line) for graph in under.graphs for r in graph.regions} - before,
                   key=lambda item: item[1])
    if added:
        return (f"under torch._dynamo.config.{setting} the lint finds a break the file did not have "
                f"({added[0][0]} at line {added[0][1]})")
    return None


def _edit_span(ctx: Context, edit: Edit) -> tuple[int, int, int, int]:
    """From the edited node's start to the end of the last statement the edit removes."""
    start = ctx.span(edit.node)
    end = ctx.span(edit.removed[-1]) if edit.removed else start
    return (start[0], start[1], end[2], end[3])


def _contains(outer, inner) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (outer[2], outer[3])


def _overlaps(a, b) -> bool:
    return not ((a[2], a[3]) <= (b[0], b[1]) or (b[2], b[3]) <= (a[0], a[1]))


def apply_edits(ctx: Context, edits: list[Edit]) -> str:
    """The file with the edits made, `import torch` added where an edit needs it, and the
    statements the edits need after the imports (Edit.module_lines), once each."""
    import libcst as cst

    replacements = {id(edit.node): edit.replacement for edit in edits if edit.replacement is not None}
    replacements.update({id(node): cst.RemovalSentinel.REMOVE for edit in edits for node in edit.removed})

    class Apply(cst.CSTTransformer):
        def on_leave(self, original_node, updated_node):
            replacement = replacements.get(id(original_node))
            if replacement is None:
                return updated_node
            if isinstance(replacement, tuple):  # ("field", value): change one child
                return updated_node.with_changes(**{replacement[0]: replacement[1]})
            return replacement

    module = ctx.module.visit(Apply())
    lines = [line for line in dict.fromkeys(line for edit in edits for line in edit.module_lines)
             if line.split("  #")[0] not in ctx.module.code]
    ctx.needs_import_torch = False
    if lines:
        ctx.imports_torch()
    if ctx.needs_import_torch or any(edit.needs_torch for edit in edits):
        module = _add_import_torch(cst, module)
    return add_module_lines(cst, module, lines).code


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


def _add_import_torch(cst, module):
    """`import torch` before the first top-level import of a torch module (`import torch.nn as
    nn`), else after the last top-level import, else at the top."""
    body = list(module.body)
    imports = [i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
               and any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in s.body)]
    torch_imports = [i for i in imports if "torch" in module.code_for_node(body[i])
                     and "__future__" not in module.code_for_node(body[i])]
    statement = cst.parse_statement("import torch\n")
    if torch_imports:
        at = torch_imports[0]
        statement = statement.with_changes(leading_lines=body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=[])
    elif imports:
        at = imports[-1] + 1
    else:
        at = 0
    body.insert(at, statement)
    return module.with_changes(body=body)


# A break can hide the next one: after a break in a loop the whole function runs eagerly, so
# dynamo traces nothing after it and the analysis reports nothing there. Fixing it shows the
# next break, so `fix` analyses the fixed text again, a few rounds at most.
MAX_FIX_ROUNDS = 4


def fix_source(source: str, path: str, options=None, select: tuple[str, ...] | None = None,
               display: str | None = None) -> FileFix:
    """Every round's rewrites and the last round's declines (the breaks left), in line order."""
    from ..analysis import analyze

    fixed, done = source, []
    origin: dict[int, int] = {}  # a line of `fixed` -> its line in `source`, where they differ
    for _ in range(MAX_FIX_ROUNDS):
        ctx, edits, outcomes = plan_file(fixed, path, analyze(fixed, path, options=options), select, display, options)
        outcomes = [dataclasses.replace(o, line=origin.get(o.line, o.line)) for o in outcomes]
        done += [outcome for outcome in outcomes if outcome.rewrite]
        if not edits:
            break
        rewritten = apply_edits(ctx, edits)
        if rewritten == fixed:  # the analysis still reports what an edit already did: stop
            break
        origin = {line: origin.get(before, before) for line, before in line_origins(fixed, rewritten).items()}
        fixed = rewritten
    done += [outcome for outcome in outcomes if not outcome.rewrite]
    return FileFix(display or path, source, fixed, sorted(done, key=lambda outcome: (outcome.line, outcome.col)))


def line_origins(before: str, after: str) -> dict[int, int]:
    """Each line of `after` -> the line of `before` it comes from (1-based): itself where the
    text is unchanged, else the first line of the statements a rewrite replaced, so that what a
    later round reports inside a rewrite is reported where the lint reported it."""
    origins = {}
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        for k in range(b1 - b0):
            origins[b0 + k + 1] = a0 + k + 1 if tag == "equal" else max(min(a0 + 1, len(before.splitlines())), 1)
    return origins


# Planning a rewrite resolves the file's scopes with libcst, which grows faster than the file:
# a graph with more breaks than this (a generated 3000-term condition), or a file longer than
# this (a generated 10,000-line forward: 7 minutes), reports none as fixable in the graph JSON
# and HTML rather than hang them. `fix` itself still plans such files.
MAX_CHECKED_REGIONS = 200
MAX_CHECKED_LINES = 5000


def has_rewrite(region, graph, source: str | None = None) -> bool:
    """Does `fix` have a rewrite for this region (this occurrence, not its code)?

    `graph` is the region's Graph (the analysis result of its file); `source` that file's text,
    read from `graph.file` when not given. Cheap enough for the JSON and HTML output: imports
    libcst lazily and says False where libcst is not installed.
    """
    if region.code not in REWRITES or len(graph.regions) > MAX_CHECKED_REGIONS:
        return False
    try:
        import libcst  # noqa: F401
    except ImportError:
        return False
    path = os.path.abspath(graph.file)
    source = source if source is not None else _cached_source(path)
    if source is None or os.path.abspath(region.construct_file) != path or source.count("\n") > MAX_CHECKED_LINES:
        return False
    try:
        ctx = _cached_context(source, path, graph)
        # a capture setting is decided per file (plan_file), so one region alone does not say
        return _plan_region(ctx, region).outcome.rewrite != CaptureSetting.name
    except Decline:
        return False
    except Exception:  # noqa: BLE001 - a JSON field must never crash the graph command
        return False


_CONTEXT: list = []  # [(source, graph, Context)]: the last graph's context, kept while the graph lives


def _cached_context(source: str, path: str, graph) -> Context:
    """The context of `graph`'s regions; the file's CST is parsed and resolved once for all its
    graphs (a 5,000-line file with 30 graphs took 35 s to render as JSON, one parse per graph)."""
    from ..analysis import FileAnalysis

    if not (_CONTEXT and _CONTEXT[0][0] == source and _CONTEXT[0][1] is graph):
        parsed = _CONTEXT[0][2].parsed if _CONTEXT and _CONTEXT[0][0] == source else None
        analysis = FileAnalysis(path, [], [graph])
        ctx = Context(source, path, traced_nodes(analysis, path), tensor_attributes(analysis), parsed)
        _CONTEXT[:] = [(source, graph, ctx)]
    return _CONTEXT[0][2]


def _cached_source(path: str) -> str | None:
    """The file's text, read again when it changed on disk (graph_json asks once per region)."""
    try:
        stamp = os.stat(path).st_mtime_ns
        if _SOURCE and _SOURCE[0][:2] == (path, stamp):
            return _SOURCE[0][2]
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    _SOURCE[:] = [(path, stamp, text)]
    return text


_SOURCE: list = []


# -- command line -----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to fix")
    parser.add_argument("--diff", action="store_true", help="print a unified diff, change nothing")
    parser.add_argument("--select", default="", help="only these codes or prefixes (comma-separated)")
    add_compile_options(parser)
    parser.add_argument("--quiet", action="store_true", help="do not list what was fixed or declined")


def run(args: argparse.Namespace) -> int:
    """Fix (or diff) every file and list each break's outcome on stderr. Exit status: 0 when no
    file needed a change (declines alone do not count), 1 when a file was (or, with --diff,
    would be) rewritten, 2 for an unknown code, a path that does not exist or holds no Python
    file, and a file that could not be read, decoded, parsed or fixed."""
    try:
        import libcst  # noqa: F401
    except ImportError:
        print("fix needs libcst: pip install 'libcst>=1.1,<2'", file=sys.stderr)
        return 2
    options = command_options(args)
    select = tuple(code.strip() for code in (args.select or "").split(",") if code.strip()) or None
    unknown = unknown_codes(select or ())
    if unknown:
        print(f"error: --select: unknown code {', '.join(unknown)}", file=sys.stderr)
        return 2
    try:
        paths = python_files(args.paths)
    except UnusableInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            source = read_python(path, newline="")
        except UnusableInput as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
            continue
        try:
            result = fix_source(source, path, options, select, display=path)
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
            print(f"cannot fix {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
            status = 2
            continue
        if not args.quiet:
            for outcome in result.outcomes:
                print(outcome.describe(), file=sys.stderr)
        if not result.changed:
            continue
        status = max(status, 1)
        if args.diff:
            sys.stdout.write(result.diff())
        else:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(result.fixed)
    return status
