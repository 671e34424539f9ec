"""Breaks in a file without a compile root of its own, reached from the roots of the files
importing it (reach.py): reported at the file's own line, as dynamo reports its innermost
frame; tests/cases/reach_helpers.py holds the recorded cases."""
from __future__ import annotations

import ast
from pathlib import Path

from flake8_staticfx.analysis import analyze
from flake8_staticfx.front.report import flake8_diagnostics

from test_discovery import codes, write

HELPERS = """
import torch


def _rows(x):
    return x[x.sum(-1) > 0]


def _scaled(x, steps):
    if steps > 2:
        x = x * x.max().item()
    return x + steps


def _unused(x):
    return x.nonzero()
"""

MODEL = """
import torch.nn as nn

from .helpers import _rows, _scaled


class Net(nn.Module):
    def forward(self, x):
        return _rows(_scaled(x, 1))


def eager_only(x):
    return _scaled(x, 5)
"""


def project(tmp_path: Path) -> Path:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "model.py", MODEL)
    return write(tmp_path / "pkg" / "helpers.py", HELPERS)


def test_a_helper_reached_from_another_files_root_breaks_at_its_own_line(tmp_path):
    # _rows breaks where Net.forward calls it; _scaled is given 1, so its .item() never runs;
    # _unused and eager_only are no root's: nothing is said of them.
    assert codes(project(tmp_path)) == [(5, "SFX401")]


def test_the_importer_reaches_the_text_being_linted_not_the_saved_one(tmp_path):
    helpers = project(tmp_path)
    edited = "# a comment added in the editor\n" + helpers.read_text(encoding="utf-8")
    found = analyze(edited, str(helpers))
    assert [(line, message.split()[0]) for line, _, message in flake8_diagnostics(found)] == [(6, "SFX401")]


def test_a_root_that_does_not_pass_the_breaking_value_adds_nothing(tmp_path):
    helpers = project(tmp_path)
    write(tmp_path / "pkg" / "model.py", MODEL.replace("_rows(_scaled(x, 1))", "_scaled(x, 1)"))
    assert codes(helpers) == []


def test_a_subclass_running_an_inherited_forward_reaches_the_helper_through_its_own_method(tmp_path):
    # base.py's forward calls self.loss(), which only losses.py's subclass defines: dynamo runs
    # the subclass's method when it compiles a Triplet, and breaks in helpers.py.
    write(tmp_path / "pkg" / "__init__.py", "")
    helpers = write(tmp_path / "pkg" / "helpers.py", HELPERS)
    write(tmp_path / "pkg" / "base.py", """
        import torch.nn as nn


        class BaseLoss(nn.Module):
            def forward(self, x):
                return self.loss(x) * 2
        """)
    write(tmp_path / "pkg" / "losses.py", """
        from .base import BaseLoss
        from .helpers import _rows


        class Triplet(BaseLoss):
            def loss(self, x):
                return _rows(x).sum()
        """)
    assert codes(helpers) == [(5, "SFX401")]


def test_a_break_only_other_files_reach_promises_no_fix(tmp_path):
    # `fix` rewrites the breaks of the file's own roots; this one is not among them.
    write(tmp_path / "pkg" / "__init__.py", "")
    helpers = write(tmp_path / "pkg" / "log.py", """
        import logging

        import torch

        logger = logging.getLogger(__name__)


        def _note(x):
            logger.warning("seen")
            return x
        """)
    write(tmp_path / "pkg" / "model.py", MODEL.replace("from .helpers import _rows, _scaled", "from .log import _note")
          .replace("_rows(_scaled(x, 1))", "_note(x)"))
    text = helpers.read_text(encoding="utf-8")
    found = list(flake8_diagnostics(analyze(text, str(helpers)), tree=ast.parse(text)))
    assert [(line, message.split()[0]) for line, _, message in found] == [(9, "SFX202")]
    assert "does it" not in found[0][2]


def test_a_failure_among_the_importing_files_is_a_notice_not_a_crash(tmp_path, monkeypatch):
    import flake8_staticfx.analysis as analysis_module

    def broken(*args, **kwargs):
        raise RecursionError("deep")

    monkeypatch.setattr(analysis_module, "reached_breaks", broken)
    helpers = project(tmp_path)
    found = analyze(helpers.read_text(encoding="utf-8"), str(helpers))
    assert found.reached == [] and [n.reason for n in found.notices] == ["RecursionError: deep"]


def test_a_subclass_of_the_linted_file_running_an_inherited_forward_breaks_in_its_own_method(tmp_path):
    # No root of miner.py: Miner's forward is base.py's, which calls the subclass's mine().
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "base.py", """
        import torch.nn as nn


        class BaseMiner(nn.Module):
            def forward(self, x):
                return self.mine(x) + 1
        """)
    miner = write(tmp_path / "pkg" / "miner.py", """
        import torch

        from .base import BaseMiner


        class Miner(BaseMiner):
            def mine(self, x):
                return torch.where(x > 0)[0]
        """)
    assert codes(miner) == [(8, "SFX401")]


def test_explain_names_the_breaks_only_other_files_roots_reach(tmp_path, capsys):
    # helpers.py has no root: `explain` says so, and says where flake8's SFX401 comes from.
    from flake8_staticfx.front import cli

    assert cli.main(["explain", str(project(tmp_path)), "--isolated"]) == 0
    out = capsys.readouterr().out
    assert "no compile root" in out
    assert "only roots of the files importing helpers.py reach" in out and "line 5 SFX401" in out
