"""The message formatter: one shape for every code, within 160 characters, locations an editor
can open."""
from __future__ import annotations

import re

import pytest

from flake8_staticfx.messages import LIMIT, MIN_WHAT, Site, display_path, notice, render, shorten
from flake8_staticfx.rules import RULES

BREAK_RULES = sorted(code for code, rule in RULES.items() if rule.gb_ids)
LONG = "torch.nonzero(" + " + ".join(f"x{i}.abs().max(dim=-1).values" for i in range(8)) + ")"
DEEP = Site("normalise_with_a_long_name", "pkg/sub/deeper/utilities.py", 1234)


@pytest.mark.parametrize("code", BREAK_RULES)
@pytest.mark.parametrize("site", [None, DEEP], ids=["here", "elsewhere"])
@pytest.mark.parametrize("skipped", [None, "forward_features"], ids=["resumes", "frame-skipped"])
def test_every_message_fits_and_keeps_its_parts(code, site, skipped):
    rule = RULES[code]
    message = render(rule, LONG, rule.gb_ids, frame_skipped=skipped, skip_context="a `with` block", site=site)
    assert len(message) <= LIMIT, (len(message), message)
    assert message.startswith(f"{code} {rule.summary}: `torch.")
    assert f"({'/'.join(rule.gb_ids)})" in message  # every id of the occurrence, never cut
    if site:
        assert f"at {site.path}:{site.line}" in message
    quoted = re.search(r": `(.*?)`", message).group(1)
    assert quoted.endswith("...") and LONG.startswith(quoted[:-3])
    if skipped and f"whole `{skipped}` runs eagerly" not in message:  # the last part to give way
        assert not message.endswith(rule.fix) and len(quoted) >= MIN_WHAT, message


def test_a_short_construct_is_quoted_whole_with_the_fix():
    rule = RULES["SFX102"]
    assert render(rule, "x.abs().max().item()", ("GB0124",)) == \
        "SFX102 tensor converted to a Python number: `x.abs().max().item()` (GB0124); keep it a 0-d tensor"


def test_frame_skip_and_site_read_in_order():
    rule = RULES["SFX101"]
    message = render(rule, "m.any()", ("GB0170",), frame_skipped="forward", skip_context="a loop",
                     site=Site("route", "pkg/ops.py", 7))
    assert message == ("SFX101 branch on a tensor's value: `m.any()` in `route` at pkg/ops.py:7 (GB0170); "
                       "in a loop, whole `forward` runs eagerly; select with torch.where or torch.cond")


def test_the_function_goes_before_the_construct_is_cut_too_short():
    rule = RULES["SFX101"]
    site = Site("f" * 60, "pkg/" + "d" * 50 + ".py", 3)
    message = render(rule, "x.sum() > 0", ("GB0170",), site=site)
    assert len(message) <= LIMIT
    assert "`x.sum() > 0`" in message and f"at {site.path}:3" in message and "`fff" not in message


def test_shorten():
    assert shorten("abc", 3) == "abc"
    assert shorten("abcdefgh", 6) == "abc..."
    assert shorten("ab   cdefgh", 8) == "ab..."  # no blank before the ellipsis


def test_notice_fits():
    rule = RULES["SFX900"]
    text = notice(rule, "Huge.forward", "BudgetExceeded: " + "the file's analysis budget is used up " * 9)
    assert len(text) <= LIMIT
    assert text.startswith("SFX900 not analysed: `Huge.forward` (BudgetExceeded: the file")
    assert text.endswith("...)")


def test_display_path_is_relative_to_the_project_root(tmp_path):
    deep = tmp_path / "repo" / "pkg" / "sub" / "deep"
    deep.mkdir(parents=True)
    for folder in (deep.parent.parent, deep.parent, deep):
        (folder / "__init__.py").write_text("")
    (deep / "utils.py").write_text("")
    (tmp_path / "repo" / "script.py").write_text("")
    assert display_path(str(deep / "utils.py")) == "pkg/sub/deep/utils.py"
    assert display_path(str(tmp_path / "repo" / "script.py")) == "script.py"  # no package: its folder


def test_display_path_of_an_installed_library_starts_with_its_package(tmp_path):
    site_packages = tmp_path / "lib" / "python3.11" / "site-packages"
    module = site_packages / "somelib" / "models" / "bert"
    module.mkdir(parents=True)
    for folder in (module.parent.parent, module.parent, module):
        (folder / "__init__.py").write_text("")
    (module / "modeling.py").write_text("")
    assert display_path(str(module / "modeling.py")) == "somelib/models/bert/modeling.py"


def test_an_rnn_module_says_the_rest_of_the_function_runs_eagerly(tmp_path):
    """Dynamo compiles what it traced before an RNN module call, then runs the rest of the frame
    eagerly (measured: tests/cases/grad_mode_blocks.py), so the print in the loop after it is
    not traced and not reported (measured: dynamo counts no break for it)."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.front.report import flake8_diagnostics

    path = tmp_path / "model.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass M(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.rnn = nn.GRU(4, 4)\n\n"
        "    def forward(self, x):\n        h, _ = self.rnn(x)\n"
        "        for row in h:\n            print(row)\n        return h\n", encoding="utf-8")
    messages = [m for _, _, m in flake8_diagnostics(analyze(path.read_text(encoding="utf-8"), str(path)))]
    assert len(messages) == 1, messages
    assert "rest of `forward` runs eagerly" in messages[0] and messages[0].startswith("SFX306")


def test_a_function_resumed_after_a_break_runs_only_its_rest_eagerly(tmp_path):
    """Measured with 2.13 (tests/cases/val_resumed_then_given_up.py): after a print dynamo
    resumes forward, so a break in the loop after it gives up on the resume function only (the
    graph before the print stays): "rest of `forward`". Without the earlier break, or with it on
    some calls only, the whole of forward runs eagerly."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.front.report import flake8_diagnostics

    loop = "        for _ in range(2):\n            if x.sum() > 0:\n                x = -x\n        return x\n"
    before = {"print('start')\n": "rest of `forward` runs eagerly",
              "pass\n": "in a loop, whole `forward` runs eagerly",
              "if verbose:\n            print('start')\n": "in a loop, whole `forward` runs eagerly"}
    for first, cost in before.items():
        path = tmp_path / "model.py"
        path.write_text("import torch\nimport torch.nn as nn\n\n\nclass M(nn.Module):\n"
                        "    def forward(self, x, verbose: bool = False):\n        " + first + loop, encoding="utf-8")
        messages = [m for _, _, m in flake8_diagnostics(analyze(path.read_text(encoding="utf-8"), str(path)))]
        assert [m for m in messages if m.startswith("SFX101")] == [
            f"SFX101 branch on a tensor's value: `x.sum() > 0` (GB0170); {cost}; select with torch.where or torch.cond"]


def test_after_a_break_that_gives_up_on_the_function_its_later_breaks_are_not_reported(tmp_path):
    """A break in a loop makes dynamo run the whole function eagerly: the breaks after it in
    that function are never traced (measured: qwen2_vl's get_rope_index, whose next two
    breaks ran but were not traced; tests/cases/trn_metric_head.py). A break on only one side
    of a branch does not hide what comes after the branch: calls taking the other side trace it."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.front.report import flake8_diagnostics

    path = tmp_path / "metrics.py"
    path.write_text(
        "import torch\n\n\n@torch.compile\ndef calibration(conf, acc, bins):\n"
        "    total = torch.zeros(1)\n    for lo in bins:\n        in_bin = conf.gt(lo)\n"
        "        if in_bin.float().mean().item() > 0:\n"  # 9: the break
        "            total += acc[in_bin].float().mean()\n"  # 10: runs eagerly
        "    return total\n\n\n@torch.compile\ndef flagged(conf, acc, bins, use_item=False):\n"
        "    total = torch.zeros(1)\n    for lo in bins:\n        in_bin = conf.gt(lo)\n"
        "        if use_item:\n            total += in_bin.float().mean().item()\n"  # 20: on some calls
        "        total += acc[in_bin].float().mean()\n"  # 21: traced when use_item is false
        "    return total\n", encoding="utf-8")
    found = flake8_diagnostics(analyze(path.read_text(encoding="utf-8"), str(path)))
    assert [(line, message.split()[0]) for line, _, message in found] == [
        (9, "SFX102"), (20, "SFX102"), (21, "SFX401")], found
