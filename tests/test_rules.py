"""Every rule of rules.RULES: one snippet that triggers it and one near miss that does not.

The cases are keyed by code and the tests are parametrized over the rule table, so a code
added to the table without a case here fails `test_every_rule_has_a_case`.
"""
from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import diagnostics, flake8_diagnostics
from flake8_staticfx.rules import OFF_BY_DEFAULT, RULES

HEADER = """\
import copy
import logging
import math
import random
import time
import warnings

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


"""


def net(body: str, init: str = "pass", extra: str = "") -> str:
    """A module whose forward is `body` (x is a tensor input, h = self.fc(x) a definite one)."""
    return HEADER + extra + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)
                {init}

            def forward(self, x):
                h = self.fc(x)
                {body}
                return h
        """).format(init=textwrap.indent(textwrap.dedent(init).strip(), " " * 8).lstrip(),
                    body=textwrap.indent(textwrap.dedent(body).strip(), " " * 8).lstrip())


def compiled_calls(forward: str, calls: str, settings: str = "") -> str:
    """A module with `forward`, and a driver that compiles it and makes `calls` with x."""
    return HEADER + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.calls = 0

            {forward}


        def run():
            model = torch.compile(Net(){settings})
            x = torch.randn(2, 4)
            {calls}
        """).format(forward=textwrap.indent(forward, " " * 4).lstrip(), settings=settings,
                    calls=textwrap.indent(calls, " " * 4).lstrip())


# Blocks that each keep their own int, compiled one by one.
BLOCKS = HEADER + """\
class Block(nn.Module):
    def __init__(self, index):
        super().__init__()
        self.index = index
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x) * self.index{mark}


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block({sizes}) for i in range(3)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def run():
    model = Stack()
    for block in model.blocks:
        block.compile()
    model(torch.randn(2, 4, requires_grad=True))
"""


RUNNING = """\
class Running:
    def __init__(self, x):
        self.total = x.sum()

    def count(self):
        print(self.total)
        return self.total


"""


def registered(init: str, mark: str = "") -> str:
    """A class built through a metaclass `__call__` that defers to `type`, `init` its __init__."""
    return textwrap.dedent("""\
        class Registered(type):
            def __call__(cls, *args, **kwargs):
                return super().__call__(*args, **kwargs){mark}


        class Stats(metaclass=Registered):
            def __init__(self, x):
                {init}
                self.total = x.sum()


        """).format(init=init, mark=mark)


# A compiled function its file's call passes an iterator, or a tuple of its items.
PASSED = """\
@torch.compile
def total(pairs, x):
    for k, v in pairs:{mark}
        x = x + v
    return x


def run(x):
    return total({passed}, x)


"""


DISABLED = """\
{decorator}def post(h):
    return h + 1


"""

# code -> (triggers, near miss). The trigger marks its line with `# expect: CODE`.
CASES: dict[str, tuple[str, str]] = {
    "SFX101": (
        net("""
            if h.sum() > 0:  # expect: SFX101
                h = h * 2
        """),
        net("""
            if h.shape[0] > 0 and self.training:
                h = h * 2
        """),
    ),
    "SFX102": (
        net("scale = h.abs().max().item()  # expect: SFX102"),
        net("scale = h.abs().max()\nh = h / scale"),
    ),
    "SFX103": (
        net("values = h.tolist()  # expect: SFX103"),
        net("dims = list(h.shape)\nh = h.reshape(dims)"),
    ),
    "SFX104": (
        net("norm = math.sqrt(h.pow(2).sum())  # expect: SFX104"),
        net("norm = math.sqrt(h.shape[-1])\nh = h / norm"),
    ),
    "SFX105": (
        net("""
            k = random.randint(1, 4) * 2  # expect: SFX105
            h = h * k
        """),
        net("""
            k = random.randint(1, 4)
            h = h * k
        """),
    ),
    "SFX106": (
        net("h = self.enc(h, mask=torch.triu(torch.ones(8, 8), 1))  # expect: SFX106",
            init="self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True), 1)"),
        net("h = self.enc(h, mask=torch.triu(torch.ones(8, 8), 1), is_causal=False)",
            init="self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True), 1)"),
    ),
    "SFX201": (
        # A torch.Size argument: no form dynamo reorders (print(h) gets advice of its own, test_advice.py).
        net("print(h.shape)  # expect: SFX201"),
        net("""
            if not torch.compiler.is_compiling():
                print(h)
        """),
    ),
    "SFX202": (
        net('logger.info("hidden %s", h.shape)  # expect: SFX202'),
        net("""
            if not torch.compiler.is_compiling():
                logger.info("hidden %s", h.shape)
        """),
    ),
    "SFX203": (
        net('warnings.warn("slow path")  # expect: SFX203'),
        net('self.started = 0.0', init='warnings.warn("slow path")\nself.started = time.time()'),
    ),
    "SFX301": (
        net("torch._dynamo.graph_break()  # expect: SFX301"),
        net("""
            if not torch.compiler.is_compiling():
                torch._dynamo.graph_break()
        """),
    ),
    "SFX302": (
        net("h = post(h)  # expect: SFX302", extra=DISABLED.format(decorator="@torch.compiler.disable\n")),
        net("h = post(h)", extra=DISABLED.format(decorator="")),
    ),
    "SFX303": (
        net("h.sum().backward()  # expect: SFX303"),
        net("h = h.detach()"),
    ),
    "SFX304": (
        net("x.requires_grad_()  # expect: SFX304"),
        net("flag = h.requires_grad"),
    ),
    "SFX305": (
        net("shadow = copy.deepcopy(self.fc)  # expect: SFX305"),
        net("config = copy.deepcopy({'a': 1})"),
    ),
    "SFX306": (
        net("out, _ = self.rnn(h)  # expect: SFX306", init="self.rnn = nn.LSTM(8, 8, batch_first=True)"),
        net("h = self.cell(h)", init="self.cell = nn.GRUCell(8, 8)"),
    ),
    "SFX307": (
        net("order = sorted(h[0])  # expect: SFX307"),
        net("order = torch.sort(h).values\nnames = sorted(['b', 'a'])"),
    ),
    "SFX308": (
        net("""
            with torch.random.fork_rng():  # expect: SFX308
                h = h * 2
        """),
        net("""
            with torch.no_grad():
                h = h * 2
        """),
    ),
    "SFX309": (
        net("""
            g = torch.Generator().manual_seed(0)  # expect: SFX309
            h = h + torch.randn(8, generator=g)  # expect: SFX309
        """),
        net("h = h + torch.randn(8)"),
    ),
    "SFX310": (
        net("stats = Running(h)\nh = h / stats.count()  # expect: SFX310", extra=RUNNING),
        net("stats = Running(h)\nh = h / stats.total", extra=RUNNING),
    ),
    "SFX311": (
        net("class Scale:  # expect: SFX311\n    factor = 0.5\nh = h * Scale.factor"),
        net("def scale(t):\n    return t * 0.5\nh = scale(h)"),
    ),
    "SFX312": (
        net("mask = h.to_sparse()  # expect: SFX312\nh = mask.to_dense() * h  # expect: SFX312"),
        net("mask = (h > 0).float()\nh = mask * h"),
    ),
    "SFX313": (
        net("seen = []\n\ndef run(t):\n    seen.append(t)  # expect: SFX313\n    return t * 2\n\n"
            "h = checkpoint(run, h, use_reentrant=False)",
            extra="from torch.utils.checkpoint import checkpoint\n\n\n"),
        net("def run(t):\n    parts = []\n    parts.append(t * 2)\n    return parts[0]\n\n"
            "h = checkpoint(run, h, use_reentrant=False)",
            extra="from torch.utils.checkpoint import checkpoint\n\n\n"),
    ),
    "SFX314": (
        net("h = h / Stats(h).total", extra=registered("print(x.shape)", mark="  # expect: SFX314")),
        net("h = h / Stats(h).total", extra=registered("assert x.dim() == 2")),
    ),
    "SFX315": (
        net("h = max([h, h * 2], key=lambda t: t.mean())  # expect: SFX315"),
        net("h = h * max([3, 1, 2], key=abs)"),
    ),
    "SFX316": (
        net("if isinstance(h, Matrix):  # expect: SFX316\n    h = h * 2",
            extra="class _Meta(type):\n    def __instancecheck__(cls, obj):\n        return obj.dim() == 2\n\n\n"
                  "class Matrix(metaclass=_Meta):\n    pass\n\n\n"),
        net("if isinstance(h, torch.Tensor):\n    h = h * 2"),
    ),
    "SFX317": (
        net("for _ in range(2):\n    print(h)\n"
            "parts = [h * v for v in SCALES.values()]  # expect: SFX317", extra="SCALES = {'a': 1.0}\n\n\n"),
        net("parts = [h * v for v in SCALES.values()]", extra="SCALES = {'a': 1.0}\n\n\n"),
    ),
    "SFX318": (
        net("h = h * 2", extra=PASSED.format(mark="  # expect: SFX318", passed="zip(x, x)")),
        net("h = h * 2", extra=PASSED.format(mark="", passed="tuple(zip(x, x))")),
    ),
    "SFX401": (
        net("idx = torch.nonzero(h)  # expect: SFX401"),
        net("h = torch.where(h > 0, h, 0)"),
    ),
    "SFX501": (
        compiled_calls("def forward(self, x, n):\n    for _ in range(n):  # expect: SFX501\n        x = x + 1\n"
                       "    return x", "for n in range(1, 4):\n    model(x, n)"),
        compiled_calls("def forward(self, x, n):\n    for _ in range(n):\n        x = x + 1\n    return x",
                       "for _ in range(3):\n    model(x, 2)"),
    ),
    "SFX502": (
        compiled_calls("def forward(self, x):\n    self.calls += 1  # expect: SFX502\n    return x * self.calls",
                       "for _ in range(3):\n    model(x)"),
        compiled_calls("def forward(self, x):\n    return x * self.calls", "for _ in range(3):\n    model(x)"),
    ),
    "SFX503": (
        BLOCKS.format(mark="  # expect: SFX503", sizes="i"),
        BLOCKS.format(mark="", sizes="2"),
    ),
    "SFX504": (
        compiled_calls("def forward(self, x):  # expect: SFX504\n    return x.relu()",
                       "for n in (2, 3, 4):\n    model(torch.randn(n, 4))", settings=", dynamic=False"),
        compiled_calls("def forward(self, x):\n    return x.relu()",
                       "for n in (2, 3, 4):\n    model(torch.randn(n, 4))", settings=", dynamic=True"),
    ),
    "SFX505": (
        compiled_calls("def forward(self, x, scale):\n    return x * scale  # expect: SFX505",
                       "for scale in (1, 2, 3):\n    model(x, scale)"),
        compiled_calls("def forward(self, x, scale):\n    return x * scale",
                       "for scale in (1, 2, 3):\n    model(x, scale)", settings=", dynamic=True"),
    ),
    "SFX506": (
        compiled_calls("def forward(self, x):  # expect: SFX506\n    return x.relu()",
                       "model(x)\nwith torch.no_grad():\n    model(x)"),
        compiled_calls("def forward(self, x):\n    return x.relu()",
                       "with torch.no_grad():\n    model(x)\n    model(x)"),
    ),
}
# Codes reported only together with the break they follow (in RUNNING.count: a print).
CAUSED_BY = {"SFX310": ("SFX201",), "SFX314": ("SFX201",), "SFX317": ("SFX201",)}
# Codes whose construct breaks only from a torch release on: linted for that release.
RELEASE_OF = {"SFX316": "2.14"}
# The notice is not about the model's code; it has its own tests below.
NOT_CONSTRUCT_RULES = {"SFX900"}


def expected(source: str) -> list[tuple[int, str]]:
    marks = []
    for number, text in enumerate(source.splitlines(), 1):
        if "# expect:" in text:
            marks += [(number, code) for code in text.split("# expect:")[1].split()]
    return marks


def lint(tmp_path: Path, source: str, options: Options | None = None) -> list[tuple[int, int, str]]:
    """The breaks dynamo reports now (the to-do list, breaks waiting on an earlier one, left out:
    tests/test_todo.py)."""
    path = tmp_path / "model.py"
    path.write_text(source, encoding="utf-8")
    analysis = analyze(source, str(path), options=options)
    assert not analysis.notices, analysis.notices
    return [(d.line, d.col, d.message) for d in diagnostics(analysis) if d.waits_on is None]


def codes_of(found: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
    return [(line, message.split()[0]) for line, _, message in found]


CODES = sorted(code for code in RULES if code not in NOT_CONSTRUCT_RULES)


def test_every_rule_has_a_case():
    assert sorted(CASES) == CODES


@pytest.mark.parametrize("code", CODES)
def test_trigger(tmp_path, code):
    source, _ = CASES[code]
    marks = expected(source)
    assert marks and all(c == code for _, c in marks)
    found = lint(tmp_path, source, Options(torch_version=RELEASE_OF.get(code, "")))
    if code in CAUSED_BY:  # SFX310 follows a break inside the method it reports the call of
        causes = [hit for hit in found if hit[2].startswith(CAUSED_BY[code])]
        assert causes
        found = [hit for hit in found if hit not in causes]
    assert codes_of(found) == marks
    rule = RULES[code]
    for _, _, message in found:
        assert message.startswith(f"{code} ")
        if rule.gb_ids:  # a recompile (5xx) is no graph break: it names none
            named = re.search(r"\((GB\d{4}(?:/GB\d{4})*)(?:, torch [^)]+)?\);", message).group(1).split("/")
            assert named and set(named) <= set(rule.gb_ids), named  # the ids of this occurrence
        assert message.startswith(f"{code} {rule.summary}: `") and message.endswith(f"; {rule.fix}")


@pytest.mark.parametrize("code", CODES)
def test_near_miss(tmp_path, code):
    _, source = CASES[code]
    assert expected(source) == []
    assert codes_of(lint(tmp_path, source)) == []


@pytest.mark.parametrize("code", CODES)
def test_captured_by_settings(tmp_path, code):
    """Each setting in captured_by silences the rule; the other settings do not."""
    source, _ = CASES[code]
    rule = RULES[code]
    settings = ["fullgraph", "capture_scalar_outputs", "capture_dynamic_output_shape_ops"]
    for setting in settings:
        found = codes_of(lint(tmp_path, source, Options(**{setting: True}, torch_version=RELEASE_OF.get(code, ""))))
        if setting in rule.captured_by:
            assert code not in {c for _, c in found}, setting
        else:
            causes = CAUSED_BY.get(code, ())
            assert [hit for hit in found if hit[1] not in causes] == expected(source), setting


@pytest.mark.parametrize("setting", ["capture_scalar_outputs", "fullgraph"])
def test_data_dependent_operator_is_not_captured(tmp_path, setting):
    """Measured with torch 2.13: `math.sqrt(t.sum())` and `torch._assert(t.sum() > 0, ...)` still
    break with capture_scalar_outputs=True ("Could not guard on data-dependent expression"),
    and fail under fullgraph=True."""
    source, _ = CASES["SFX104"]
    assert codes_of(lint(tmp_path, source, Options(**{setting: True}))) == expected(source)


def test_ignore_logging_functions(tmp_path):
    source, _ = CASES["SFX202"]
    assert codes_of(lint(tmp_path, source, Options(ignore_logging_functions=("logging.Logger.info",)))) == []
    assert codes_of(lint(tmp_path, source, Options(ignore_logging_functions=("logging.Logger.debug",)))) \
        == expected(source)


def test_copy_of_a_tensor_breaks(tmp_path):
    """Measured with torch 2.13: `copy.copy(tensor)` in forward breaks inside copy.py (GB0208,
    "torch.* op returned non-Tensor"), reported by dynamo at the call."""
    source = net("shadow = copy.copy(h)")
    line = source.splitlines().index("        shadow = copy.copy(h)") + 1
    assert [found_line for found_line, _ in codes_of(lint(tmp_path, source))] == [line]


def test_torch_initial_seed_breaks(tmp_path):
    """Measured with torch 2.13: `torch.initial_seed()` in forward breaks (GB0208, "torch.* op
    returned non-Tensor") at its line."""
    source = net("seed = torch.initial_seed()")
    line = source.splitlines().index("        seed = torch.initial_seed()") + 1
    assert [found_line for found_line, _ in codes_of(lint(tmp_path, source))] == [line]


def test_a_size_made_from_python_numbers_is_read_without_a_break(tmp_path):
    """Measured with torch 2.13: a reduction of tensors made from Python ints as a reshape size
    compiles one graph (gen_stylegan_disc.py's minibatch std); of the data it breaks (GB0033)."""
    constant = net("group = torch.min(torch.as_tensor(4), torch.as_tensor(h.shape[0]))\nh = h.reshape(group, -1)")
    assert lint(tmp_path, constant) == []
    data = net("group = (h > 0).sum()\nh = h.reshape(group, -1)")
    reshape = data.splitlines().index("        h = h.reshape(group, -1)") + 1
    assert codes_of(lint(tmp_path, data)) == [(reshape, "SFX102")]


def test_calls_dynamo_skips_inside_harmless_looking_code(tmp_path):
    """Measured with torch 2.13 (tests/cases/skipped_library_calls.py): a warnings filter inside
    `warnings.catch_warnings()` is skipped (GB0007, then GB0092: the whole forward runs eagerly),
    a tqdm bar is skipped (GB0007; iterating it skips the rest, GB0008) and so is scipy's compiled
    linear_sum_assignment (GB0007); the `with` alone compiles one graph."""
    quiet = net("""
        with warnings.catch_warnings():
            h = h.relu()
    """)
    assert lint(tmp_path, quiet) == []
    filtered = net("""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = h.relu()
    """)
    line = filtered.splitlines().index('            warnings.simplefilter("ignore")') + 1
    found = lint(tmp_path, filtered)
    assert codes_of(found) == [(line, "SFX203")] and "whole `forward` runs eagerly" in found[0][2]
    bar = net("for _ in tqdm(range(2)):\n    h = h.relu()", extra="from tqdm import tqdm\n")
    line = bar.splitlines().index("        for _ in tqdm(range(2)):") + 1
    found = lint(tmp_path, bar)
    assert codes_of(found) == [(line, "SFX203")] and "rest of `forward` runs eagerly" in found[0][2]
    matcher = net("rows, cols = linear_sum_assignment(h.detach().numpy())",
                  extra="from scipy.optimize import linear_sum_assignment\n")
    line = matcher.splitlines().index("        rows, cols = linear_sum_assignment(h.detach().numpy())") + 1
    assert codes_of(lint(tmp_path, matcher)) == [(line, "SFX203")]


def test_least_squares_and_a_skip_mark_break(tmp_path):
    """Measured with torch 2.13 (tests/cases/unruled_breaks.py): torch.linalg.lstsq is a dynamic
    shape operator (GB0036) where torch.linalg.solve traces; `unittest.skip(...)` made in forward
    is a skipped call (GB0007)."""
    solve = net("h = torch.linalg.solve(h[:, :2, :2], h[:, :2])")
    assert lint(tmp_path, solve) == []
    lstsq = net("h = torch.linalg.lstsq(h[:, :2, :2], h[:, :2]).solution")
    line = lstsq.splitlines().index("        h = torch.linalg.lstsq(h[:, :2, :2], h[:, :2]).solution") + 1
    assert codes_of(lint(tmp_path, lstsq)) == [(line, "SFX401")]
    mark = net('mark = unittest.skip("slow")', extra="import unittest\n")
    line = mark.splitlines().index('        mark = unittest.skip("slow")') + 1
    assert codes_of(lint(tmp_path, mark)) == [(line, "SFX203")]


def test_reported_column_is_the_construct(tmp_path):
    source, _ = CASES["SFX102"]
    (line, col, _), = lint(tmp_path, source)
    text = source.splitlines()[line - 1]
    assert col == text.index("h.abs()")


# -- the table itself ----------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_entry_is_well_formed(code):
    rule = RULES[code]
    assert rule.code == code
    assert re.fullmatch(r"SFX[1-9]\d\d", code)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
    for text in (rule.summary, rule.fix, rule.workaround):  # read inside a sentence
        assert text and not text.endswith("."), text
    assert rule.fix[0].islower() and rule.workaround[0].islower()
    assert len(rule.summary) <= 40 and len(rule.fix) <= 60  # room for the construct in 160 characters
    for gb in rule.gb_ids:
        assert re.fullmatch(r"GB\d{4}", gb)
    if rule.gb_ids:
        assert rule.docs_url.endswith(f"/{rule.gb_ids[0].lower()}.html")
    option_fields = {f.name for f in dataclasses.fields(Options) if f.type in (bool, "bool")}
    assert set(rule.captured_by) <= option_fields


def test_rule_names_are_unique():
    names = [rule.name for rule in RULES.values()]
    assert len(names) == len(set(names))


def test_only_the_notice_and_the_single_recompile_are_off_by_default():
    assert OFF_BY_DEFAULT == ("SFX505", "SFX900")


def test_codes_are_grouped_by_family():
    families = {"1": "data-dependent", "2": "side effects", "3": "untraced features",
                "4": "dynamic shapes", "5": "recompiles", "9": "notices"}
    for code in RULES:
        assert code[3] in families


# -- SFX900, the analysis notice ------------------------------------------------------

HUGE = HEADER + """\
class Huge(nn.Module):
    def forward(self, x):
        for i in range(60):
            for j in range(60):
                for k in range(60):
                    x = x + 1
        return x.sum().item()
"""


def test_notice_when_a_root_runs_past_a_limit(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(HUGE, encoding="utf-8")
    analysis = analyze(HUGE, str(path))
    (notice,) = analysis.notices
    assert notice.what == "Huge.forward"
    assert notice.line == HUGE.splitlines().index("    def forward(self, x):") + 1
    assert list(flake8_diagnostics(analysis)) == []  # notices only when asked for
    found = list(flake8_diagnostics(analysis, notices=True))
    assert [m.split()[0] for _, _, m in found] == ["SFX900"]
    assert "Huge.forward" in found[0][2]


def test_notice_for_a_file_that_does_not_parse():
    analysis = analyze("import torch\ndef forward(:\n", "broken.py")
    assert analysis.graphs == []
    assert [n.reason.split(":")[0] for n in analysis.notices] == ["SyntaxError"]


# -- README ----------------------------------------------------------------------------

def test_readme_rule_table_matches_the_rule_table():
    root = Path(__file__).resolve().parent.parent
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_rules_table", root / "docs" / "gen_rules_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert module.current_table(readme) == module.render_table(), \
        "README's rule table is stale: run `python docs/gen_rules_table.py --write`"
    for code in RULES:
        assert code in readme


# One statement in forward and the code it gets (None: no diagnostic), each measured with
# torch 2.13's dynamo (most also in tests/cases, named where they are).
MEASURED_STATEMENTS = [
    # Making a tensor require grad breaks (GB0125/GB8985); on a tensor computed from
    # parameters requires_grad_ changes nothing and dynamo traces it.
    ("h.requires_grad_()", None),
    ("h = h.detach().requires_grad_()", "SFX304"),
    # A tensor factory with requires_grad=True breaks (GB0225), also when the flag is
    # self.training in a training run; requires_grad=False is traced.
    ("w = torch.zeros(8, requires_grad=True)", "SFX304"),
    ("w = torch.tensor([0.0], requires_grad=self.training)", "SFX304"),
    ("w = torch.zeros(8, requires_grad=False)", None),
    # `and` tests its last operand too, and an operand known false decides the whole test
    # (vis_layerdrop_vit.py, nlp_sliding_window.py).
    ("if self.training and h.mean() > 0:\n            h = h * 2", "SFX101"),
    ("if h.shape[0] > 1 and not torch.compiler.is_compiling():\n            print(h)", None),
    ("self.rnn.flatten_parameters()", "SFX306"),
    # After an RNN call the rest of forward runs eagerly: a second one breaks no more
    # (cfg_stacked_recurrent.py).
    ("h, _ = self.rnn(h)\nh, _ = self.rnn(torch.tanh(h))", "SFX306"),
    # Tensor.__contains__ ends in .item(): GB0124, and dynamo skips the whole function.
    ("if 3 in h:\n            h = h + 1", "SFX102"),
    # An f-string with an unknown part before literal text (cache_key.py).
    ('key = f"{h.mean().item():.2f}-done"', "SFX102"),
    # A sort key runs on the items (GB0124 in the lambda, for max and list.sort).
    ("best = max([h, h * 2], key=lambda t: t.sum().item())", "SFX102"),
    ("rows = [{'s': h.sum()}]; rows.sort(key=lambda r: r['s'].item())", "SFX102"),
    # A tensor as a size argument becomes a Python int (GB0033): SFX102.
    ("pos = torch.arange(h.argmax())", "SFX102"),
    ("h = h.view(h.argmax(), -1)", "SFX102"),
    ("h = h.repeat(h.argmax(), 1)", "SFX102"),  # val_int_reduced_sizes.py
    ("h = h.repeat(h.shape[0], 1)", None),
    ("pos = torch.arange(h.shape[0])", None),
    # Dynamo traces numpy arrays as tensors, so `.tolist()` of an array made in forward needs
    # its data (GB0033); turning it into a tensor is traced.
    ("steps = (np.arange(0, 4) * 2).round()[::-1].astype(np.int64).tolist()", "SFX103"),
    ("h = h + torch.from_numpy(np.arange(8) * 2)", None),
    # numpy on an array made from a tensor, or on a Python list, is traced data: int() of it
    # needs the value (GB0033), np.bincount of it has a data-dependent size (GB0036); numpy's
    # elementwise functions on an int from the shape trace (val_numpy_*.py).
    ("n = int(np.max(h.detach().numpy()))", "SFX102"),
    ("n = int(np.sum([h.shape[0], 2]))", "SFX102"),
    ("counts = np.bincount(h.argmax(-1).numpy())", "SFX401"),
    ("n = int(2 ** np.ceil(np.log2(h.shape[-1])))", None),
    # numpy does not fold a reduction over the shape tuple: it is an array in the graph.
    ("n = int(np.prod(h.shape[1:]))", "SFX102"),
    ("n = float(np.mean(h.shape))", "SFX102"),
    ("if np.prod(h.shape) > 10:\n            h = h * 2", "SFX101"),
    # A given output_size fixes repeat_interleave's shape (val_repeat_interleave_forms.py).
    ("r = h.repeat_interleave(h.argmax(-1), dim=0, output_size=16)", None),
    ("r = torch.repeat_interleave(h, h.argmax(-1), dim=0, output_size=16)", None),
    ("r = h.repeat_interleave(h.argmax(-1), dim=0)", "SFX401"),
    # aminmax's fields are tensors (val_reduction_tuples.py).
    ("top = torch.aminmax(h).max.item()", "SFX102"),
    ("lo, hi = torch.aminmax(h)", None),
    # filter tests its predicate's result for truth; map's results are the function's
    # (val_iter_map_filter.py).
    ("kept = list(filter(lambda t: t.sum() > 0, [h, h * 2]))", "SFX101"),
    ("kept = list(filter(lambda t: t.shape[0] > 1, [h, h * 2]))", None),
    ("s = [n.item() for n in map(torch.linalg.vector_norm, [h, h * 2])]", "SFX102"),
]


@pytest.mark.parametrize(("statement", "code"), MEASURED_STATEMENTS)
def test_measured_statement(tmp_path, statement, code):
    source = net(statement, init="self.rnn = nn.LSTM(8, 8, batch_first=True)", extra="import numpy as np\n\n\n")
    line = source.splitlines().index(f"        {statement.splitlines()[0]}") + 1
    assert codes_of(lint(tmp_path, source)) == ([(line, code)] if code else [])


TRANSFORMER_STACKS = """\
self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True), 1)
self.dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, batch_first=True), 1)
self.layer = nn.TransformerEncoderLayer(8, 2, batch_first=True)
self.seq = nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
"""
# A torch.nn Transformer stack's call and whether dynamo breaks inside it, testing the mask for
# causality (GB0124; measured with 2.13, 2.14.1 and 2.15.0 on tests/cases/transformer_mask.py).
CAUSAL_MASK_CALLS = [
    ("h = self.enc(h, mask=torch.zeros(8, 8))", True),
    ("h = self.enc(h, torch.zeros(8, 8))", True),
    ("h = self.enc(h, mask=torch.zeros(8, 8), is_causal=None)", True),
    ("h = self.dec(h, h, tgt_mask=torch.zeros(8, 8))", True),
    ("h = self.seq(h, h, tgt_mask=self.seq.generate_square_subsequent_mask(8))", True),
    ("h = self.seq(h, h, src_mask=torch.zeros(8, 8))", True),
    ("h = self.enc(h, mask=torch.zeros(8, 8), is_causal=True)", False),
    ("h = self.enc(h, mask=None)", False),
    ("h = self.enc(h, src_key_padding_mask=h[..., 0] > 0)", False),
    ("h = self.dec(h, h, memory_mask=torch.zeros(8, 8))", False),
    ("h = self.layer(h, src_mask=torch.zeros(8, 8))", False),
    ("h = self.seq(h, h)", False),
]


@pytest.mark.parametrize(("statement", "breaks"), CAUSAL_MASK_CALLS)
def test_causal_mask_check(tmp_path, statement, breaks):
    source = net(statement, init=TRANSFORMER_STACKS)
    line = source.splitlines().index(f"        {statement}") + 1
    assert codes_of(lint(tmp_path, source)) == ([(line, "SFX106")] if breaks else [])


def test_causal_mask_check_of_an_optional_input_needs_it_given(tmp_path):
    """A root's input defaulting to None as the mask: torch tests it on the calls that give it
    (measured: transformer_mask.py optional_mask_given / optional_mask_omitted)."""
    source = HEADER + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True), 1)

            def forward(self, x, mask=None):
                return self.enc(x, mask=mask)
        """)
    found = lint(tmp_path, source)
    assert codes_of(found) == [(source.splitlines().index("        return self.enc(x, mask=mask)") + 1, "SFX106")]
    assert "when `mask` is given" in found[0][2]


def test_list_of_tensors_annotation(tmp_path):
    """An input annotated `List[Tensor]` holds tensors: a branch on one of its items breaks
    (GB0170, measured on tests/cases/val_iter_enumerate.py)."""
    source = HEADER + textwrap.dedent("""\
        from typing import List


        class Net(nn.Module):
            def forward(self, feats: List[torch.Tensor]):
                out = feats[0]
                for i, feat in enumerate(feats[1:], start=1):
                    if feat.mean() > 0:
                        out = out + feat / i
                return out
        """)
    line = source.splitlines().index("            if feat.mean() > 0:") + 1
    assert codes_of(lint(tmp_path, source)) == [(line, "SFX101")]


def test_the_torch_tensor_factory_as_an_annotation_means_a_tensor(tmp_path):
    """`hidden_states: torch.tensor` (the factory written for the type, as in wav2vec2's and
    hubert's encoders) is a tensor input, not an unknown one: a branch on it breaks (GB0170)."""
    source = HEADER + textwrap.dedent("""\
        class Net(nn.Module):
            def forward(self, hidden_states: torch.tensor):
                if hidden_states.sum() > 0:
                    return hidden_states
                return -hidden_states
        """)
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "if hidden_states.sum() > 0:" in text)
    assert codes_of(lint(tmp_path, source)) == [(line, "SFX101")]


def test_an_input_named_a_mask_is_a_bool_mask_unless_annotated_otherwise(tmp_path):
    """`hidden_states[mlm_mask]` keeps as many rows as the mask has True values (GB0036,
    measured on tests/cases/val_mask_named_index.py); an index not named a mask, or a mask
    annotated `torch.LongTensor`, gathers and traces."""
    source = HEADER + textwrap.dedent("""\
        class Net(nn.Module):
            def forward(self, h, mlm_mask, padding_mask: torch.Tensor, index, token_mask: torch.LongTensor):
                selected = h[mlm_mask].sum(0)
                padded = h[padding_mask].sum(0)
                return selected + padded + h[index].sum(0) + h[:, token_mask].sum(1)
        """)
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "h[mlm_mask]" in text)
    found = lint(tmp_path, source)
    assert codes_of(found) == [(line, "SFX401"), (line + 1, "SFX401")]
    assert ["h[mlm_mask]" in found[0][2], "h[padding_mask]" in found[1][2]] == [True, True]


def test_branch_in_a_generator_gives_up_on_the_frame(tmp_path):
    """A data-dependent `if` inside a generator expression: dynamo cannot resume the generator
    and runs forward eagerly (GB0170, frame skipped, measured on val_iter_map_filter.py)."""
    found = lint(tmp_path, net("h = next(t for t in [h, h * 2] if t.max() > 0)"))
    assert [message.split()[0] for _, _, message in found] == ["SFX101"]
    assert "runs eagerly" in found[0][2]


def test_enumerate_counts_from_start(tmp_path):
    """`enumerate(xs, start=1)` numbers the items from 1: only the second item is printed."""
    source = net("for i, t in enumerate([h, h], start=1):\n    if i == 2:\n        print(t)")
    line = source.splitlines().index("                print(t)") + 1
    assert codes_of(lint(tmp_path, source)) == [(line, "SFX201")]


def test_while_flag_set_from_a_tensor_in_the_body(tmp_path):
    """The loop test runs again after the body: a flag set there from a tensor breaks at the
    `while` (GB0170, measured on tests/cases/nlp_greedy_generate.py)."""
    source = net("done = False\nwhile not done:\n    h = h * 2\n    done = h.sum() > 10")
    line = source.splitlines().index("        while not done:") + 1
    assert codes_of(lint(tmp_path, source)) == [(line, "SFX101")]


def test_inputs_only_assumed_tensors_stay_assumed(tmp_path):
    """An unannotated input is only assumed a tensor: unpacking or indexing it with an int is
    as valid on a tuple, and `cache.get_seq_length()` is no tensor method, so neither is
    evidence (transformers' focalnet `height, width = input_dimensions`, big_bird's cache)."""
    source = HEADER + textwrap.dedent("""\
        class Net(nn.Module):
            def forward(self, x, input_dimensions, cache=None):
                height, width = input_dimensions
                size = input_dimensions[0]
                if cache is not None and cache.get_seq_length() > 0:
                    x = x * 2
                return x.view(height, width, -1) + torch.arange(size)
    """)
    assert codes_of(lint(tmp_path, source)) == []


def test_break_in_local_object_follows_its_cause(tmp_path):
    """SFX310 exists only while the break inside the object's method does: captured
    `.item()` (capture_scalar_outputs) resumes, so nothing is reported."""
    extra = "class Running:\n    def __init__(self, x):\n        self.total = x.sum()\n\n" \
            "    def mean(self):\n        return self.total.item()\n\n\n"
    source = net("stats = Running(h)\nh = h / stats.mean()", extra=extra)
    assert {c for _, c in codes_of(lint(tmp_path, source))} == {"SFX102", "SFX310"}
    assert codes_of(lint(tmp_path, source, Options(capture_scalar_outputs=True))) == []


@pytest.mark.parametrize("body", [
    # Measured with torch 2.13 (and on transformers' longformer): none of these breaks.
    "pos = torch.arange(x.shape[0]) + x.sum()",                       # a shape is static
    "h = h.view(h.size(0), torch.div(h.size(1), 2, rounding_mode='trunc'), 2)",  # torch op on ints
    "m = h.sum(0).argmax()\nidx = torch.nonzero(h)\npos = torch.arange(m)",  # m is an input after the break
])
def test_size_from_a_tensor_that_dynamo_does_not_need(tmp_path, body):
    codes = {code for _, code in codes_of(lint(tmp_path, net(body)))}
    assert "SFX102" not in codes


def test_message_names_the_gb_id_of_the_occurrence(tmp_path):
    """SFX102 covers .item() (GB0124) and a tensor used as a size (GB0033): each message
    names its own."""
    found = lint(tmp_path, net("n = h.argmax()\npos = torch.arange(n)\nv = h.sum().item()"))
    assert [message.split(";")[0].rsplit("(", 1)[1] for _, _, message in found] == ["GB0033)", "GB0124)"]


def test_numpy_random_draws_break_as_torch_numpy_traces_them(tmp_path):
    """Measured with 2.13 (tests/cases/val_numpy_random_ids.py): np.random.permutation is a
    numpy function torch._numpy lacks (GB0294); its draws trace, and break only when no size
    makes them a Python number (GB0033)."""
    found = lint(tmp_path, net("p = np.random.permutation(4)\nu = np.random.uniform(0, 1)\n"
                               "a = np.random.uniform(0, 1, size=(2,))\nr = np.random.randn(*h.shape)\n"
                               "c = np.random.choice([1, 2])\nn = np.random.normal(0.0, 1.0, 4)",
                               extra="import numpy as np\n\n\n"))
    assert [(code, message.split(";")[0].rsplit("(", 1)[1]) for (_, code), (_, _, message)
            in zip(codes_of(found), found)] == [("SFX104", "GB0294)"), ("SFX104", "GB0033)"), ("SFX104", "GB0033)")]


def test_a_number_read_from_a_random_array_breaks(tmp_path):
    """Measured with 2.13 (tests/cases/val_numpy_array_item.py, from transformers' wav2vec2):
    `.item()` of an array holding data needs it in Python, and np.random.choice breaks with a
    size as without one (GB0033); a draw that stays an array traces."""
    found = lint(tmp_path, net("e = np.random.rand(1).item()\ns = np.random.choice(np.arange(8), 2, replace=False)\n"
                               "n = np.random.rand(2, 3)\nk = np.zeros(3).item()",
                               extra="import numpy as np\n\n\n"))
    assert [(code, message.split(";")[0].rsplit("(", 1)[1]) for (_, code), (_, _, message)
            in zip(codes_of(found), found)] == [("SFX102", "GB0033)"), ("SFX104", "GB0033)")]


def test_a_break_in_a_try_body_gives_up_on_the_function(tmp_path):
    """Measured with 2.13 (tests/cases/cfg_try_except.py): dynamo cannot resume inside a `try`
    body; a try whose body traces is no break at all."""
    source = net("try:\n    s = h.sum().item()\nexcept ValueError:\n    s = 0.0\nh = h * s")
    [(_, _, message)] = lint(tmp_path, source)
    assert "in a `try` block, whole `forward` runs eagerly" in message
    assert lint(tmp_path, net("try:\n    h = h * self.scale\nexcept AttributeError:\n    pass")) == []


def test_unittest_mock_calls_are_skipped(tmp_path):
    """Dynamo skips the unittest directory (measured: tests/cases/cfg_mock_decorated.py)."""
    extra = textwrap.dedent("""\
        from unittest import mock


        class Hooks:
            @staticmethod
            def on_output(t):
                return t


        @mock.patch.object(Hooks, "on_output", staticmethod(lambda t: t * 2))
        def patched(t):
            return Hooks.on_output(t)


    """)
    source = net("self.callback(h.shape)  # expect: SFX203\nh = patched(h)  # expect: SFX203",
                 init="self.callback = mock.Mock(return_value=None)", extra=extra)
    assert codes_of(lint(tmp_path, source)) == expected(source)
    assert lint(tmp_path, net("h = Hooks.on_output(h)", extra=extra)) == []


def test_a_contextmanager_generator_runs_at_the_with(tmp_path):
    """`with announced():` runs the generator's body, traced by dynamo: a print in it breaks,
    inside the `with` (measured: tests/cases/cfg_user_context_managers.py)."""
    extra = textwrap.dedent("""\
        import contextlib


        @contextlib.contextmanager
        def announced(name):
            print("entering", name)  # expect: SFX201
            yield


        @contextlib.contextmanager
        def quiet(module):
            saved = module.scale
            module.scale = 0.5
            yield module
            module.scale = saved


    """)
    source = net("with announced('fc'):\n    h = h * 2", extra=extra)
    assert codes_of(lint(tmp_path, source)) == expected(source)
    assert lint(tmp_path, net("with quiet(self):\n    h = h * self.scale", init="self.scale = 1.0",
                              extra=extra)) == []


NUMPY_FLAG_MODEL = '''
import numpy as np
import torch
import torch.nn as nn


class Resample(nn.Module):
    def __init__(self):
        super().__init__()
        lats = np.flip(np.arccos(np.cos(np.linspace(np.pi, 0, 8)))).copy()
        self.expand_poles = (lats > 3.0).any() or (lats < 0.1).any()
        self.checked = bool((lats > 3.0).any())

    def forward(self, x):
        if self.expand_poles:  # expect: SFX101
            x = x + 1
        if self.checked:
            x = x * 2
        return x


model = torch.compile(Resample())
'''


def test_numpy_value_kept_by_the_module_is_graph_data(tmp_path):
    """An `np.bool` set in `__init__` is a graph input dynamo wraps as a tensor: testing it
    breaks (numpy_grid_resample.py, torch-harmonics' ResampleS2); bool() of it is static."""
    assert codes_of(lint(tmp_path, NUMPY_FLAG_MODEL)) == expected(NUMPY_FLAG_MODEL)


def test_sparse_tensor_keeps_breaking_in_each_frame_it_reaches(tmp_path):
    """A coalesced sparse kernel returned by a helper: dynamo breaks where it is made, where the
    caller passes it on and where the callee reads its shape (GB0015 in each frame, the rest of
    each runs eagerly: nothing after those breaks, measured on cfg_sparse_kernel_helper.py)."""
    source = HEADER + textwrap.dedent("""\
        def contract(x, kernel):
            rows, cols = kernel.shape
            return torch.sparse.mm(kernel, x.reshape(cols, -1))


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("idx", torch.stack([torch.arange(4), torch.arange(4)]))
                self.register_buffer("vals", torch.rand(4))

            def kernel(self):
                return torch.sparse_coo_tensor(self.idx, self.vals, size=(4, 4)).coalesce()

            def forward(self, x):
                kernel = self.kernel()
                return contract(x, kernel)
        """)
    lines = source.splitlines()
    made, read, passed = (lines.index(text) + 1 for text in (
        "        return torch.sparse_coo_tensor(self.idx, self.vals, size=(4, 4)).coalesce()",
        "    rows, cols = kernel.shape",
        "        return contract(x, kernel)"))
    assert codes_of(lint(tmp_path, source)) == [(read, "SFX312"), (made, "SFX203"), (made, "SFX312"),
                                                (passed, "SFX312")]


@pytest.mark.parametrize("body, breaks", [
    # Measured with torch 2.13 (tests/cases/global_attention_asserts.py, longformer, and each
    # form under torch._dynamo.explain): an item pair that gives a tensor stops dynamo's list
    # comparison (GB6622), if the comparison gets to it.
    ("n = h.sum(0).argmax()\nassert list(h.size()) == [x.shape[0], n]", True),
    ("n = h.sum(0).argmax()\nassert [x.shape[0], n] == list(h.size())", True),
    ("n = h.sum(0).argmax()\nok = [x.shape[0], n] == list(h.size())", False),  # lengths not known
    ("n = h.sum(0).argmax()\nok = [h.shape[0], n] == [2, 8]", False),     # breaks, but only as h.shape[0] is 2
    ("n = h.sum(0).argmax()\nok = [2, n] == [2, 8]", True),
    ("n = h.sum(0).argmax()\nok = [1, n] == [2, 8]", False),              # the first pair differs
    ("n = h.sum(0).argmax()\nok = [2, n] == [2, 8, 8]", False),           # lengths differ
    ("n = h.sum(0).argmax()\nok = (2, n) == [2, 8]", False),              # a tuple is never a list
    ("assert list(h.size()) == [x.shape[0], h.size(1)]", False),          # sizes are ints
])
def test_list_comparison_with_a_tensor_item(tmp_path, body, breaks):
    found = lint(tmp_path, net(body))
    assert [message.split(";")[0].rsplit("(", 1)[1] for _, _, message in found] == (["GB6622)"] if breaks else [])


@pytest.mark.parametrize("body, breaks", [
    # A container on one path and None on the other: what fails on None goes on with the
    # container (tests/cases/mm_rope_index.py: `next(grid_iters[kind])` is a row of the grid).
    ("rows = iter(h) if h.shape[0] > 1 else None\nv = next(rows).sum().item()", True),
    ("rows = {1: iter(h) if h.shape[0] > 1 else None, 2: None}\nv = next(rows[h.shape[1]]).sum().item()", True),
    ("pair = (h, x) if h.shape[0] > 1 else (x, h)\nv = pair[1].sum().item()", True),
    ("rows = iter(h) if h.shape[0] > 1 else None\nh = h * 2 if rows is None else h", False),
    ("rows = [h] if h.shape[0] > 1 else []\nrows.append(3)\nv = rows[-1]", False),
])
def test_a_container_or_none_is_the_container_where_none_would_fail(tmp_path, body, breaks):
    assert [code for _, code in codes_of(lint(tmp_path, net(body)))] == (["SFX102"] if breaks else [])


@pytest.mark.parametrize("init", [
    "self.proj = nn.utils.weight_norm(nn.Linear(8, 8))",
    "self.proj = nn.utils.parametrizations.spectral_norm(nn.Linear(8, 8), name='weight')",
    # VitsWaveNet: parametrizations.weight_norm where torch has it, else the older one
    """
    if hasattr(nn.utils.parametrizations, "weight_norm"):
        weight_norm = nn.utils.parametrizations.weight_norm
    else:
        weight_norm = nn.utils.weight_norm
    self.proj = weight_norm(nn.Linear(8, 8), name="weight")
    """,
])
def test_a_reparametrized_layer_is_the_layer(tmp_path, init):
    """weight_norm and its kin return the module they are given (tests/cases/wavenet_gated_units.py)."""
    source = net("v = self.proj(h).sum().item()", init=init)
    assert [code for _, code in codes_of(lint(tmp_path, source))] == ["SFX102"]


def test_a_module_list_of_unknown_length_calls_its_one_kind_of_layer(tmp_path):
    """`nn.ModuleList([Layer(config) for i in range(config.n)])`: the count is the config's, but
    every item is a Layer, so the loop's result is a tensor (tests/cases/eos_classifier_layers.py)."""
    extra = textwrap.dedent("""\
        class Layer(nn.Module):
            def __init__(self, config, layer_idx=None):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, h):
                return self.fc(h)


        class Stack(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.layers = nn.ModuleList([Layer(config, layer_idx=i) for i in range(config.num_layers)])

            def forward(self, h):
                for layer in self.layers:
                    h = layer(h)
                return h


        """)
    found = lint(tmp_path, net("s = self.stack(h).sum().item()", init="self.stack = Stack(self.config)", extra=extra))
    assert [code for _, code in codes_of(found)] == ["SFX102"]
