"""`python -m flake8_staticfx fix`: each rewrite, each decline reason, idempotence, --diff,
formatting and comments kept. No torch needed: legality is decided from the source and the
analysis; tests/test_fix_oracle.py proves the rewrites on the case corpus with dynamo."""
import ast
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("libcst")

from flake8_staticfx.analysis import analyze  # noqa: E402
from flake8_staticfx.fix import fix_source, has_rewrite  # noqa: E402
from flake8_staticfx.front.report import graph_json  # noqa: E402

HEADER = "import logging\nimport warnings\n\nimport torch\nfrom torch import nn\n" \
         "from torch.nn import functional as F\n\nlogger = logging.getLogger(__name__)\n\n\n"


def model(body: str, init: str = "") -> str:
    init = textwrap.indent(textwrap.dedent(init), " " * 8) if init else ""
    return HEADER + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n" \
        "        self.fc = nn.Linear(4, 4)\n        self.widen = nn.Linear(4, 8)\n" \
        "        self.register_buffer(\"decay\", torch.tensor(0.9))\n" + \
        init + "\n    def forward(self, x):\n" + \
        textwrap.indent(textwrap.dedent(body), " " * 8)


def fix(tmp_path, source: str, name: str = "model.py"):
    path = tmp_path / name
    path.write_text(source)
    return fix_source(source, str(path), display=name)


def only(result):
    assert len(result.outcomes) == 1, [o.describe() for o in result.outcomes]
    return result.outcomes[0]


def body_of(result) -> str:
    return result.fixed.split("def forward(self, x):\n", 1)[1]


# -- rewrites ---------------------------------------------------------------------------------

def test_print_is_guarded(tmp_path):
    result = fix(tmp_path, model("""\
        y = self.fc(x)
        print("y", y.shape)  # shape check
        return y
    """))
    assert only(result).rewrite == "guard-side-effect"
    assert body_of(result) == textwrap.indent(textwrap.dedent("""\
        y = self.fc(x)
        if not torch.compiler.is_compiling():
            print("y", y.shape)  # shape check
        return y
    """), " " * 8)


def test_print_of_tensors_and_literals_is_kept_and_reordered(tmp_path):
    result = fix(tmp_path, model("""\
        y = self.fc(x)
        print("y", y, 3)
        print(f"mean {y.mean()}")
        return y
    """))
    assert [o.rewrite for o in result.outcomes] == ["guard-side-effect", "guard-side-effect"]
    assert "reorderable_logging_functions" in result.outcomes[0].summary
    assert "not reordered: `f\"mean {y.mean()}\"` is neither a literal nor a tensor" in result.outcomes[1].summary
    assert "\ntorch._dynamo.config.reorderable_logging_functions.add(print)  # flake8-staticfx fix, process-wide\n" \
        in result.fixed
    assert '        print("y", y, 3)\n        if not torch.compiler.is_compiling():\n' in body_of(result)
    again = fix(tmp_path, result.fixed)
    assert again.fixed == result.fixed and again.outcomes == []


def test_registered_print_breaks_only_on_what_dynamo_cannot_reorder(tmp_path):
    """Dynamo 2.13 reorders a registered print of tensors and constants; a torch.Size breaks (GB0296)."""
    source = HEADER.replace("logger = ", "torch._dynamo.config.reorderable_logging_functions.add(print)\nlogger = ") \
        + "class Net(nn.Module):\n    def forward(self, x):\n        y = x * 2\n        print('y', y, 3, None)\n" \
        "        print(y.shape)\n        return y\n"
    path = tmp_path / "model.py"
    regions = [(r.code, r.line) for g in analyze(source, str(path)).graphs for r in g.regions]
    assert regions == [("SFX201", source.splitlines().index("        print(y.shape)") + 1)]


def test_a_print_of_a_captured_number_is_guarded_and_breaks_once_registered(tmp_path):
    """Under capture_scalar_outputs `.item()` is a symbolic number, which dynamo 2.13 does not
    reorder (cfg_code_scalar_capture_loop.py: the print still broke after fix registered it)."""
    source = HEADER.replace("logger = ", "torch._dynamo.config.capture_scalar_outputs = True\nlogger = ") + \
        "class Net(nn.Module):\n    def forward(self, x):\n        peak = x.abs().max().item()\n" \
        "        print('peak', peak)\n        return x * 2\n"
    result = fix(tmp_path, source)
    assert "not reordered: `peak` is neither a literal nor a tensor" in only(result).summary
    registered = source.replace("logger = ", "torch._dynamo.config.reorderable_logging_functions.add(print)\nlogger = ")
    regions = [r.code for g in analyze(registered, str(tmp_path / "model.py")).graphs for r in g.regions]
    assert regions == ["SFX201"]


def test_a_print_of_a_tensor_changed_in_place_later_is_guarded(tmp_path):
    result = fix(tmp_path, model("""\
        y = self.fc(x)
        print("y", y)
        y.mul_(2)
        return y
    """))
    assert "not reordered: `y` is changed in place in this file" in only(result).summary


def test_is_enabled_for_condition_gets_the_guard_and_covers_its_body(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("mean %.3f", h.mean())
        return h
    """))
    # main's analysis no longer reports the logger.debug inside as a break of its own (it did
    # before 993b735); reported or not, the guard of the `if` covers it
    assert result.outcomes and all(o.rewrite == "guard-side-effect" for o in result.outcomes)
    assert "if not torch.compiler.is_compiling() and logger.isEnabledFor(logging.DEBUG):\n" \
           "            logger.debug(" in result.fixed


def test_raise_guard_becomes_assert_async(tmp_path):
    result = fix(tmp_path, model("""\
        if (x < 0).any():
            raise ValueError("negative input")
        if not torch.isfinite(x).all():
            raise RuntimeError("non-finite input")
        return self.fc(x)
    """))
    assert [o.rewrite for o in result.outcomes] == ["assert-async", "assert-async"]
    assert 'torch._assert_async(torch.logical_not((x < 0).any()), "negative input")\n' in result.fixed
    assert 'torch._assert_async(torch.isfinite(x).all(), "non-finite input")\n' in result.fixed


def test_raise_with_a_formatted_message_keeps_a_constant_message(tmp_path):
    result = fix(tmp_path, model("""\
        if x.abs().max() > 10:
            raise ValueError(f"too large: {x.abs().max()}")
        return self.fc(x)
    """))
    assert only(result).rewrite == "assert-async"
    assert "torch._assert_async(torch.logical_not(x.abs().max() > 10), 'ValueError: x.abs().max() > 10')" \
        in result.fixed


def test_torch_assert_becomes_assert_async(tmp_path):
    result = fix(tmp_path, model("""\
        torch._assert((x >= 0).all(), "inputs must be non-negative")
        return self.fc(x)
    """))
    assert only(result).rewrite == "assert-async"
    assert 'torch._assert_async((x >= 0).all(), "inputs must be non-negative")\n' in result.fixed


def test_if_else_of_elementwise_arms_becomes_where(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        # pick the activation
        if h.mean() > 0:
            h = F.gelu(h)
        else:
            h = torch.tanh(h)
        return h
    """))
    assert only(result).rewrite == "torch-where"
    assert "        # pick the activation\n        h = torch.where(h.mean() > 0, F.gelu(h), torch.tanh(h))\n" \
        in result.fixed


def test_one_armed_if_keeps_the_old_value(tmp_path):
    result = fix(tmp_path, model("""\
        y = self.fc(x)
        if y.abs().max() > 2.0:
            y = y * 0.5
        return y
    """))
    assert only(result).rewrite == "torch-where"
    assert "y = torch.where(y.abs().max() > 2.0, y * 0.5, y)\n" in result.fixed


def test_negated_condition_swaps_the_arms_and_ternary_becomes_where(tmp_path):
    result = fix(tmp_path, model("""\
        y = self.fc(x)
        if not y.sum() > 0:
            y = y.relu()
        z = y * 2 if y.mean() < 1 else y * 3
        return z
    """))
    assert [o.rewrite for o in result.outcomes] == ["torch-where", "torch-where"]
    assert "y = torch.where(y.sum() > 0, y, y.relu())\n" in result.fixed
    assert "z = torch.where(y.mean() < 1, y * 2, y * 3)\n" in result.fixed


def test_an_elif_chain_becomes_nested_where_and_each_condition_is_fixed_by_it(tmp_path):
    result = fix(tmp_path, model("""\
        score = x.abs().amax()
        if score > 3.0:
            x = x / score
        elif score < 0.1:
            x = x * 10.0
        else:
            x = x * 1.0
        return self.fc(x)
    """))
    assert [(o.rewrite, o.summary) for o in result.outcomes] == [
        ("torch-where", "the `if`/`elif` chain became nested torch.where for x"),
        ("torch-where", f"with the rewrite at line {result.outcomes[0].line}")]
    assert body_of(result) == "        score = x.abs().amax()\n        x = torch.where(score > 3.0, x / score, " \
        "torch.where(score < 0.1, x * 10.0, x * 1.0))\n        return self.fc(x)\n"


def test_a_tensor_condition_last_in_an_and_is_rewritten_inside_an_if_on_the_rest(tmp_path):
    """`if s and t:` is `if s:` around `if t:` (s once, t only where s holds): t, the tensor
    condition, becomes torch.where inside `if s:`; an early return likewise."""
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        if self.training and torch.is_grad_enabled() and h.abs().max() > 1e4:
            h = h.clamp(-1e4, 1e4)
        return torch.relu(h)
    """))
    assert only(result).summary == "`if` became torch.where for h, inside `if self.training and " \
        "torch.is_grad_enabled():`"
    assert body_of(result) == "        h = self.fc(x)\n        if self.training and torch.is_grad_enabled():\n" \
        "            h = torch.where(h.abs().max() > 1e4, h.clamp(-1e4, 1e4), h)\n        return torch.relu(h)\n"
    assert fix(tmp_path, result.fixed).fixed == result.fixed
    result = fix(tmp_path, model("""\
        if self.training and not x.isfinite().all():
            return torch.nan_to_num(x)
        return x
    """))
    assert body_of(result) == "        if self.training:\n" \
        "            return torch.where(x.isfinite().all(), x, torch.nan_to_num(x))\n        return x\n"


CAPTURE_HEADER = "import torch\nfrom torch import nn\n\n\n"


def test_a_tensor_read_as_a_slice_bound_or_size_turns_capture_scalar_outputs_on(tmp_path):
    source = CAPTURE_HEADER + textwrap.dedent("""\
        class Trim(nn.Module):
            def forward(self, x, lengths):
                longest = lengths.max()
                return x[:, :longest].repeat(lengths.sum(), 1)
    """)
    result = fix(tmp_path, source)
    assert {(o.rewrite, o.line) for o in result.outcomes} == {("capture-setting", 8)}
    assert result.fixed == source.replace("from torch import nn\n", "from torch import nn\n\n"
                                          "torch._dynamo.config.capture_scalar_outputs = True  "
                                          "# flake8-staticfx fix, process-wide\n", 1)
    assert fix(tmp_path, result.fixed).fixed == result.fixed


def test_a_data_sized_result_used_only_as_a_tensor_turns_capture_dynamic_output_shape_ops_on(tmp_path):
    source = CAPTURE_HEADER + textwrap.dedent("""\
        class Pick(nn.Module):
            def forward(self, x, ids):
                rows = torch.nonzero(ids > 0).squeeze(-1)
                return x.index_select(0, rows) * 2
    """)
    result = fix(tmp_path, source)
    assert only(result).rewrite == "capture-setting"
    assert "torch._dynamo.config.capture_dynamic_output_shape_ops = True" in result.fixed
    assert fix(tmp_path, result.fixed).fixed == result.fixed


def test_a_captured_number_followed_through_containers_and_sums_into_tensor_arithmetic(tmp_path):
    source = CAPTURE_HEADER + textwrap.dedent("""\
        class Scale(nn.Module):
            def forward(self, x):
                vals = [v.item() * 2 for v in x.sum(-1)]
                total = sum(v.item() for v in x.sum(-1))
                stats = {"peak": x.amax().item()}
                return x * vals[0] + total * len(stats)
    """)
    result = fix(tmp_path, source)
    # the dict of line 9 is hidden by the break of line 7 (the rest runs eagerly), and captured safely too
    assert [o.rewrite for o in result.outcomes] == ["capture-setting"] * 2, [o.describe() for o in result.outcomes]
    assert fix(tmp_path, result.fixed).fixed == result.fixed


@pytest.mark.parametrize("label,body,reason", [
    ("size-of-roll", """\
        shift = x.sum(0).argmax()
        return torch.roll(x, shifts=shift, dims=-1)
    """, "the conversion is not written here"),
    ("size-read", """\
        picked = x[x > 0]
        if picked.numel() == 0:
            return x.sum() * 0
        return picked.mean()
    """, "`picked` is used in `picked.numel`"),
    ("number-indexes-a-tensor", """\
        first = x.argmax().item()
        return x[:, first]
    """, "`first` is used in"),
    ("number-as-a-dict-key", """\
        return x * 2, {x.max().item(): 1}
    """, "is used in `x.max().item(): 1`"),
    ("returned-by-a-helper-whose-caller-reads-its-size", """\
        return x * positive(x).shape[0]
    """, "the data-sized value `positive(x)` is used in `positive(x).shape`"),
    ("an-unsafe-break-the-first-hides", """\
        longest = x.sum(-1).max()
        y = x[:, :longest]
        shift = y.sum(0).argmax()
        return torch.roll(y, shifts=shift, dims=-1)
    """, "it is process-wide and the SFX102 at line 14 is not a form it is shown safe for"),
])
def test_a_capture_setting_is_declined_where_a_size_may_be_guarded_on(tmp_path, label, body, reason):
    source = CAPTURE_HEADER + "def positive(x):\n    return x[x > 0]\n\n\nclass Net(nn.Module):\n" \
        "    def forward(self, x):\n" + textwrap.indent(textwrap.dedent(body), " " * 8)
    result = fix(tmp_path, source)
    assert not result.changed, result.fixed
    assert any(reason in (o.reason or "") for o in result.outcomes), [o.describe() for o in result.outcomes]


def test_early_return_and_the_return_after_it_become_one_return_of_where(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        spread = h.max() - h.min()  # a 0-d tensor, named
        # already small: keep it
        if spread < 1.0:
            return h  # small
        # squash
        return torch.tanh(h)
    """))
    assert only(result).rewrite == "torch-where"
    assert body_of(result).endswith(
        "        # already small: keep it\n        # small\n        # squash\n"
        "        return torch.where(spread < 1.0, h, torch.tanh(h))\n")


def test_if_else_of_returns_with_a_negated_condition_becomes_where(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        if not h.isnan().any():
            return h * 2
        else:
            return torch.nan_to_num(h) * 2
    """))
    assert only(result).rewrite == "torch-where"
    assert body_of(result).endswith("return torch.where(h.isnan().any(), torch.nan_to_num(h) * 2, h * 2)\n")
    assert fix(tmp_path, result.fixed).fixed == result.fixed


def test_a_condition_of_unknown_shape_is_made_its_one_element(tmp_path):
    """`if m:` needs m to hold one element, whatever its shape; `.reshape(())` makes that element
    the 0-d condition, so torch.where broadcasts no shape of m into the result (and it raises on
    the inputs bool(m) raised on)."""
    result = fix(tmp_path, model("""\
        m = x.mean(0) > 0
        if m:
            y = x * 2
        else:
            y = x * 3
        return self.fc(y)
    """))
    assert only(result).rewrite == "torch-where"
    assert "y = torch.where(m.reshape(()).bool(), x * 2, x * 3)\n" in result.fixed
    assert fix(tmp_path, result.fixed).fixed == result.fixed


def test_a_number_attribute_is_not_an_operand_but_a_tensor_attribute_is(tmp_path):
    body = """\
        h = self.fc(x)
        if h.abs().max() <= self.limit:
            return h
        return self.limit * torch.tanh(h / self.limit)
    """
    result = fix(tmp_path, model(body, init="self.limit = 3.0\n"))
    assert only(result).rewrite == "torch-where"
    assert "return torch.where(h.abs().max() <= self.limit, h, self.limit * torch.tanh(h / self.limit))\n" \
        in result.fixed
    tensor_limit = model(body, init="self.limit = torch.full((4,), 3.0)\n")
    assert "read different operands (x / self.limit, x)" in only(fix(tmp_path, tensor_limit)).reason


def test_item_used_in_arithmetic_stays_a_0d_tensor(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        peak = h.abs().max().item()
        return h / (peak + 1e-6)
    """))
    assert only(result).rewrite == "keep-0d-tensor"
    assert "peak = h.abs().max().detach()\n" in result.fixed


def test_float_of_a_parameter_is_reshaped_to_0d(tmp_path):
    result = fix(tmp_path, model("""\
        t = float(self.temperature)
        return self.fc(x) / t
    """, init="self.temperature = nn.Parameter(torch.tensor(2.0))\n"))
    assert only(result).rewrite == "keep-0d-tensor"
    assert "t = self.temperature.detach().reshape(())\n" in result.fixed


def test_inline_item_in_tensor_arithmetic(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        return h - h.mean().item()
    """))
    assert only(result).rewrite == "keep-0d-tensor"
    assert "return h - h.mean().detach()\n" in result.fixed


def test_item_followed_through_python_arithmetic_into_a_name(tmp_path):
    result = fix(tmp_path, model("""\
        scale = x.abs().max().item() / 127
        q = torch.round(x / scale)
        return self.fc(q * scale)
    """))
    assert only(result).rewrite == "keep-0d-tensor"
    assert "scale = x.abs().max().detach() / 127\n" in result.fixed


def test_a_condition_and_an_operand_the_graph_shows_to_be_0d(tmp_path):
    result = fix(tmp_path, model("""\
        terms = [x.mean(), x.pow(2).mean()]
        total = x.new_zeros(())
        for term in terms:
            if term > 0:
                total = total + term
        kth = torch.kthvalue(x.flatten(), 3)
        if kth.values > 0:
            x = x - kth.values
        return self.fc(x) * total
    """))
    assert [o.rewrite for o in result.outcomes] == ["torch-where"] * 2, [o.describe() for o in result.outcomes]
    assert "total = torch.where(term > 0, total + term, total)\n" in result.fixed
    assert "x = torch.where(kth.values > 0, x - kth.values, x)\n" in result.fixed


def test_a_parameter_number_and_a_full_reduction_in_an_arm_add_no_shape(tmp_path):
    source = HEADER + """\
@torch.compile
def soft_clip(x, limit=3.0):
    if x.abs().amax() <= limit:
        return x
    return limit * torch.tanh(x / limit)


class Net(nn.Module):
    def forward(self, x):
        x = soft_clip(x)
        if x.min() < 0:
            x = x - x.min()
        return x
"""
    result = fix(tmp_path, source)
    assert [o.rewrite for o in result.outcomes] == ["torch-where"] * 2, [o.describe() for o in result.outcomes]
    assert "return torch.where(x.abs().amax() <= limit, x, limit * torch.tanh(x / limit))\n" in result.fixed
    assert "x = torch.where(x.min() < 0, x - x.min(), x)\n" in result.fixed


def test_python_any_all_over_a_tensor_becomes_the_tensor_method(tmp_path):
    result = fix(tmp_path, model("""\
        scale = x.abs().sum(-1)
        if not all(scale > 0):
            scale = scale + 1.0
        if any(scale > 2):
            scale = scale * 0.5
        return self.fc(x) / scale.unsqueeze(-1)
    """))
    assert [o.rewrite for o in result.outcomes] == ["torch-where"] * 2, [o.describe() for o in result.outcomes]
    assert "scale = torch.where((scale > 0).all(), scale, scale + 1.0)\n" in result.fixed
    assert "scale = torch.where((scale > 2).any(), scale * 0.5, scale)\n" in result.fixed


def test_shape_preserving_module_and_names_bound_once_in_the_arms(tmp_path):
    result = fix(tmp_path, model("""\
        if x.abs().sum() == 0:
            return x
        h = torch.relu(x)
        g = torch.sigmoid(self.fc(h))
        if g.mean() < 0.01:
            return h
        return g * h
    """))
    assert [o.rewrite for o in result.outcomes] == [None, "torch-where"], [o.describe() for o in result.outcomes]
    assert "return torch.where(g.mean() < 0.01, h, g * h)\n" in result.fixed
    result = fix(tmp_path, model("""\
        if x.abs().sum() == 0:
            return x
        return self.fc(x)
    """))
    assert "return torch.where(x.abs().sum() == 0, x, self.fc(x))\n" in result.fixed


def test_reductions_over_the_same_dimension_have_the_same_shape(tmp_path):
    result = fix(tmp_path, model("""\
        top = x.max(1).values
        if top.sum() > 0:
            return top
        return x.mean(1)
    """))
    assert "return torch.where(top.sum() > 0, top, x.mean(1))\n" in result.fixed
    other_dim = fix(tmp_path, model("""\
        top = x.max(1).values
        if top.sum() > 0:
            return top
        return x.mean(0)
    """))
    assert "read different operands ((x) without dimension 1 / (x) without dimension 0)" in only(other_dim).reason


def test_captured_item_in_a_condition_is_dropped_for_where(tmp_path):
    source = model("""\
        h = self.fc(x)
        if h.norm().item() > 1.0:
            h = self.fc(h)
        return h
    """).replace("logger = logging", "torch._dynamo.config.capture_scalar_outputs = True\nlogger = logging")
    result = fix(tmp_path, source)
    assert only(result).rewrite == "torch-where"
    assert "h = torch.where(h.norm() > 1.0, self.fc(h), h)\n" in result.fixed


def test_item_asserted_asserts_the_tensor_and_item_printed_is_inside_the_guard(tmp_path):
    result = fix(tmp_path, model("""\
        assert (x >= 0).all().item(), "non-negative input"
        print("peak", x.max().item())
        return self.fc(x)
    """))
    assert [(o.code, o.rewrite) for o in result.outcomes] == [
        ("SFX102", "keep-0d-tensor"), ("SFX201", "guard-side-effect"), ("SFX102", "guard-side-effect")]
    assert '        assert (x >= 0).all(), "non-negative input"\n' in result.fixed
    assert "inside the guard added at line" in result.outcomes[2].summary


PROPERTY_MODEL = "import math\n" + HEADER + """\
class Net(nn.Module):
    def __init__(self, min_temperature=1.0):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.log_temperature = nn.Parameter(torch.zeros(()))
        self.min_temperature = min_temperature
        self.max_scale = math.log(100.0)

    @property
    def temperature(self):
        return max(self.log_temperature.exp().item(), self.min_temperature)

    def forward(self, x):
        t = self.temperature
        scale = math.exp(min(self.log_temperature, self.max_scale))
        return self.fc(x) / t * t * scale
"""


def test_max_of_an_item_and_math_of_a_tensor_become_clamp_and_torch(tmp_path):
    result = fix(tmp_path, PROPERTY_MODEL)
    assert [(o.code, o.rewrite) for o in result.outcomes] == [
        ("SFX102", "keep-0d-tensor"), ("SFX104", "keep-0d-tensor")]
    assert "return self.log_temperature.exp().detach().reshape(()).clamp(min=self.min_temperature)\n" in result.fixed
    assert "scale = torch.exp(self.log_temperature.detach().reshape(()).clamp(max=self.max_scale))\n" in result.fixed
    read_outside = PROPERTY_MODEL + "\n\ndef describe(net):\n    return f'{net.temperature:.2f}'\n"
    declined = fix(tmp_path, read_outside).outcomes[0]
    assert "`max(self.log_temperature.exp().item(), self.min_temperature)` is returned" in declined.reason
    python_use = PROPERTY_MODEL.replace("scale = math.exp(", "scale = math.ceil(math.exp(").replace(
        "self.max_scale))", "self.max_scale)))")
    assert "passed to `math.ceil()`" in fix(tmp_path, python_use).outcomes[1].reason


MASKED = HEADER + """class Pool(nn.Module):
    def forward(self, frames: torch.Tensor, padding_mask: torch.BoolTensor) -> torch.Tensor:
        return frames[padding_mask].mean(0)


class Positive(nn.Module):
    def forward(self, x):
        kept = x[x > 0]
        return kept.sum()


class Soft(nn.Module):
    def forward(self, x):
        outside = x.abs() > 1.0
        y = x / (1 + x.abs())
        y[outside] = x[outside]
        return y


class Count(nn.Module):
    def forward(self, x):
        n = len(torch.nonzero(x > 0))
        return x * n


class Picked(nn.Module):
    def forward(self, x):
        return x[x > 0] * 2
"""


def test_masked_reads_reduced_copied_or_counted_become_where_and_count_nonzero(tmp_path):
    result = fix(tmp_path, MASKED)
    assert [o.rewrite for o in result.outcomes] == ["masked-reduction", "masked-reduction", "masked-copy",
                                                    "count-nonzero", "capture-setting"], [o.describe() for o in result.outcomes]
    fixed = result.fixed
    assert "return torch.where(padding_mask.reshape(padding_mask.shape + (1,) * (frames.dim() - padding_mask.dim()))" \
           ", frames, 0).flatten(0, padding_mask.dim() - 1).sum(0) / padding_mask.sum()\n" in fixed
    assert "        return torch.where(x > 0, x, 0).sum()\n" in fixed and "kept" not in fixed
    assert "        y = torch.where(outside, x, y)\n" in fixed
    assert "        n = torch.count_nonzero(x > 0)\n" in fixed
    # used as a tensor of its own, returned by forward: captured (shown safe: nothing reads its size)
    assert "torch._dynamo.config.capture_dynamic_output_shape_ops = True" in fixed
    assert fix(tmp_path, fixed).fixed == fixed


def test_is_same_size_becomes_a_shape_comparison(tmp_path):
    result = fix(tmp_path, model("""\
        h = self.fc(x)
        if torch.is_same_size(h, x):
            h = h + x
        return h
    """))
    assert only(result).rewrite == "traceable-equivalent"
    assert "        if h.shape == x.shape:\n" in result.fixed


@pytest.mark.parametrize("number,dtype", [
    ("2.0", "h.dtype if h.is_floating_point() or h.is_complex() else torch.get_default_dtype()"),
    ("3", "h.dtype if h.dtype != torch.bool else torch.int64"),
])
def test_result_type_with_a_number_becomes_the_promoted_dtype(tmp_path, number, dtype):
    result = fix(tmp_path, model(f"""\
        h = self.fc(x)
        out_dtype = torch.result_type(h, {number})
        return (h * {number}).to(out_dtype)
    """))
    assert only(result).rewrite == "traceable-equivalent"
    assert f"        out_dtype = {dtype}\n" in result.fixed
    assert fix(tmp_path, result.fixed).fixed == result.fixed


def test_result_type_of_two_tensors_is_declined(tmp_path):
    # Promotion between two tensors depends on which is 0-d, which the source does not show.
    outcome = only(fix(tmp_path, model("""\
        dtype = torch.result_type(x, self.fc(x))
        return self.fc(x).to(dtype)
    """)))
    assert "only for a named tensor and a number literal" in outcome.reason


@pytest.mark.parametrize("binding,fixed", [("list(sizes)", True), ("[8, 16]", True), ("sizes", False)])
def test_copy_of_a_list_attribute_becomes_list(tmp_path, binding, fixed):
    source = "import copy\n" + model("""\
        sizes = copy.copy(self.sizes)
        sizes.append(x.shape[-1])
        return self.fc(x) * len(sizes)
    """, init=f"sizes = (8, 16)\nself.sizes = {binding}\n")
    outcome = only(fix(tmp_path, source))
    if fixed:
        assert outcome.rewrite == "traceable-equivalent"
        assert "sizes = list(self.sizes)\n" in fix(tmp_path, source).fixed
    else:
        assert "fix cannot show that `copy.copy(self.sizes)` equals `list(self.sizes)` here" in outcome.reason


# -- declines, each with its reason -------------------------------------------------------------

DECLINES = [
    ("if-calls-module", """\
        if x.sum() > 0:
            y = self.widen(x)
        else:
            y = x
        return y
    """, "calls a module or function (`self.widen`), and torch.where would run both branches"),
    ("early-return-then-more-code", """\
        if x.sum() > 0:
            return x
        x = x * 2
        return x
    """, "the `if` is not followed by a `return` of a value"),
    ("early-return-of-a-module", """\
        if x.sum() > 0:
            return x
        return self.widen(x)
    """, "calls a module or function (`self.widen`)"),
    ("early-return-else-does-more", """\
        if x.sum() > 0:
            return x
        else:
            x = x * 2
        return x
    """, "the else branch does more than return a value"),
    ("early-return-changes-dtype", """\
        if x.sum() > 0:
            return x > 0
        return x < 0
    """, "changes the dtype (`x > 0`)"),
    ("assigned-arm-changes-dtype", """\
        h = self.fc(x)
        if h.mean() > 0:
            m = h > 0
        else:
            m = h
        return m
    """, "the if branch's `m` changes the dtype (`h > 0`)"),
    ("python-any-condition", """\
        h = self.fc(x)
        if any(row.sum() > 0 for row in h):
            h = h * 2
        return h
    """, "the condition calls Python's `any()` over a list or generator"),
    ("numpy-condition", """\
        values = x.detach().numpy()
        if values.mean() > 0.0:
            y = x * 2
        else:
            y = x
        return y
    """, "cannot show that the condition `values.mean() > 0.0` is a tensor"),
    ("different-names", """\
        if x.sum() > 0:
            a = x * 2
        else:
            b = x * 3
        return self.fc(x)
    """, "assign different names"),
    ("different-operands", """\
        h = self.widen(x)
        if x.sum() > 0:
            y = x * 2
        else:
            y = h * 2
        return y
    """, "read different operands"),
    ("not-elementwise", """\
        if x.sum() > 0:
            y = x.cumsum(0)
        else:
            y = x.mean(0)
        return self.fc(y)
    """, "is not element-wise"),
    ("and-with-else", """\
        if self.training and x.sum() > 0:
            y = x * 2
        else:
            y = x
        return y
    """, "the `if` has an else branch, which runs where either operand fails"),
    ("boolean-operator", """\
        if x.sum() > 0 and x.mean() < 1:
            raise ValueError("bad")
        return self.fc(x)
    """, "the condition uses `and`"),
    ("raise-with-else", """\
        if x.sum() > 0:
            raise ValueError("bad")
        else:
            x = x + 1
        return self.fc(x)
    """, "has an elif/else branch"),
    ("one-arm-new-name", """\
        y = x
        if x.sum() > 0:
            y = x * 2
        return self.fc(y)
    """, "is assigned only when the condition holds"),
    ("item-in-if", """\
        s = x.sum().item()
        if s > 0:
            x = x * 2
        return self.fc(x)
    """, "`s` is tested by an `if`/`while`"),
    ("item-in-fstring", """\
        key = f"{x.sum().item():.3f}"
        return self.fc(x), key
    """, "is formatted into a string"),
    ("item-returned", """\
        return self.fc(x), {x.max().item(): 1}
    """, "is put in a container"),
    ("item-to-python-call", """\
        s = max(x.abs().max().item(), x.shape[-1])
        return self.fc(x) / s, str(s)
    """, "passed to `max()`"),
    ("int-of-tensor", """\
        n = int(x.sum())
        return self.fc(x)[:, n:] * n, str(n)
    """, "`int()` changes the value"),
    ("item-of-buffer-changed-in-place", """\
        decay = float(self.decay)
        self.decay.mul_(0.99)
        return self.fc(x) * decay, {decay: 1}
    """, "`self.decay` is changed in place in this file"),
    ("item-followed-into-python-call", """\
        n = x.sum().item() * 2
        return self.fc(x).repeat(1, round(n) % 2 + 1)
    """, "is passed to `round()`"),
    ("item-of-a-view-changed-in-place", """\
        first = x[0].item()
        x.add_(1)
        return self.fc(x) * first, {first: 1}
    """, "`x` is changed in place in this file"),
    ("raise-inside-try", """\
        try:
            if x.sum() > 0:
                raise ValueError("positive")
        except ValueError:
            x = -x
        return self.fc(x)
    """, "the raise is inside a `try`"),
    ("where-condition-reads-assigned", """\
        h = self.fc(x)
        if h.mean() > 0:
            h = h * 2
            g = x * 2
        else:
            h = h * 3
            g = x * 3
        return h + g
    """, "the condition reads `h`, which the arms assign"),
    ("assert-computed-message", """\
        torch._assert((x >= 0).all(), f"bad input {x.min()}")
        return self.fc(x)
    """, "the message is computed"),
    ("print-value-used", """\
        y = print("hello", x.shape)
        return self.fc(x)
    """, "the value of `print(...)` is used, so the call cannot be skipped"),
    ("print-argument-side-effect", """\
        seen = []
        print(seen.append(1))
        return self.fc(x)
    """, "has a side effect that the guard would skip under compile"),
    ("no-rewrite-for-code", """\
        rows = x.tolist()
        return self.fc(x) * len(rows)
    """, "fix has no rewrite for SFX103"),
    ("nonzero-used-as-a-tensor", """\
        return self.fc(x), x.nonzero().tolist()
    """, "the nonzero result is used for more than its row count"),
    ("while-loop", """\
        while x.sum() > 0:
            x = x - 1
        return self.fc(x)
    """, "`while` loop"),
]


@pytest.mark.parametrize("label,body,reason", DECLINES, ids=[d[0] for d in DECLINES])
def test_decline_says_why(tmp_path, label, body, reason):
    result = fix(tmp_path, model(body))
    declined = [o for o in result.outcomes if o.rewrite is None]
    assert declined, [o.describe() for o in result.outcomes]
    assert any(reason in o.reason for o in declined), [o.describe() for o in declined]
    assert declined[0].describe().startswith(f"declined {declined[0].code} at model.py:")
    assert not result.changed or any(o.rewrite for o in result.outcomes)


def test_the_item_of_a_numpy_array_is_not_kept_as_a_tensor(tmp_path):
    """dynamo traces numpy arrays as tensors, so the graph has the `.item()`; the array itself has
    no `.detach()` (tests/cases/val_numpy_array_item.py raised AttributeError once rewritten)."""
    source = "import numpy as np\n" + CAPTURE_HEADER + textwrap.dedent("""\
        class Jitter(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                epsilon = np.random.rand(1).item()
                return self.fc(x) * (1.0 + epsilon)
    """)
    result = fix(tmp_path, source)
    assert not result.changed, result.fixed
    assert "reads a numpy array, not a tensor" in only(result).reason


def test_a_break_a_newer_torch_does_not_have_is_declined_saying_so(tmp_path):
    source = CAPTURE_HEADER + textwrap.dedent("""\
        class Decay(nn.Module):
            def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
                for _ in range(steps):
                    x = x * 0.9
                return x
    """)
    outcome = only(fix(tmp_path, source))
    assert outcome.rewrite is None and outcome.reason.endswith(
        "; it breaks in torch 2.13 only, so a newer torch removes it without a change"), outcome.reason


def test_import_torch_is_added_where_torch_is_not_bound(tmp_path):
    source = '"""Doc."""\nimport logging\n\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n' \
             "    def forward(self, x):\n        print(x.shape)\n        return x * 2\n"
    result = fix(tmp_path, source)
    assert only(result).rewrite == "guard-side-effect"
    assert result.fixed.startswith('"""Doc."""\nimport logging\n\nimport torch\nimport torch.nn as nn\n\n\nclass')
    assert fix(tmp_path, result.fixed).fixed == result.fixed


def test_other_sfx104_forms_are_declined(tmp_path):
    source = "import math\n\nimport torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n" \
             "    def forward(self, x):\n        return x * float(torch.equal(x, x.flip(0)))\n"
    result = fix(tmp_path, source)
    assert only(result).reason == "`torch.equal(...)` is neither torch._assert nor a math function of a tensor, " \
        "the forms of SFX104 fix rewrites"


def test_construct_in_another_file_is_declined(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "helpers.py").write_text("def report(x):\n    print(x.shape)\n    return x\n")
    source = "import torch\nfrom torch import nn\n\nfrom .helpers import report\n\n\nclass Net(nn.Module):\n" \
             "    def forward(self, x):\n        return report(x) * 2\n"
    result = fix(tmp_path, source)
    assert "the construct is in helpers.py:2; fix rewrites a construct only in its own file" in only(result).reason


# -- idempotence, formatting, --diff, per-occurrence fixable -----------------------------------

MIXED = model("""\
    h = self.fc(x)   # odd   spacing kept
    print("h", h.shape)
    peak = h.abs().max().item()
    h = h / (peak + 1e-6)
    if h.mean() > 0:
        h = F.gelu(h)
    else:
        h = torch.tanh(h)
    if h.sum() > 0:
        return h  # early exit stays
    return self.widen(h) * 2
""")


def test_fix_twice_changes_nothing_the_second_time(tmp_path):
    first = fix(tmp_path, MIXED)
    assert first.changed and sum(1 for o in first.outcomes if o.rewrite) == 3
    second = fix(tmp_path, first.fixed)
    assert second.fixed == first.fixed
    assert [o.rewrite for o in second.outcomes] == [None]  # only the early return into a module, still declined


def test_breaks_left_are_reported_at_the_lines_the_lint_reported(tmp_path):
    """A later round analyses the rewritten text, whose lines moved (the guard adds one): each
    outcome is reported at its line in the file as given."""
    source = model("""\
        h = self.fc(x)
        print("h", h)
        print("again", h)
        rows = h.tolist()
        return h * len(rows)
    """)
    result = fix(tmp_path, source)
    lines = source.splitlines()
    declined = [o for o in result.outcomes if not o.rewrite]
    assert [o.code for o in declined] == ["SFX103"], [o.describe() for o in result.outcomes]
    assert "h.tolist()" in lines[declined[0].line - 1]
    assert [lines[o.line - 1].strip()[:5] for o in result.outcomes if o.rewrite] == ["print", "print"]


def test_formatting_and_comments_outside_the_edits_are_kept(tmp_path):
    result = fix(tmp_path, MIXED)
    kept = [line for line in MIXED.splitlines() if "print" not in line and "item" not in line
            and "gelu" not in line and "tanh" not in line and "else" not in line and "h.mean() > 0" not in line]
    fixed_lines = result.fixed.splitlines()
    for line in kept:
        assert line in fixed_lines, line
    assert result.fixed.startswith(HEADER)


def test_cli_diff_prints_and_changes_nothing(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MIXED)
    proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "fix", "--diff", str(path)],
                          capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert path.read_text() == MIXED
    assert proc.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert "+        if not torch.compiler.is_compiling():\n+            print(\"h\", h.shape)\n" in proc.stdout
    assert "\n-        peak = h.abs().max().item()\n" in proc.stdout
    assert "\n+        peak = h.abs().max().detach()\n" in proc.stdout
    assert "declined SFX101 at " in proc.stderr
    assert "the value returned otherwise calls a module or function" in proc.stderr


def test_cli_rewrites_in_place_and_select(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MIXED)
    proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "fix", "--select", "SFX201", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    text = path.read_text()
    assert "if not torch.compiler.is_compiling():" in text and ".item()" in text
    proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "fix", "--select", "SFX201", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and path.read_text() == text and proc.stderr == ""


def test_fixable_is_decided_per_occurrence(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MIXED)
    analysis = analyze(MIXED, str(path))
    regions = {(r["code"], r["line"]): r["fixable"] for r in graph_json(analysis.graphs[0])["regions"]}
    assert set(regions.values()) == {True, False}
    assert [k for k, v in regions.items() if not v] == [("SFX101", max(line for _, line in regions))]
    graph = analysis.graphs[0]
    assert [has_rewrite(r, graph) for r in graph.regions] == list(regions.values())
    assert [has_rewrite(r, graph, MIXED) for r in graph.regions] == list(regions.values())


def test_a_files_graphs_share_one_parse_of_its_source(tmp_path, monkeypatch):
    """The graph JSON of a 5,000-line file with 30 graphs took 35 s: one libcst parse each."""
    import libcst

    source = MIXED + "\n\nclass Other(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
    path = tmp_path / "model.py"
    path.write_text(source)
    analysis = analyze(source, str(path))
    assert len(analysis.graphs) == 2
    parses = []
    parse_module = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda text: parses.append(1) or parse_module(text))
    fixable = [region["fixable"] for graph in analysis.graphs for region in graph_json(graph)["regions"]]
    assert fixable.count(True) >= 2 and len(parses) == 1


def test_examples_diff_shows_the_rewrites(tmp_path):
    examples = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
    proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "fix", "--diff", examples],
                          capture_output=True, text=True)
    assert "if not torch.compiler.is_compiling():" in proc.stdout  # transformer_block's logger.debug
    assert "fixed SFX202" in proc.stderr


def test_html_marks_the_occurrences_fix_rewrites(tmp_path):
    from flake8_staticfx.front.pictures import render_html

    path = tmp_path / "model.py"
    path.write_text(MIXED)
    page = render_html(analyze(MIXED, str(path)))
    assert page.count('class="fixable"') == 3  # print, .item(), the if/else; not the early return


def test_the_lint_path_never_imports_libcst_or_fix(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MIXED)
    code = textwrap.dedent(f"""\
        import ast, sys
        from flake8_staticfx.front.plugin import Checker
        source = open({str(path)!r}).read()
        found = list(Checker(ast.parse(source), {str(path)!r}, source.splitlines(True)).run())
        assert found, found
        loaded = sorted(m for m in sys.modules if m in ("libcst", "flake8_staticfx.fix")
                        or m.startswith("flake8_staticfx.fix."))
        assert not loaded, loaded
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_lint_message_announces_the_guard_that_fix_adds(tmp_path):
    from flake8_staticfx.messages import FIX_HINT
    from flake8_staticfx.front.plugin import Checker

    source = MIXED + "\n\nclass Side(nn.Module):\n    def forward(self, x, seen):\n" \
        "        print(seen.pop())\n        y = print(x)\n        return x\n"
    path = tmp_path / "model.py"
    path.write_text(source)
    found = {(line, message.split()[0]): FIX_HINT in message
             for line, _, message, _ in Checker(ast.parse(source), str(path), source.splitlines(True)).run()}
    printed = source.splitlines().index('        print("h", h.shape)') + 1
    assert found.pop((printed, "SFX201")) is True
    # decided only by fix itself (.item(), the if/else), declined (a side effect, a used value)
    assert found and not any(found.values()), found


def test_announced_fixes_are_fixes_on_every_case():
    """The lint's hint (fixable.py, on `ast`) never promises what `fix` (on libcst) declines."""
    from flake8_staticfx.fixable import announced_fixes

    cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
    announced = fixed = 0
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(cases, name)
        source = open(path, encoding="utf-8").read()
        tree = ast.parse(source)
        analysis = analyze(source, path, tree)
        for graph in analysis.graphs:
            promised = announced_fixes(tree, path, graph.regions)
            for region in graph.regions:
                if (region.line, region.col, region.code) in promised:
                    announced += 1
                    assert has_rewrite(region, graph, source), (name, region.line, region.code)
                elif region.code in ("SFX201", "SFX202", "SFX203") and has_rewrite(region, graph, source):
                    fixed += 1
    assert announced >= 30 and fixed <= announced // 10, (announced, fixed)
