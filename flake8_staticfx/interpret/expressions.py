"""Expressions: each astroid expression node evaluated to an abstract value.

Statements, control flow and inlining are the interpreter's (`interpreter.py`); what a
value does when it is called, indexed or tested is the value's own (`values/`).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from astroid import nodes

from .frame import Frame
from .inline import handler_for
from ..ir import Condition, Node
from ..values.operators import binop, both, compare, unary
from .. import rules, tables
from ..discover.parse import nodes_of_class
from .resume import ResumeState, RestEagerly, WhollyEagerly
from ..values import (
    ContainerModule,
    Module,
    FORMATTED_TYPES,
    MAX_FOLDED_SIZE,
    NOTHING,
    UNKNOWN,
    Dict,
    Function,
    Seq,
    Static,
    Tensor,
    TensorSlice,
    Value,
    assumed_truth,
    derived,
    is_definite_tensor,
    join,
    join_all,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter


class ExpressionEvaluator:
    """Evaluates expressions for one interpreter (`tx`)."""

    def __init__(self, tx: Interpreter):
        self.tx = tx

    def eval(self, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        if expr is None:
            return Static(None)
        handler = handler_for(type(self), "eval_", type(expr))
        if handler is None:
            for child in expr.get_children():
                if isinstance(child, nodes.NodeNG) and not child.is_statement:
                    self.eval(child, frame)
            return UNKNOWN
        return handler(self, expr, frame)

    def eval_Const(self, expr: nodes.Const, frame: Frame) -> Value:
        return Static(expr.value)

    def eval_Name(self, expr: nodes.Name, frame: Frame) -> Value:
        value = frame.lookup(expr.name)
        if value is not None:
            return value
        return self.tx.global_value(frame.module, expr.name)

    def eval_Attribute(self, expr: nodes.Attribute, frame: Frame) -> Value:
        return self.eval(expr.expr, frame).var_getattr(self.tx, expr.attrname, expr, frame)

    def eval_Tuple(self, expr: nodes.Tuple, frame: Frame) -> Value:
        return Seq(self.elements(expr.elts, frame))

    def eval_List(self, expr: nodes.List, frame: Frame) -> Value:
        return Seq(self.elements(expr.elts, frame), is_list=True)

    def eval_Set(self, expr: nodes.Set, frame: Frame) -> Value:
        self.elements(expr.elts, frame)
        return UNKNOWN

    def elements(self, elts: list[nodes.NodeNG], frame: Frame) -> list[Value] | None:
        """The items of a display, `*spread` ones included; None when a spread is not known."""
        items, exact = self.spread(elts, frame)
        return items if exact else None

    def spread(self, elts: list[nodes.NodeNG], frame: Frame) -> tuple[list[Value], bool]:
        """The values of `elts` with `*spread` ones expanded, and whether every spread was known."""
        items: list[Value] = []
        exact = True
        for elt in elts:
            if isinstance(elt, nodes.Starred):
                inner = self.eval(elt.value, frame)
                if isinstance(inner, Seq) and inner.items is not None:
                    items.extend(inner.items)
                else:
                    exact = False
            else:
                items.append(self.eval(elt, frame))
        return items, exact

    def eval_Dict(self, expr: nodes.Dict, frame: Frame) -> Value:
        result = Dict({})
        for key_node, value_node in expr.items:
            value = self.eval(value_node, frame)
            if isinstance(key_node, nodes.DictUnpack):
                if isinstance(value, Dict):
                    result.items.update(value.items)
                    result.complete &= value.complete
                else:
                    result.complete = False
                continue
            key = self.eval(key_node, frame)
            if isinstance(key, Static) and key.known:
                try:
                    result.items[key.value] = value
                    continue
                except TypeError:
                    pass
            result.complete = False
        return result

    def eval_JoinedStr(self, expr: nodes.JoinedStr, frame: Frame) -> Value:
        """An f-string of known simple values is known (`getattr(self, f"_pool_{mode}")`)."""
        parts, operands, known = [], [], True
        for value in expr.values:
            if isinstance(value, nodes.Const):
                parts.append(str(value.value))
                continue
            operand = self.eval(value.value, frame) if isinstance(value, nodes.FormattedValue) else UNKNOWN
            operands.append(operand)
            if isinstance(operand, Static) and operand.known and value.format_spec is None \
                    and isinstance(operand.value, FORMATTED_TYPES):
                parts.append({114: repr, 97: ascii}.get(value.conversion, str)(operand.value))
            else:
                known = False
        if not known or sum(map(len, parts)) > MAX_FOLDED_SIZE:
            return Static()
        return derived("".join(parts), *operands)

    def eval_FormattedValue(self, expr: nodes.FormattedValue, frame: Frame) -> Value:
        self.eval(expr.value, frame)
        return Static()

    def eval_Slice(self, expr: nodes.Slice, frame: Frame) -> Value:
        parts = [self.eval(part, frame) if part is not None else Static(None)
                 for part in (expr.lower, expr.upper, expr.step)]
        if all(isinstance(p, Static) and p.known for p in parts):
            try:
                return Static(slice(*(p.value for p in parts)))
            except TypeError:
                return Static()
        return TensorSlice(parts) if any(isinstance(p, Tensor) for p in parts) else Static()

    def eval_Lambda(self, expr: nodes.Lambda, frame: Frame) -> Value:
        return Function(expr, closure=frame, cls=frame.cls)

    def eval_NamedExpr(self, expr: nodes.NamedExpr, frame: Frame) -> Value:
        value = self.eval(expr.value, frame)
        self.tx.assign(expr.target, value, frame)
        return value

    def eval_Starred(self, expr: nodes.Starred, frame: Frame) -> Value:
        return self.eval(expr.value, frame)

    def eval_IfExp(self, expr: nodes.IfExp, frame: Frame) -> Value:
        test, known, branch = self.condition(expr.test, frame)
        if known is not None:
            with self.tx.breaks.taking(outcome_needs(test, known)):
                return self.eval(expr.body if known else expr.orelse, frame)
        start = len(self.tx.graph.nodes)
        narrowed = narrowing(expr.test, frame)
        saved = frame.env
        if narrowed:
            frame.env = {**saved, narrowed[0]: narrowed[1]}
        assumed = assumed_truth(test)
        with OnSomeCalls(frame, varies(test) or assumed is True), self.tx.breaks.taking(outcome_needs(test, True)):
            body = self.eval(expr.body, frame)
        frame.env = saved
        with OnSomeCalls(frame, varies(test) or assumed is False), self.tx.breaks.taking(outcome_needs(test, False)):
            orelse = self.eval(expr.orelse, frame)
        self.tx.cover(branch, start)
        return join(body, orelse)

    # ------------------------------------------------------------- truth

    def condition(self, expr: nodes.NodeNG, frame: Frame) -> tuple[Value, bool | None, Node | None]:
        """Evaluate the test of an `if`/`while`/ternary and test it for truth as Python does
        (`if a and t:` tests `t` itself when `a` holds): (value, known outcome, branch node)."""
        if not isinstance(expr, nodes.BoolOp):
            value = self.eval(expr, frame)
            return (value, *value.truth(self.tx, expr, frame))
        value, decided, last_branch = self.bool_operands(expr, frame, test_last=True)
        if decided is not None or last_branch is not None:
            return value, decided, last_branch
        known, branch = value.truth(self.tx, expr, frame)
        return value, known, branch

    def eval_BoolOp(self, expr: nodes.BoolOp, frame: Frame) -> Value:
        return self.bool_operands(expr, frame, test_last=False)[0]

    def bool_operands(self, expr: nodes.BoolOp, frame: Frame,
                      test_last: bool) -> tuple[Value, bool | None, Node | None]:
        """The value of `a and b ...` (one of the operands); its truth when an operand decides
        it (`n > 1 and not is_compiling()` is false under dynamo, whatever `n`); and with
        `test_last` the branch node of testing the last operand when it is a tensor. Each
        operand but the last is tested for truth here; one after an operand of unknown truth
        runs only on some calls."""
        results = []
        branch = None
        decided = None
        entered = 0
        needs: list[Condition] = []  # what the later operands need: the outcome the earlier ones went on
        try:
            for index, operand in enumerate(expr.values):
                value = self.eval(operand, frame)
                if index == len(expr.values) - 1:
                    results.append(value)
                    if test_last and is_definite_tensor(value):
                        branch = self.tx.branch(value, operand, frame)
                    elif test_last and value.truth(self.tx, operand, frame)[0] == (expr.op == "or"):
                        decided = expr.op == "or"
                    break
                known, _ = value.truth(self.tx, operand, frame)
                if known == (expr.op == "or"):
                    results.append(value)
                    decided = known
                    break
                if known is None:
                    results.append(value)
                    if not varies(value) and assumed_truth(value) != (expr.op == "and"):
                        frame.resume.short_circuit += 1  # later operands run only on some calls
                        entered += 1
                going_on = outcome_needs(value, expr.op == "and")
                needs.extend(going_on)
                self.tx.breaks.path_conditions.extend(going_on)
        finally:
            frame.resume.short_circuit -= entered
            del self.tx.breaks.path_conditions[len(self.tx.breaks.path_conditions) - len(needs):]
        value = join_all(results)
        if isinstance(value, Static) and decided is None:
            # `a and b` is true only if each is (false only if each is, for `or`)
            needs.extend(outcome_needs(results[-1], expr.op == "and"))
            needed = tuple(dict.fromkeys(needs))
            value = dataclasses.replace(value, **{"when_true" if expr.op == "and" else "when_false": needed})
            if _varies_alone(results, expr.op == "and", self.tx, expr, frame):
                # `self.training and self.p > 0`, `p` known: the mode alone decides it
                other = results[0].when_false if expr.op == "and" else results[0].when_true
                value = dataclasses.replace(value, varies=True,
                                            **{"when_false" if expr.op == "and" else "when_true": other})
        return value, decided, branch

    def eval_UnaryOp(self, expr: nodes.UnaryOp, frame: Frame) -> Value:
        operand = self.eval(expr.operand, frame)
        if expr.op == "not":
            known, _ = operand.truth(self.tx, expr.operand, frame)
            if known is not None:
                return Static(not known)
            if isinstance(operand, Static):  # each outcome needs what the other did
                assumed = operand.assumed and operand.known
                return Static(not operand.value if assumed else NOTHING, assumed=assumed,
                              when_true=operand.when_false, when_false=operand.when_true)
            return Static()
        return unary(self.tx, expr.op, operand, expr, frame)

    # --------------------------------------------------------- operators

    def eval_BinOp(self, expr: nodes.BinOp, frame: Frame) -> Value:
        return binop(self.tx, expr.op, self.eval(expr.left, frame), self.eval(expr.right, frame), expr, frame)

    def eval_Compare(self, expr: nodes.Compare, frame: Frame) -> Value:
        left = self.eval(expr.left, frame)
        result: Value = Static(True)
        for op, right_node in expr.ops:
            right = self.eval(right_node, frame)
            result = both(result, compare(self.tx, op, left, right, expr, frame))
            left = right
        return result

    def eval_Subscript(self, expr: nodes.Subscript, frame: Frame) -> Value:
        container = self.eval(expr.value, frame)
        key = self.eval(expr.slice, frame)
        return container.subscript(self.tx, key, expr, frame)

    # ------------------------------------------------------ comprehensions

    def comprehension(self, expr: nodes.NodeNG, frame: Frame, element: nodes.NodeNG,
                      key: nodes.NodeNG | None = None) -> Value:
        """Python 3.11 runs a comprehension as a function of its own, called with an iterator
        of its first iterable, and dynamo inlines it. After a break inside, dynamo cannot resume
        in the comprehension's loop: the caller's graph splits at the comprehension, which runs
        eagerly (one break however many items; measured: val_comprehension_breaks.py). A
        generator, or a comprehension over `enumerate()`, leaves an iterator dynamo cannot
        rebuild to resume the caller (GB8335): the caller runs eagerly. dynamo compiles no
        generator frame of its own, so a generator's code is interpreted as the caller's."""
        results: list[Value] = []
        keys: list[Value] = []
        exact = [True]
        first = self.eval(expr.generators[0].iter, frame)  # the caller makes the iterator (a
        # tensor's rows too: dynamo unpacks them there)
        is_generator = isinstance(expr, nodes.GeneratorExp)
        saved = dict(frame.env) if is_generator else None  # a generator binds in the caller's env
        inner = frame if is_generator else Frame(expr, frame.module, {}, caller=frame, call_site=expr,
                                                 closure=frame, cls=frame.cls, resume=ResumeState(loop_depth=1))

        def run(generators: list[nodes.Comprehension], iterable: Value, maker: Frame) -> None:
            generator = generators[0]
            items = iterable.iterate(self.tx)
            if items is None:
                exact[0] = False
                items = [iterable.element(self.tx, generator.iter, maker)]
            for item in items:
                self.tx.assign(generator.target, item, inner)
                keep = True
                for condition in generator.ifs:
                    known, _ = self.eval(condition, inner).truth(self.tx, condition, inner)
                    if known is False:
                        keep = False
                        break
                    if known is None:
                        exact[0] = False
                if not keep:
                    continue
                if len(generators) > 1:
                    run(generators[1:], self.eval(generators[1].iter, inner), inner)
                    continue
                if key is not None:
                    keys.append(self.eval(key, inner))
                results.append(self.eval(element, inner))

        if not is_generator and _iterator_dynamo_lacks(self.tx.resolver, expr.generators[0].iter, first) \
                and _reads_tensor_or_module(expr, frame):
            eagerly = frame.resume.eagerly  # all of it, or the rest dynamo resumed it at and gave up
            if isinstance(eagerly, WhollyEagerly) or (isinstance(eagerly, RestEagerly) and eagerly.given_up):
                self.compiled_alone(expr, inner)
            else:
                frame.resume.comprehensions_alone.append((expr, inner))
        outer = frame.resume.unrebuildable
        if is_generator:
            frame.resume.unrebuildable = "a generator"
        elif _calls_builtin(self.tx.resolver, expr.generators[0].iter, "enumerate"):
            frame.resume.unrebuildable = "a comprehension over enumerate()"
        try:
            run(expr.generators, first, frame)
        finally:
            frame.resume.unrebuildable = outer
            if saved is not None:
                frame.env = saved  # the generator's variables are its own
        if isinstance(expr, (nodes.ListComp, nodes.GeneratorExp)) and exact[0]:
            return Seq(results, is_list=True)
        if isinstance(expr, nodes.DictComp):
            if exact[0] and all(isinstance(k, Static) and k.known for k in keys):
                try:
                    return Dict({k.value: v for k, v in zip(keys, results)})
                except TypeError:
                    pass
            return Dict({}, complete=False)
        return Seq(None, elem=join_all(results) if results else UNKNOWN, is_list=True)

    def compiled_alone(self, expr: nodes.NodeNG, inner: Frame) -> None:
        """The comprehension `expr` runs in a function dynamo gave up on, so dynamo compiles it
        as a frame of its own, which cannot step its iterator (GB4347; measured:
        eager_comprehension_iterators.py): it breaks at once and runs eagerly."""
        node = self.tx.graph.python_call(inner.name, meta=self.tx.meta(expr, inner))
        self.tx.graph_break(rules.COMPREHENSION_OVER_ITERATOR, node, expr, inner,
                            gb_ids=tables.COMPREHENSION_ITERATOR_GB.at(self.tx.options.torch_version))

    def eval_ListComp(self, expr: nodes.ListComp, frame: Frame) -> Value:
        return self.comprehension(expr, frame, expr.elt)

    eval_SetComp = eval_GeneratorExp = eval_ListComp

    def eval_DictComp(self, expr: nodes.DictComp, frame: Frame) -> Value:
        return self.comprehension(expr, frame, expr.value, expr.key)

    # --------------------------------------------------------------- calls

    def eval_Call(self, expr: nodes.Call, frame: Frame) -> Value:
        callee = self.eval(expr.func, frame)
        args, exact = self.spread(expr.args, frame)
        unknown_rest = not exact
        kwargs: dict[str, Value] = {}
        for keyword in expr.keywords:
            value = self.eval(keyword.value, frame)
            if keyword.arg is None:
                if isinstance(value, Dict) and value.exact and all(isinstance(k, str) for k in value.items):
                    kwargs.update(value.items)
                else:
                    unknown_rest = True
            else:
                kwargs[keyword.arg] = value
        return callee.call(self.tx, args, kwargs, expr, frame, unknown_rest)


def _iterator_dynamo_lacks(resolver, iterable: nodes.NodeNG, value: Value) -> bool:
    """Does a comprehension over `iterable` get an iterator dynamo cannot step when it compiles
    the comprehension as a frame of its own (GB4347)? Measured with 2.13: a list's (a module
    list's too), a dict's or its views', a set's, zip's and enumerate's; not a tuple's, a range's
    or a tensor's, nor a list display's, which Python makes a tuple (a set display, a frozenset)."""
    if isinstance(iterable, nodes.List):
        return False
    if isinstance(iterable, (nodes.Dict, nodes.DictComp, nodes.Set, nodes.SetComp, nodes.ListComp)):
        return True
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute) \
            and iterable.func.attrname in ("items", "keys", "values") and not iterable.args:
        return True
    if any(_calls_builtin(resolver, iterable, name) for name in ("zip", "enumerate", "set", "list", "sorted")):
        return True
    return isinstance(value, (Dict, ContainerModule)) or (isinstance(value, Seq) and value.is_list)


def _reads_tensor_or_module(expr: nodes.NodeNG, frame: Frame) -> bool:
    """Does the comprehension read a tensor or module of the function it is in? Dynamo compiles
    no frame without one (a comprehension over configuration names traces nowhere)."""
    bound = {name.name for generator in expr.generators for name in nodes_of_class(generator.target, nodes.AssignName)}
    first_iterable = set(nodes_of_class(expr.generators[0].iter, nodes.Name))
    return any(isinstance(frame.env.get(name.name), (Tensor, Module))
               for name in nodes_of_class(expr, nodes.Name) if name.name not in bound and name not in first_iterable)


def _varies_alone(results: list[Value], going_on: bool, tx, expr: nodes.NodeNG, frame: Frame) -> bool:
    """Do the operands of an `and` (`going_on`: True) or `or` whose truth was not known leave a
    single one that varies between runs, the last being of known truth that does not decide
    (true for `and`)? Then the outcome is that one's."""
    first, last = results[0], results[-1]
    return len(results) == 2 and isinstance(first, Static) and first.varies and isinstance(last, Static) \
        and last.truth(tx, expr, frame)[0] is going_on


def _calls_builtin(resolver, expr: nodes.NodeNG, name: str) -> bool:
    """Is `expr` a call of the builtin `name` (not of a local function so named)?"""
    return isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) \
        and resolver.expr_qname(expr.func) == name


class OnSomeCalls:
    """Context: the code run inside runs only on some calls, unless every call in the mode, or
    the default call, takes it (`on_every_call`). Counted in the frame's ResumeState `counter`: `short_circuit`
    for an operand or ternary arm, `conditional` for an `if` block."""

    def __init__(self, frame: Frame, on_every_call: bool, counter: str = "short_circuit"):
        self.frame, self.counter, self.step = frame, counter, 0 if on_every_call else 1

    def __enter__(self) -> None:
        state = self.frame.resume
        setattr(state, self.counter, getattr(state, self.counter) + self.step)

    def __exit__(self, *exc: object) -> None:
        state = self.frame.resume
        setattr(state, self.counter, getattr(state, self.counter) - self.step)


def outcome_needs(test: Value, outcome: bool) -> tuple[Condition, ...]:
    """What the path a test's `outcome` takes needs of how the model is run."""
    if not isinstance(test, Static):
        return ()
    return test.when_true if outcome else test.when_false


def varies(value: Value) -> bool:
    """Values that differ between ordinary runs do not make the code under them conditional."""
    return isinstance(value, Static) and value.varies or is_definite_tensor(value)


def narrowing(test: nodes.NodeNG, frame: Frame) -> tuple[str, Value] | None:
    """`if x is not None:` makes an optional tensor `x` definite inside the branch."""
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and isinstance(test.left, nodes.Name):
        op, right = test.ops[0]
        if op == "is not" and isinstance(right, nodes.Const) and right.value is None:
            value = frame.lookup(test.left.name)
            if isinstance(value, Tensor) and value.weak and value.node is not None \
                    and value.node.meta.get("annotated_tensor"):
                return test.left.name, dataclasses.replace(value, weak=False)  # a mask stays a mask
    return None
