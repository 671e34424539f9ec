"""Which workaround a break's message gives, where its rule's own would not remove the break in
this form of the construct: the forms read from the source around it. Forms that need the
values (a print of tensors and constants, range() of a tensor) are picked where the break is
raised. Each advice is checked against dynamo 2.13 (tests/test_advice.py).
"""
from __future__ import annotations

from astroid import nodes

from . import rules
from .rules import Advice, Rule

# Expressions a tested number passes through on its way to the test: `n.item() == 0`, `not n`.
_OPERATORS = (nodes.Compare, nodes.BoolOp, nodes.UnaryOp, nodes.BinOp)


def advice_for(rule: Rule, expr: nodes.NodeNG) -> Advice | None:
    """The advice for this form of `rule`'s construct at `expr`, None for the rule's own."""
    if rule is rules.TENSOR_TO_PYTHON_SCALAR and tested(expr):
        return rules.CONVERSION_TESTED
    if rule is rules.DATA_DEPENDENT_BRANCH and only_raises(expr):
        return rules.RAISE_ON_TENSOR
    return None


def tested(expr: nodes.NodeNG) -> bool:
    """Is the value of `expr` what an `if`, `while` or ternary tests, alone or through operators?"""
    child, parent = expr, expr.parent
    while isinstance(parent, _OPERATORS):
        child, parent = parent, parent.parent
    return isinstance(parent, (nodes.If, nodes.While, nodes.IfExp)) and parent.test is child


def only_raises(test: nodes.NodeNG) -> bool:
    """Is `test` the whole test of an `if` whose body only raises, without an `else`
    (`if torch.isnan(y).any(): raise ValueError(...)`)?"""
    statement = test.parent
    return isinstance(statement, nodes.If) and statement.test is test and not statement.orelse \
        and len(statement.body) == 1 and isinstance(statement.body[0], nodes.Raise)
