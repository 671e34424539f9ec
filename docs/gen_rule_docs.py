"""Generate docs/rules/SFXnnn.md, one page per code in flake8_staticfx.rules.RULES.

    python docs/gen_rule_docs.py           # list the pages that would be written
    python docs/gen_rule_docs.py --check   # exit 1 if a page is missing, stale or extra
    python docs/gen_rule_docs.py --write   # (re)write every page

The code, name, message, GB ids and workaround come from RULES; what dynamo does, the
examples and what is not flagged come from PAGES below. tests/test_rule_docs.py checks that
every page is current, that each example triggers exactly its code (and the page's
`with_codes`), and that the fixed and
not-flagged versions trigger nothing.
"""
from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flake8_staticfx.fix import REWRITTEN_FORMS  # noqa: E402
from flake8_staticfx.messages import notice, recompile as recompile_message, render as render_message  # noqa: E402
from flake8_staticfx.front.rule_docs import FLAG_OF_SETTING  # noqa: E402
from flake8_staticfx.rules import GB_DOCS, RULES  # noqa: E402

OUT = ROOT / "docs" / "rules"

OPTION_OF_SETTING = {setting: f"`{flag}`" for setting, flag in FLAG_OF_SETTING.items()}

HEADER = "import torch\nfrom torch import nn\n"


@dataclass(frozen=True)
class Page:
    dynamo: str  # what dynamo does with the construct and why it costs performance
    example: str  # triggers exactly this code (body after HEADER)
    fixed: str  # the same model without the break
    not_flagged: str  # look-alikes the rule leaves alone
    not_flagged_notes: str  # prose for the "not flagged" section
    with_codes: tuple[str, ...] = ()  # what the example also triggers (the break SFX310 follows)


def _d(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


PAGES: dict[str, Page] = {}

PAGES["SFX101"] = Page(
    dynamo="Dynamo traces tensors symbolically: while tracing it does not know a tensor's "
           "value, so `if`, `while`, a ternary, `and`/`or`/`not` or `in` on a tensor cannot pick a branch. "
           "It ends the graph before the condition, runs the condition eagerly, and starts a new "
           "graph after it. Each break costs a graph launch, a Python round trip and a "
           "device-to-host sync, and blocks fusion across the break.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return torch.where(x.sum() > 0, x, -x)
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x, training: bool = True):
                if x.dim() == 3:
                    x = x.flatten(1)
                if x.shape[0] > 1:
                    x = x * 2
                if training:
                    x = x + 1
                return x
    """,
    not_flagged_notes="Branches on static values: shapes, `dim()`, Python flags and "
                      "attributes. Dynamo specializes or guards on those instead of breaking.",
)

PAGES["SFX102"] = Page(
    dynamo="`.item()`, `int(t)`, `float(t)` and `bool(t)` ask for a tensor's value as a Python "
           "number. By default dynamo cannot put that in the graph: it breaks, syncs with the "
           "device to read the value, and resumes in a new graph. A tensor passed as a size "
           "(`torch.arange(lengths.max())`, `x.new_zeros(n.sum())`, `x.view(n.max(), -1)`) is "
           "converted the same way (GB0033).",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                scale = x.abs().max().item()
                return x / scale
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                scale = x.abs().max()
                return x / scale
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                n = int(x.shape[-1])
                return x / n
    """,
    not_flagged_notes="Conversions of static values such as sizes (`int(x.shape[-1])`). "
                      "With `--staticfx-capture-scalar-outputs` or `--staticfx-fullgraph` the "
                      "rule is quiet, since dynamo then captures the scalar as a symbolic value.",
)

PAGES["SFX103"] = Page(
    dynamo="`.tolist()` copies a tensor's data into Python objects. Dynamo cannot trace that "
           "without knowing the values: it breaks the graph and syncs with the device.",
    example="""
        class Net(nn.Module):
            def forward(self, x, lengths):
                sizes = lengths.tolist()
                return torch.split(x, sizes)
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x, sizes: list[int]):
                return torch.split(x, sizes)


        def run(model, x, lengths):
            return model(x, lengths.tolist())
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                dims = list(x.shape)
                return x.reshape(dims[0], -1)
    """,
    not_flagged_notes="Lists built from static values such as `list(x.shape)`. The rule is "
                      "quiet with `--staticfx-capture-scalar-outputs` or `--staticfx-fullgraph` "
                      "(integer tensors are then captured; float ones still break, but their "
                      "dtype is rarely known statically).",
)

PAGES["SFX104"] = Page(
    dynamo="Python operators and library functions that need a concrete number (`math.sqrt`, "
           "`torch._assert`, NumPy's random functions, ...) force dynamo to materialize a "
           "tensor's value, which it cannot do while tracing: it breaks the graph.",
    example="""
        import math


        class Net(nn.Module):
            def forward(self, x):
                return x * math.sqrt(x.mean())
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return x * torch.sqrt(x.mean())
    """,
    not_flagged="""
        import math


        class Net(nn.Module):
            def forward(self, x):
                return x / math.sqrt(x.shape[-1])
    """,
    not_flagged_notes="The same functions applied to static values such as sizes.",
)

PAGES["SFX105"] = Page(
    dynamo="Dynamo traces calls to Python's `random` module, but cannot do Python arithmetic on "
           "the number it returns inside the graph: it breaks the graph at the arithmetic.",
    example="""
        import random


        class Net(nn.Module):
            def forward(self, x):
                k = random.randint(1, 4) * 2
                return x * k
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                k = torch.randint(1, 5, ()) * 2
                return x * k
    """,
    not_flagged="""
        import random


        class Net(nn.Module):
            def forward(self, x):
                k = random.randint(1, 4)
                return x * k
    """,
    not_flagged_notes="Using the random number directly, without Python arithmetic on it.",
)

PAGES["SFX106"] = Page(
    dynamo="Dynamo traces into torch.nn's own Python code. `nn.TransformerEncoder`, "
           "`nn.TransformerDecoder` and `nn.Transformer` given an attention mask without `is_causal` "
           "ask `_detect_is_causal_mask` whether the mask is causal: for an (S, S) mask it compares "
           "the mask with a causal one and takes the Python bool of the result, a tensor's value "
           "(GB0124 in torch 2.13, 2.14 and 2.15, in training and eval mode alike). The graph ends "
           "at the call.",
    example="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, batch_first=True), 2)

            def forward(self, x):
                mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
                return self.encoder(x, mask=mask)
    """,
    fixed="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, batch_first=True), 2)

            def forward(self, x):
                mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
                return self.encoder(x, mask=mask, is_causal=True)
    """,
    not_flagged="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.TransformerEncoderLayer(16, 2, batch_first=True)

            def forward(self, x):
                mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
                return self.layer(x, src_mask=mask)
    """,
    not_flagged_notes="A single `nn.TransformerEncoderLayer` or `nn.TransformerDecoderLayer` given a mask "
                      "(it takes `is_causal` as a hint and never tests the mask), a stack without a mask "
                      "or with only a padding mask or a memory mask, and a mask with `is_causal` given. A root's "
                      "input defaulting to None as the mask is reported \"when it is given\"; one "
                      "without a default or an annotation is not known to be a tensor and is not reported. "
                      "Not modelled: a mask of another shape than (S, S), such as a per-head 3-D mask, "
                      "which torch does not compare (no break).",
)

PAGES["SFX201"] = Page(
    dynamo="Builtins with side effects such as `print`, `input` or `open` cannot be recorded in "
           "an FX graph. Dynamo breaks the graph, runs the call eagerly, and resumes in a new graph.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                print(x.shape)
                return x + 1
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                if not torch.compiler.is_compiling():
                    print(x.shape)
                return x + 1
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                n = len(x.shape)
                return x + n
    """,
    not_flagged_notes="Builtins dynamo traces (`len`, `isinstance`, `range`, `min`/`max` on "
                      "static values, ...) and calls guarded by `torch.compiler.is_compiling()`.",
)

PAGES["SFX202"] = Page(
    dynamo="A logging call is a side effect dynamo cannot put in the graph. Unless the method "
           "is listed in `torch._dynamo.config.ignore_logger_methods` (then dynamo drops it), "
           "the graph breaks at the call.",
    example="""
        import logging

        logger = logging.getLogger(__name__)


        class Net(nn.Module):
            def forward(self, x):
                logger.info("forward")
                return x + 1
    """,
    fixed="""
        import logging

        logger = logging.getLogger(__name__)


        class Net(nn.Module):
            def forward(self, x):
                if not torch.compiler.is_compiling():
                    logger.info("forward")
                return x + 1
    """,
    not_flagged="""
        import logging

        logger = logging.getLogger(__name__)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                logger.info("built")

            def forward(self, x):
                return x + 1
    """,
    not_flagged_notes="Logging outside the compiled function (in `__init__`), logging guarded "
                      "by `torch.compiler.is_compiling()`, and methods given with "
                      "`--staticfx-ignore-logging-functions`.",
)

PAGES["SFX203"] = Page(
    dynamo="Dynamo skips functions from some modules (`time`, `warnings`, C extensions, ...): "
           "it does not trace into them and cannot call them inside the graph, so it breaks "
           "the graph around the call.",
    example="""
        import time


        class Net(nn.Module):
            def forward(self, x):
                start = time.time()
                return x + start
    """,
    fixed="""
        import time


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.start = time.time()

            def forward(self, x):
                return x + self.start
    """,
    not_flagged="""
        import warnings


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                warnings.warn("slow path")

            def forward(self, x):
                return x * 2
    """,
    not_flagged_notes="The same calls outside the compiled function.",
)

PAGES["SFX301"] = Page(
    dynamo="`torch._dynamo.graph_break()` asks dynamo to end the graph there. It is often left "
           "over from debugging; every break adds a graph launch and blocks fusion across it.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                x = x + 1
                torch._dynamo.graph_break()
                return x * 2
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                x = x + 1
                return x * 2
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                x = x + 1
                if not torch.compiler.is_compiling():
                    torch._dynamo.graph_break()
                return x * 2
    """,
    not_flagged_notes="A break guarded by `torch.compiler.is_compiling()`.",
)

PAGES["SFX302"] = Page(
    dynamo="A function decorated with `torch.compiler.disable` (or `torch._dynamo.disable`) "
           "always runs eagerly: dynamo breaks the graph before the call and resumes after it.",
    example="""
        @torch.compiler.disable
        def debug_stats(x):
            return x.mean()


        class Net(nn.Module):
            def forward(self, x):
                x = x + 1
                debug_stats(x)
                return x * 2
    """,
    fixed="""
        def debug_stats(x):
            return x.mean()


        class Net(nn.Module):
            def forward(self, x):
                x = x + 1
                debug_stats(x)
                return x * 2
    """,
    not_flagged="""
        @torch.compiler.disable
        def debug_stats(x):
            return x.mean()


        class Net(nn.Module):
            def forward(self, x):
                return x * 2


        def train_step(model, x):
            y = model(x)
            debug_stats(y)
            return y
    """,
    not_flagged_notes="Calls to disabled functions outside the compiled region.",
)

PAGES["SFX303"] = Page(
    dynamo="Autograd entry points (`.backward()`, `torch.autograd.grad`) inside the traced "
           "function are not captured by default: dynamo breaks the graph and runs them eagerly.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                y = (x * x).sum()
                (g,) = torch.autograd.grad(y, x, create_graph=True)
                return g
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return (x * x).sum()


        def gradient(model, x):
            y = model(x)
            (g,) = torch.autograd.grad(y, x, create_graph=True)
            return g
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                return x.detach() * 2
    """,
    not_flagged_notes="`detach()`, `torch.no_grad()` and autograd calls outside the compiled "
                      "function.",
)

PAGES["SFX304"] = Page(
    dynamo="Changing `requires_grad` of a tensor inside the traced function changes how "
           "autograd must treat the graph's inputs; dynamo breaks the graph there. Creating a "
           "tensor with `requires_grad=True` (`torch.zeros(n, requires_grad=True)`, or "
           "`requires_grad=self.training` in a training run) breaks too (GB0225).",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                x.requires_grad_(True)
                return x * 2
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return x * 2


        def run(model, x):
            x.requires_grad_(True)
            return model(x)
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                if x.requires_grad:
                    x = x * 2
                return x + torch.zeros(1, requires_grad=False)
    """,
    not_flagged_notes="Reading `requires_grad`, which dynamo guards on; a factory with "
                      "`requires_grad=False`.",
)

PAGES["SFX305"] = Page(
    dynamo="`copy.deepcopy` / `copy.copy` of a module or tensor inside the traced function is "
           "not traceable: dynamo breaks the graph and runs the copy eagerly, on every call.",
    example="""
        import copy


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                teacher = copy.deepcopy(self.fc)
                return teacher(x)
    """,
    fixed="""
        import copy


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.teacher = copy.deepcopy(self.fc)

            def forward(self, x):
                return self.teacher(x)
    """,
    not_flagged="""
        import copy


        class Net(nn.Module):
            def forward(self, x):
                config = copy.deepcopy({"a": 1})
                return x * config["a"]
    """,
    not_flagged_notes="Copies of plain Python data, and copies made in `__init__`.",
)

PAGES["SFX306"] = Page(
    dynamo="Dynamo does not trace `nn.RNN`, `nn.GRU` or `nn.LSTM` modules: it breaks the graph "
           "and runs the recurrent module eagerly.",
    example="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(8, 8, batch_first=True)

            def forward(self, x):
                out, _ = self.rnn(x)
                return out
    """,
    fixed="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.GRUCell(8, 8)

            def forward(self, x):
                return self.cell(x)
    """,
    not_flagged="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.LSTMCell(8, 8)

            def forward(self, x):
                h, c = self.cell(x)
                return h
    """,
    not_flagged_notes="The cell modules (`nn.RNNCell`, `nn.GRUCell`, `nn.LSTMCell`), which "
                      "dynamo traces. There is no mechanical fix, so the rule is not marked "
                      "fixable.",
)

PAGES["SFX315"] = Page(
    dynamo="torch 2.13's handler of the builtins `min` and `max` breaks the graph (GB0193) on a "
           "`key=` computing a tensor and on a lambda reading the compiled function's variables. From 2.14 "
           "dynamo runs any key on each item; a key that computes a tensor (`key=lambda t: t.mean()`) "
           "still needs the tensors' values to compare them in Python, so it breaks (GB5687), while "
           "a key over Python data traces.",
    example="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(8, 8)
                self.b = nn.Linear(8, 8)

            def forward(self, x):
                return max([self.a(x), self.b(x)], key=lambda t: t.mean())
    """,
    fixed="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(8, 8)
                self.b = nn.Linear(8, 8)

            def forward(self, x):
                outs = torch.stack([self.a(x), self.b(x)])
                return outs[outs.mean(dim=(1, 2)).argmax()]
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                return x * max([3, 1, 2])
    """,
    not_flagged_notes="`min`/`max` without a key, or with `abs`, a module-level function or a list's "
                      "`__getitem__` over Python data. With torch 2.14 or later, a lambda over Python "
                      "data (`max(range(n), key=lambda i: self.priority[i])`) is not flagged either.",
)

PAGES["SFX317"] = Page(
    dynamo="Python 3.11 runs a comprehension as a function of its own, called with an iterator of its "
           "iterable. Once dynamo gives up on the function holding it (a break in a loop, a `with` or "
           "`try` block), that function runs eagerly and dynamo compiles each comprehension in it that "
           "reads a tensor or module as a frame of its own. It steps the iterator of a tuple, a range "
           "or a tensor there (a list display in the `for` is made a tuple), but not that of a list, "
           "a module list, a dict (or its views), a set, `zip` or `enumerate`: the comprehension "
           "breaks too (GB4347 \"Missing tp_iternext\"; GB9493 from torch 2.14).",
    example="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.heads = nn.ModuleDict({"a": nn.Linear(8, 8), "b": nn.Linear(8, 8)})

            def forward(self, x):
                for _ in range(2):
                    x = x + x.sum().item()
                return [head(x) for name, head in self.heads.items()]
    """,
    with_codes=("SFX102",),
    fixed="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.heads = nn.ModuleDict({"a": nn.Linear(8, 8), "b": nn.Linear(8, 8)})

            def forward(self, x):
                for _ in range(2):
                    x = x + x.sum()
                return [head(x) for name, head in tuple(self.heads.items())]
    """,
    not_flagged="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.heads = nn.ModuleDict({"a": nn.Linear(8, 8), "b": nn.Linear(8, 8)})

            def forward(self, x):
                return [head(x) for name, head in self.heads.items()]
    """,
    not_flagged_notes="the same comprehension in a function dynamo compiles on: it inlines the comprehension.",
)

PAGES["SFX318"] = Page(
    dynamo="A compiled function's inputs are what its callers pass. A `zip`, an `enumerate` or a "
           "dict view (`d.items()`) made in eager code reaches dynamo as an object it does not model: "
           "it cannot step it, so iterating it breaks (GB0811 \"Dynamo does not know how to iterate\"; "
           "GB9493 from torch 2.14). In a `for` loop or a comprehension dynamo gives up on the whole "
           "function and it runs eagerly; `list(...)` or `tuple(...)` of it splits the graph. The "
           "linter reads the calls of the compiled function in its file.",
    example="""
        @torch.compile
        def weighted_sum(pairs, x):
            for weight, t in pairs:
                x = x + weight * t
            return x


        def run(x):
            return weighted_sum(zip([1.0, 2.0], [x, x]), x)
    """,
    fixed="""
        @torch.compile
        def weighted_sum(pairs, x):
            for weight, t in pairs:
                x = x + weight * t
            return x


        def run(x):
            return weighted_sum(tuple(zip([1.0, 2.0], [x, x])), x)
    """,
    not_flagged="""
        @torch.compile
        def weighted_sum(pairs, x):
            if pairs is None:
                return x
            return x + 1


        def run(x):
            return weighted_sum(zip([1.0, 2.0], [x, x]), x)
    """,
    not_flagged_notes="an iterator passed in but never iterated (tested for None, passed on): dynamo "
                      "does not break; nor does a zip built inside compiled code, which dynamo models.",
)

PAGES["SFX316"] = Page(
    dynamo="A class whose metaclass defines `__instancecheck__` (jaxtyping's and beartype's shape "
           "annotations) makes `isinstance(x, C)` run Python code on the tensor. From torch 2.14 "
           "dynamo breaks the graph there (GB2736); 2.13 ran the check while tracing and kept one "
           "branch, guarded on the input.",
    example="""
        class _RankMeta(type):
            def __instancecheck__(cls, obj):
                return obj.dim() == 2


        class Matrix(metaclass=_RankMeta):
            pass


        class Net(nn.Module):
            def forward(self, x):
                if isinstance(x, Matrix):
                    return x * 2
                return x.flatten(1)
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                if x.dim() == 2:
                    return x * 2
                return x.flatten(1)
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                if isinstance(x, torch.Tensor):
                    return x * 2
                return x
    """,
    not_flagged_notes="`isinstance` with torch's classes or a class without a custom check; with torch "
                      "2.13 (`--staticfx-torch-version 2.13`) nothing is flagged.",
)

PAGES["SFX307"] = Page(
    dynamo="The builtin `sorted()` over a tensor iterates it and compares elements in Python, "
           "which needs tensor values: dynamo breaks the graph.",
    example="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                h = self.fc(x)
                return sorted(h[0])
    """,
    fixed="""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                h = self.fc(x)
                return torch.sort(h[0]).values
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                names = sorted(["b", "a"])
                return x * len(names)
    """,
    not_flagged_notes="`sorted()` over Python data.",
)

PAGES["SFX308"] = Page(
    dynamo="Dynamo supports a fixed set of context managers (`torch.no_grad`, `torch.autocast`, "
           "...). Entering another one, such as `torch.random.fork_rng()`, breaks the graph, and "
           "since dynamo cannot resume inside a `with` block the enclosing function may run "
           "eagerly.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                with torch.random.fork_rng():
                    x = x * 2
                return x
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return x * 2


        def run(model, x):
            with torch.random.fork_rng():
                return model(x)
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                with torch.no_grad():
                    x = x * 2
                return x
    """,
    not_flagged_notes="Context managers dynamo supports (`torch.no_grad`, `torch.enable_grad`, "
                      "`torch.autocast`, ...).",
)

PAGES["SFX309"] = Page(
    dynamo="A `torch.Generator` created inside the traced function cannot be represented in "
           "the graph; dynamo breaks at its creation and at each use.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                g = torch.Generator().manual_seed(0)
                return x + torch.randn(8, generator=g)
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return x + torch.randn(8)


        def run(model, x):
            torch.manual_seed(0)
            return model(x)
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                return x + torch.randn(8)
    """,
    not_flagged_notes="Random ops drawing from the global RNG.",
)

PAGES["SFX310"] = Page(
    dynamo="An object of a plain Python class created inside the traced function has no "
           "source dynamo could rebuild it from. When the graph breaks inside one of its "
           "methods (here `.item()`), dynamo must resume the calling function with that "
           "object alive and cannot reconstruct it (\"Reconstruction failure\"): it gives up "
           "on the whole function, which runs eagerly. A break in any other helper, or in a "
           "method of an object made in `__init__`, resumes normally.",
    example="""
        class Running:
            def __init__(self, x):
                self.total = x.sum()

            def mean(self, n):
                return self.total.item() / n


        class Net(nn.Module):
            def forward(self, x):
                stats = Running(x)
                return x - stats.mean(x.shape[0])
    """,
    fixed="""
        class Running:
            def __init__(self, x):
                self.total = x.sum()

            def mean(self, n):
                return self.total / n


        class Net(nn.Module):
            def forward(self, x):
                stats = Running(x)
                return x - stats.mean(x.shape[0])
    """,
    not_flagged="""
        class Window:
            def __init__(self, size):
                self.size = size

            def clip(self, x):
                return x[:, : self.size]


        class Net(nn.Module):
            def forward(self, x):
                return Window(4).clip(x)
    """,
    not_flagged_notes="Objects made in forward whose methods trace without a break. A break in "
                      "a plain helper function, or at the top of forward, resumes: only its "
                      "own code is reported (the example's `.item()` is SFX102).",
    with_codes=("SFX102",),
)

PAGES["SFX311"] = Page(
    dynamo="A `class` statement runs the builtin `__build_class__`, which dynamo 2.13 cannot "
           "trace (\"Invalid call to __build_class__\"). A class defined inside forward, or "
           "inside a helper forward calls, ends the graph at the class statement; dynamo "
           "runs it eagerly and starts a new graph after it, on every call.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                class Scale:
                    def __init__(self, factor):
                        self.factor = factor

                    def __call__(self, t):
                        return t * self.factor

                return Scale(0.5)(x) + x
    """,
    fixed="""
        class Scale:
            def __init__(self, factor):
                self.factor = factor

            def __call__(self, t):
                return t * self.factor


        class Net(nn.Module):
            def forward(self, x):
                return Scale(0.5)(x) + x
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                def scale(t, factor=0.5):
                    return t * factor

                return scale(x) + x
    """,
    not_flagged_notes="Classes defined at module level and only instantiated in forward, and "
                      "local functions and lambdas, which dynamo traces.",
)

PAGES["SFX312"] = Page(
    dynamo="Dynamo 2.13 cannot wrap a sparse tensor as a graph value (\"Attempted to wrap sparse "
           "Tensor\"). `Tensor.to_sparse()` ends the graph (GB0277); the first operation on the "
           "sparse tensor (`torch.sparse.mm`, `to_dense()`, ...) makes dynamo compile what it "
           "traced before and run the rest of the function eagerly (GB0015), on every call. "
           "`torch.sparse_coo_tensor` is a function dynamo skips (SFX203) before that.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                mask = (x > 0).float().to_sparse()
                return mask.to_dense() * x
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                mask = (x > 0).float()
                return mask * x
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x, edges, weights):
                adj = x.new_zeros(5, 5).index_put((edges[0], edges[1]), weights, accumulate=True)
                return adj @ x
    """,
    not_flagged_notes="Dense tensors built from indices with `index_put`, `scatter_add` or "
                      "`index_add`, which dynamo traces.",
)

PAGES["SFX313"] = Page(
    dynamo="Dynamo 2.13 traces the function given to `torch.utils.checkpoint.checkpoint` as the "
           "body of a higher-order op, which recomputes it in the backward pass and so must be "
           "free of side effects. A module attribute set in the body (\"HOP: Non-nullified side "
           "effect\", GB4413) breaks the graph at the checkpoint call; appending to a list from "
           "outside the body (\"HOP: Unsafe side effect\", GB0067) breaks at the append.",
    example="""
        from torch.utils.checkpoint import checkpoint


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)
                self.calls = 0

            def _body(self, x):
                self.calls += 1
                return self.fc(x).relu()

            def forward(self, x):
                return checkpoint(self._body, x, use_reentrant=False)
    """,
    fixed="""
        from torch.utils.checkpoint import checkpoint


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def _body(self, x):
                return self.fc(x).relu()

            def forward(self, x):
                return checkpoint(self._body, x, use_reentrant=False)
    """,
    not_flagged="""
        from torch.utils.checkpoint import checkpoint


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def _body(self, x):
                parts = []
                parts.append(self.fc(x))
                return torch.cat(parts, -1)

            def forward(self, x):
                return checkpoint(self._body, x, use_reentrant=False)
    """,
    not_flagged_notes="Lists made and filled inside the checkpointed function, and attributes "
                      "set outside it.",
)

PAGES["SFX314"] = Page(
    dynamo="Dynamo builds an object of a class with a metaclass without running the "
           "metaclass's `__call__`, and that compiles. When the construction breaks (here the "
           "`print` in `__init__`), the statement reruns eagerly and dynamo compiles the "
           "metaclass's `__call__` as a frame of its own. There `super().__call__(...)` is "
           "`type.__call__`, a slot wrapper dynamo cannot call (\"Attempted to call a super() "
           "attribute that is not a function or method\"): one more break, on every call.",
    example="""
        class Registered(type):
            def __call__(cls, *args, **kwargs):
                return super().__call__(*args, **kwargs)


        class Stats(metaclass=Registered):
            def __init__(self, x):
                print(x.shape)
                self.total = x.sum()


        class Net(nn.Module):
            def forward(self, x):
                return x / Stats(x).total
    """,
    fixed="""
        class Registered(type):
            def __call__(cls, *args, **kwargs):
                return super().__call__(*args, **kwargs)


        class Stats(metaclass=Registered):
            def __init__(self, x):
                self.total = x.sum()


        class Net(nn.Module):
            def forward(self, x):
                return x / Stats(x).total
    """,
    not_flagged="""
        class Registered(type):
            def __call__(cls, *args, **kwargs):
                return super().__call__(*args, **kwargs)


        class Scale(metaclass=Registered):
            def __init__(self, factor):
                self.factor = factor


        class Net(nn.Module):
            def forward(self, x):
                return x * Scale(0.5).factor
    """,
    not_flagged_notes="A construction through the metaclass that does not break: dynamo never "
                      "compiles the metaclass's `__call__` then. The example's `print` is "
                      "SFX201.",
    with_codes=("SFX201",),
)

PAGES["SFX401"] = Page(
    dynamo="Operators whose output shape depends on tensor values (`torch.nonzero`, boolean "
           "mask indexing, `torch.unique`, ...) cannot be traced with static shapes. By default "
           "dynamo breaks the graph; inside a loop or `with` block it gives up on the whole "
           "function, which then runs eagerly. An index is taken as a boolean mask when the code "
           "makes it one (a comparison, `~`, `.bool()`), when its input is annotated "
           "`torch.BoolTensor`, or when an input named a mask (`mask`, `mlm_mask`, "
           "`padding_mask`) has no annotation naming another dtype.",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                return x[torch.nonzero(x > 0)]
    """,
    fixed="""
        class Net(nn.Module):
            def forward(self, x):
                return torch.where(x > 0, x, 0)
    """,
    not_flagged="""
        class Net(nn.Module):
            def forward(self, x):
                return x.masked_fill(x <= 0, 0)
    """,
    not_flagged_notes="Fixed-size forms (`torch.where`, `masked_fill`, `nonzero_static`). The "
                      "rule is quiet with `--staticfx-capture-dynamic-output-shape-ops` or "
                      "`--staticfx-fullgraph`, under which dynamo captures these operators.",
)

PAGES["SFX501"] = Page(
    dynamo="Dynamo guards every compiled frame on what it specialised: a Python int in `range()`, an "
           "index into a list or ModuleList, `F.dropout`'s `p`, `label_smoothing=`, a string or bool "
           "that picks a branch, a function that is called, or an int attribute of the module stays a "
           "constant of the graph, even with `dynamic=True`. When the caller passes a new value the "
           "guard fails and the frame compiles again; after 8 compiles (`recompile_limit` in torch "
           "2.13) it runs eagerly for good. The rule reads the calls the file's own code makes (a "
           "training loop, a sampler) and reports the line whose guard fails, how many compiles the "
           "calls cost and whether the limit is reached.",
    example="""
        class Mixer(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, depth: int):
                for _ in range(depth):
                    x = self.fc(x)
                return x


        def train():
            model = torch.compile(Mixer())
            x = torch.randn(2, 4)
            for depth in range(1, 4):
                model(x, depth)
    """,
    fixed="""
        class Mixer(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, depth: int):
                for _ in range(depth):
                    x = self.fc(x)
                return x


        def train():
            model = torch.compile(Mixer())
            x = torch.randn(2, 4)
            for _ in range(3):
                model(x, 3)
    """,
    not_flagged="""
        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, mode: str):
                if mode == "mean":
                    return self.fc(x).mean()
                return self.fc(x).sum()


        def train():
            model = torch.compile(Scaled())
            x = torch.randn(2, 4)
            for _ in range(3):
                model(x, "mean")
    """,
    not_flagged_notes="A value that stays the same over the calls; a fresh lambda with the same code; "
                      "calls the file does not show (the rule never guesses a caller's values).",
)

PAGES["SFX502"] = Page(
    dynamo="An int attribute of an `nn.Module` is static to dynamo: the frame is guarded on its "
           "value. A forward that increments it (`self.step += 1`) changes it at every call, so "
           "every call recompiles until the recompile limit (8 in torch 2.13), then the module "
           "runs eagerly. The same holds for a counter a method forward calls increments, under "
           "`if self.training:` (in training mode), after a break dynamo resumes from, and in a "
           "child module's forward. A list attribute forward appends to is guarded on its "
           "length, and recompiles every call the same way. Where no driver of the file calls "
           "the module, it is reported "
           "for any caller calling it more than once (\"when compiled\" when the file compiles "
           "nothing). A bool toggled (two entries, then both match) and a float (its second value "
           "becomes symbolic) recompile once and are not reported.",
    example="""
        class Counted(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.step = 0

            def forward(self, x):
                self.step += 1
                return self.fc(x) / self.step


        def train():
            model = torch.compile(Counted())
            x = torch.randn(2, 4)
            for _ in range(4):
                model(x)
    """,
    fixed="""
        class Counted(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.register_buffer("step", torch.zeros(()))

            def forward(self, x):
                self.step.add_(1)
                return self.fc(x) / self.step


        def train():
            model = torch.compile(Counted())
            x = torch.randn(2, 4)
            for _ in range(4):
                model(x)
    """,
    not_flagged="""
        class Counted(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.step = 0

            def forward(self, x):
                self.step += 1
                return self.fc(x) / self.step


        def evaluate():
            model = torch.compile(Counted())
            model(torch.randn(2, 4))
    """,
    not_flagged_notes="A count kept in a buffer and updated in place, also with `+=` (the fixed "
                      "version above); a module the file calls once; a count under `if not "
                      "torch.compiler.is_compiling():`; a method forward never calls, or hands to "
                      "`torch.utils.checkpoint` (which runs it with dynamo disabled); a forward dynamo "
                      "runs eagerly (a break in a loop).",
)

PAGES["SFX503"] = Page(
    dynamo="Blocks of one class share one `forward`, so one code cache. Compiled as one model, "
           "each block is inlined and its attributes are constants of the one graph. Compiled one "
           "by one (regional compilation: `block.compile()` for each block), each block's call "
           "checks the guards of the entries before it: a per-block int or float (`layer_idx`, a "
           "dilation, a gate) fails them, so each distinct value compiles again, and the ninth "
           "distinct block runs eagerly.",
    example="""
        class Block(nn.Module):
            def __init__(self, index: int):
                super().__init__()
                self.index = index
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return x + self.fc(x) / (self.index + 1)


        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Block(i) for i in range(3)])

            def forward(self, x):
                for block in self.blocks:
                    x = block(x)
                return x


        def train():
            model = Stack()
            for block in model.blocks:
                block.compile()
            model(torch.randn(2, 4, requires_grad=True))
    """,
    fixed="""
        class Block(nn.Module):
            def __init__(self, index: int):
                super().__init__()
                self.register_buffer("scale", torch.tensor(1.0 / (index + 1)))
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return x + self.fc(x) * self.scale


        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Block(i) for i in range(3)])

            def forward(self, x):
                for block in self.blocks:
                    x = block(x)
                return x


        def train():
            model = Stack()
            for block in model.blocks:
                block.compile()
            model(torch.randn(2, 4, requires_grad=True))
    """,
    not_flagged="""
        class Block(nn.Module):
            def __init__(self, index: int):
                super().__init__()
                self.index = index
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return x + self.fc(x) / (self.index + 1)


        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Block(i) for i in range(3)])

            def forward(self, x):
                for block in self.blocks:
                    x = block(x)
                return x


        def train():
            model = torch.compile(Stack())
            model(torch.randn(2, 4))
    """,
    not_flagged_notes="The whole model compiled as one frame (the blocks' values are constants of "
                      "one graph); blocks that all hold the same value.",
)

PAGES["SFX504"] = Page(
    dynamo="A compiled frame is guarded on its tensor inputs' shapes and requires_grad. By default "
           "(`dynamic=None`) the second shape recompiles once with the changed sizes dynamic; with "
           "`dynamic=False` every new shape recompiles until the limit (8 in torch 2.13), then the "
           "frame runs eagerly. An input that starts to require grad recompiles too. "
           "The rule reports at the frame's `def`, with the calls that change the shape.",
    example="""
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)


        def train():
            model = torch.compile(Head(), dynamic=False)
            for batch in (2, 3, 4):
                model(torch.randn(batch, 4))
    """,
    fixed="""
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)


        def train():
            model = torch.compile(Head(), dynamic=True)
            for batch in (2, 3, 4):
                model(torch.randn(batch, 4))
    """,
    not_flagged="""
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)


        def train():
            model = torch.compile(Head())
            for batch in (2, 3, 4):
                x = torch.randn(batch, 4)
                torch._dynamo.mark_dynamic(x, 0)
                model(x)
    """,
    not_flagged_notes="`dynamic=True`, a dimension marked with `torch._dynamo.mark_dynamic`, or "
                      "calls whose shapes are all the same.",
)

PAGES["SFX505"] = Page(
    dynamo="An int or float argument used only in arithmetic is first compiled as a constant; "
           "when it changes, dynamo recompiles the frame once with a symbolic number, and later "
           "values reuse that entry. One recompile, off by default; `dynamic=True` compiles the "
           "number as symbolic from the start.",
    example="""
        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, scale: int):
                return self.fc(x) * scale


        def train():
            model = torch.compile(Scaled())
            x = torch.randn(2, 4)
            for scale in range(1, 4):
                model(x, scale)
    """,
    fixed="""
        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, scale):
                return self.fc(x) * scale


        def train():
            model = torch.compile(Scaled(), dynamic=True)
            x = torch.randn(2, 4)
            for scale in range(1, 4):
                model(x, scale)
    """,
    not_flagged="""
        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, scale: int):
                return self.fc(x) * scale


        def train():
            model = torch.compile(Scaled())
            x = torch.randn(2, 4)
            for _ in range(3):
                model(x, 2)
    """,
    not_flagged_notes="`dynamic=True`, or a value that does not change between calls.",
)

PAGES["SFX506"] = Page(
    dynamo="Grad mode and autocast are global state every compiled frame is guarded on, and "
           "`training` is guarded where forward reads it (dropout and batch norm do): a call under "
           "`torch.no_grad()` after a training call, or autocast switched on outside the model, "
           "recompiles it (even when forward enters autocast itself). `autocast(enabled=False)` "
           "is no change.",
    example="""
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)


        def train():
            model = torch.compile(Head())
            x = torch.randn(2, 4)
            model(x).sum().backward()
            with torch.no_grad():
                model(x)
    """,
    fixed="""
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)


        def train():
            model = torch.compile(Head())
            x = torch.randn(2, 4)
            with torch.no_grad():
                model(x)
                model(x)
    """,
    not_flagged="""
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)


        def train():
            model = torch.compile(Head())
            x = torch.randn(2, 4)
            model(x)
            with torch.autocast("cpu", enabled=False):
                model(x)
    """,
    not_flagged_notes="Calls that all run under the same grad mode and autocast state; "
                      "`autocast(enabled=False)`, which changes nothing.",
)

PAGES["SFX900"] = Page(
    dynamo="SFX900 is not a graph break: it is a notice about the analysis. When a compile root "
           "cannot be analysed within the tool's limits (an inline depth, unroll or step budget "
           "is exceeded, the source uses something the analysis does not model, or a class "
           "decorator it does not know may replace `forward`), no "
           "diagnostic is given for that root, so a clean result does not mean the root "
           "compiles to one graph. The notice is off by default; turn it on with "
           "`--staticfx-notices` (and `--extend-select=SFX900` or `--select=SFX`).",
    example="""
        class Net(nn.Module):
            def forward(self, x):
                for _ in range(3):
                    x = x + 1
                return x
    """,
    fixed="",
    not_flagged="",
    not_flagged_notes="Roots that were analysed, whatever their result.",
)

# SFX900 is shown with a tiny step budget (Options(max_steps=1, report_notices=True)).
NOTICE_OPTIONS = {"SFX900": {"max_steps": 1, "report_notices": True}}
# Codes whose example breaks only from a torch release on: linted for that release.
RELEASE_OPTIONS = {"SFX316": {"torch_version": "2.14"}}


def _source(snippet: str) -> str:
    return HEADER + "\n" + _d(snippet) if snippet else ""


def examples(code: str) -> tuple[str, str, str]:
    """(triggering example, fixed, not flagged) as complete files; '' where there is none."""
    page = PAGES[code]
    return _source(page.example), _source(page.fixed), _source(page.not_flagged)


def _gb_links(rule) -> str:
    if not rule.gb_ids:
        return "none (this is not a graph break)"
    return ", ".join(f"[{gb}]({GB_DOCS.format(gb.lower())})" for gb in rule.gb_ids)


def _sample_message(rule) -> str:
    """The message's shape, with `…` for the construct (its first GB id stands for the ids of
    the occurrence)."""
    if rule.code.startswith("SFX5"):
        return recompile_message(rule, "…", "…", ("N compiles in M calls at line L",))
    if not rule.gb_ids:
        return notice(rule, "…", "why")
    return render_message(rule, "…", rule.gb_ids[:1])


def render(code: str) -> str:
    rule, page = RULES[code], PAGES[code]
    example, fixed, not_flagged = examples(code)
    out = [
        f"# {code} `{rule.name}`",
        "",
        "<!-- generated by docs/gen_rule_docs.py from flake8_staticfx/rules.py; do not edit -->",
        "",
        "## What it does",
        "",
        f"Reports: {rule.summary}, as in ``{_sample_message(rule)}``.",
        "",
    ]
    facts = [f"- Dynamo graph-break ids: {_gb_links(rule)}"]
    if not rule.enabled_by_default:
        facts.append("- Off by default.")
    if rule.captured_by:
        options = [OPTION_OF_SETTING.get(s, f"`{s}`") for s in rule.captured_by]
        facts.append(f"- Not reported with {', '.join(options)}.")
    facts.append(f"- Mechanical fix: {'yes' if rule.fixable else 'no'}.")
    if code in REWRITTEN_FORMS:
        facts.append(f"- `python -m flake8_staticfx fix` rewrites: {REWRITTEN_FORMS[code]}; "
                     "other occurrences are declined with the reason.")
    out += facts + [""]
    out += ["## Why it costs performance" if rule.gb_ids else "## Why it matters", "", page.dynamo, ""]
    out += ["## Example", "", "```python", example.rstrip("\n"), "```", ""]
    if code in RELEASE_OPTIONS:
        out += [f"Reported for torch {RELEASE_OPTIONS[code]['torch_version']} and later "
                f"(`--staticfx-torch-version`).", ""]
    if code in NOTICE_OPTIONS:
        out += ["Run with `--staticfx-notices` and a step budget too small for the root "
                "(in the API: `Options(max_steps=1, report_notices=True)`), this reports SFX900.",
                ""]
    out += ["## Fix", "", f"{rule.workaround[0].upper()}{rule.workaround[1:]}.", ""]
    if fixed:
        out += ["```python", fixed.rstrip("\n"), "```", ""]
    out += ["## Not flagged", "", page.not_flagged_notes, ""]
    if not_flagged:
        out += ["```python", not_flagged.rstrip("\n"), "```", ""]
    out += [f"Silence one occurrence with `# noqa: {code}` on the reported line.", ""]
    return "\n".join(out)


def expected_pages() -> dict[Path, str]:
    return {OUT / f"{code}.md": render(code) for code in RULES}


def main(argv: list[str]) -> int:
    pages = expected_pages()
    if "--write" in argv:
        OUT.mkdir(parents=True, exist_ok=True)
        for path, text in pages.items():
            path.write_text(text)
        for stale in set(OUT.glob("SFX*.md")) - set(pages):
            stale.unlink()
        return 0
    if "--check" in argv:
        bad = [p.name for p, text in pages.items() if not p.exists() or p.read_text() != text]
        bad += [p.name for p in set(OUT.glob("SFX*.md")) - set(pages)]
        for name in sorted(bad):
            print(f"stale or missing: docs/rules/{name}", file=sys.stderr)
        if bad:
            print("run: python docs/gen_rule_docs.py --write", file=sys.stderr)
        return 1 if bad else 0
    for path in pages:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
