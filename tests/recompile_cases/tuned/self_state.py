"""State a forward mutates itself, measured over calls of one compiled module: which forms
recompile at every call (an int or bool attribute read and rebound, a list grown) and which
near misses do not (a buffer updated in place, a constant written, a branch dynamo skips)."""
import torch
import torch.nn as nn


class WarmupBranch(nn.Module):
    def __init__(self, width: int = 8, warmup: int = 100):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.warmup = warmup
        self.step = 0

    def forward(self, x):
        self.step += 1
        if self.step < self.warmup:
            return self.proj(x) * 0.5
        return self.proj(x)


class FloatDecay(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.scale = 1.0

    def forward(self, x):
        self.scale = self.scale * 0.9
        return self.proj(x) * self.scale


class TrainingCounter(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.updates = 0

    def forward(self, x):
        if self.training:
            self.updates += 1
        return self.proj(x)


class CountingChild(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.proj(x) / self.calls


class ParentOfCounter(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.inner = CountingChild(width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        return self.out(self.inner(x).relu())


class BoolToggle(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.flip = False

    def forward(self, x):
        self.flip = not self.flip
        h = self.proj(x)
        return h if self.flip else -h


class ListHistory(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.history = []

    def forward(self, x):
        h = self.proj(x)
        self.history.append(h.detach())
        return h


class BufferIadd(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.register_buffer("count", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.count += 1
        return self.proj(x) / self.count


class ConstantWrite(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.calls = 0
        self.mode = "fast"

    def forward(self, x):
        self.calls = 0
        self.mode = "fast"
        h = self.proj(x)
        return h if self.mode == "fast" else h * 2


class EagerOnlyCounter(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.step = 0

    def forward(self, x):
        if not torch.compiler.is_compiling():
            self.step += 1
        return self.proj(x)


class IncrementOnly(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.proj(x).tanh()


class TickMethod(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.step = 0

    def _tick(self):
        self.step += 1
        return self.step

    def forward(self, x):
        self._tick()
        return self.proj(x)


class UnreachedCounter(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.step = 0

    def advance(self):
        self.step += 1

    def forward(self, x):
        return self.proj(x) * (self.step + 1)


class BreakBeforeCounter(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.step = 0

    def forward(self, x):
        h = self.proj(x)
        print("step", h.shape)
        self.step += 1
        return h * self.step


class LoopBreakCounter(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.step = 0

    def forward(self, x):
        for _ in range(2):
            x = self.proj(x)
            print("layer", x.shape)
        self.step += 1
        return x * self.step


def _run(module, calls=4):
    model = torch.compile(module)
    x = torch.randn(2, 8)
    for _ in range(calls):
        model(x)


def warmup_branch():
    _run(WarmupBranch())


def float_decay():
    _run(FloatDecay())


def training_counter():
    _run(TrainingCounter())


def training_counter_eval():
    _run(TrainingCounter().eval())


def child_counter():
    _run(ParentOfCounter())


def bool_toggle():
    _run(BoolToggle(), 6)


def list_history():
    _run(ListHistory())


def buffer_iadd():
    _run(BufferIadd())


def constant_write():
    _run(ConstantWrite())


def eager_only_counter():
    _run(EagerOnlyCounter())


def increment_only():
    _run(IncrementOnly())


def tick_method():
    _run(TickMethod())


def unreached_counter():
    _run(UnreachedCounter())


def break_before_counter():
    _run(BreakBeforeCounter())


def loop_break_counter():
    _run(LoopBreakCounter())


def increment_only_long():
    _run(IncrementOnly(), 10)


RECOMPILE_CASES = [
    ("warmup_branch", warmup_branch),
    ("float_decay", float_decay),
    ("training_counter", training_counter),
    ("training_counter_eval", training_counter_eval),
    ("child_counter", child_counter),
    ("bool_toggle", bool_toggle),
    ("list_history", list_history),
    ("buffer_iadd", buffer_iadd),
    ("constant_write", constant_write),
    ("eager_only_counter", eager_only_counter),
    ("increment_only", increment_only),
    ("tick_method", tick_method),
    ("unreached_counter", unreached_counter),
    ("break_before_counter", break_before_counter),
    ("loop_break_counter", loop_break_counter),
    ("increment_only_long", increment_only_long),
]
