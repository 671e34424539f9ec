"""Stage 3: abstract interpretation of a compile root into a static FX graph.

The builder walks the root's statements the way dynamo walks its bytecode: tensor
operations become graph nodes, static Python values are computed (or known to be static
and left unknown), calls into the project are inlined, loops over known containers are
unrolled. Constructs dynamo cannot trace are tagged on their node (`meta["construct"]`);
annotate.py turns the tags into graph-break regions.
"""
from __future__ import annotations

import builtins
import operator
import time
from dataclasses import replace
from typing import Any

from astroid import nodes

from . import tables
from .config import Options
from .discover import (
    CONTAINERS,
    Binding,
    Resolver,
    Root,
    SourceModule,
    is_disabled,
    is_opaque,
    is_property,
    is_staticmethod,
    is_torch_layer,
)
from .fx_names import FX_NAMES, TENSOR_MEMBERS
from .inline import (
    Frame,
    bind_arguments,
    find_class_attribute,
    find_method,
    static_params,
)
from .ir import Graph, Node, SourceSpan
from .values import (
    NOTHING,
    UNKNOWN,
    BoundMethod,
    ClassRef,
    Dict,
    EnumMember,
    External,
    Function,
    Instance,
    Module,
    NdArray,
    Obj,
    Seq,
    Static,
    Super,
    Tensor,
    Value,
    derived,
    is_definite_tensor,
    join,
    join_all,
)


class BudgetExceeded(Exception):
    """The analysis of one root ran past a limit; what was found so far stands."""


# Flow of a block: how it ends.
FALLS_THROUGH, RETURNS, BREAKS, CONTINUES = None, "return", "break", "continue"

BINOPS = {
    "+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
    "**": "pow", "@": "matmul", "&": "and_", "|": "or_", "^": "xor", "<<": "lshift",
    ">>": "rshift",
}
COMPARE_OPS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
UNARY_OPS = {"-": "neg", "+": "pos", "~": "invert"}
PY_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
}
PY_COMPARE = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}


class FileState:
    """What the builders of one file share: caches keyed by code, never by root."""

    def __init__(self, deadline: float, reuse_inlined: bool, max_steps: int):
        self.deadline = deadline  # process time: a loaded machine must not change the answer
        self.reuse_inlined = reuse_inlined
        self.max_steps = max_steps  # and a deterministic bound, so that it rarely has to
        self.steps = 0
        self.globals: dict[tuple[str, str], Value] = {}
        self.mutated_attrs: dict[nodes.ClassDef, frozenset[str]] = {}
        self.init_attrs: dict[tuple, dict[str, Value]] = {}
        self.summaries: dict[tuple, Value] = {}


class Builder:
    """Interprets one compile root (or, in init mode, a module's `__init__`)."""

    def __init__(self, resolver: Resolver, options: Options, state: FileState, graph: Graph):
        self.resolver = resolver
        self.options = options
        self.state = state
        self.graph = graph
        self.init_mode = False
        self._attr_nodes: dict[str, Node] = {}
        self._constants: dict[Node, Node] = {}  # init-time tensor -> its _tensor_constant
        self._objects: dict[int, Obj] = {}  # id of an object -> the one this graph works on
        self._local_objects: set[int] = set()  # ids of the objects made in this graph
        self._segment_start = 0  # position of the first node after the latest break marked
        self._overlay: dict[tuple[int, str], Value] = {}

    # ------------------------------------------------------------------ roots

    def build(self, root: Root) -> Graph:
        module = self.resolver.main
        function = root.function
        receiver: Value | None = None
        if root.cls is not None and not is_staticmethod(self.resolver, function):
            receiver = Module("user", "", cls=root.cls) if self.resolver.is_module_class(root.cls) \
                else UNKNOWN
        env = self._root_params(function, receiver)
        frame = Frame(function, module, env, cls=root.owner or root.cls)
        frame.is_property = is_property(self.resolver, function)
        try:
            self._run_body(frame)
        finally:
            result = join_all(frame.returns) if frame.returns else Static(None)
            self.graph.output(self._as_arg(result), meta=self._meta(function, frame))
        return self.graph

    def _root_params(self, function: nodes.FunctionDef, receiver: Value | None) -> dict[str, Value]:
        self._used_as_tensor = self._names_used_as_tensors(function, receiver)
        spec = function.args
        params = [*spec.posonlyargs, *spec.args]
        env: dict[str, Value] = {}
        annotations = [*spec.posonlyargs_annotations, *spec.annotations]
        if receiver is not None and params:
            env[params[0].name] = receiver
            params, annotations = params[1:], annotations[1:]
        defaults = spec.defaults or []
        first_default = len(params) - len(defaults)
        for index, param in enumerate(params):
            default = defaults[index - first_default] if index >= first_default else None
            annotation = annotations[index] if index < len(annotations) else None
            env[param.name] = self._param_value(param, annotation, default)
        for param, annotation, default in zip(spec.kwonlyargs, spec.kwonlyargs_annotations,
                                              spec.kw_defaults or [None] * len(spec.kwonlyargs)):
            env[param.name] = self._param_value(param, annotation, default)
        if spec.vararg:
            env[spec.vararg] = Seq(None, elem=Tensor(self.graph.placeholder(spec.vararg), weak=True))
        if spec.kwarg:
            self.graph.placeholder(spec.kwarg)
            env[spec.kwarg] = Dict({}, complete=False)
        return env

    def _names_used_as_tensors(self, function: nodes.FunctionDef, receiver: Value | None) -> set[str]:
        """Names `function` uses as only a tensor can be used: a tensor attribute no Python
        value has (x.sum(), x.shape; not cache.get_seq_length()), or the input of a torch.nn
        layer or of a torch function."""
        used = set()
        for node in function.nodes_of_class((nodes.Attribute, nodes.Call)):
            if isinstance(node, nodes.Attribute):
                if isinstance(node.expr, nodes.Name) and node.attrname in TENSOR_MEMBERS \
                        and node.attrname not in tables.BUILTIN_VALUE_ATTRIBUTES:
                    used.add(node.expr.name)
            elif node.args and isinstance(node.args[0], nodes.Name) and self._takes_tensor(node.func, receiver):
                used.add(node.args[0].name)
        return used

    def _takes_tensor(self, func: nodes.NodeNG, receiver: Value | None) -> bool:
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self":
            layer = self.module_attrs(receiver).get(func.attrname) if isinstance(receiver, Module) else None
            return isinstance(layer, Module) and (layer.kind == "leaf" or layer.qname == "torch.nn.Sequential")
        qname = self.resolver.expr_qname(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
        last = (qname or "").rsplit(".", 1)[-1]
        return bool(qname) and qname.startswith("torch.") and last[:1].islower() \
            and last not in tables.TORCH_FACTORIES and not last.startswith(tables.TORCH_QUERY_PREFIXES)

    def _param_value(self, param: nodes.AssignName, annotation: nodes.NodeNG | None,
                     default: nodes.NodeNG | None) -> Value:
        """Forward inputs are tensors unless annotated or defaulted otherwise."""
        kind = tables.annotation_kind(self.resolver, annotation)
        if isinstance(default, nodes.Const) and default.value is not None:
            kind = "static"  # `output_attentions: Tensor | None = False` is a flag
        node = self.graph.placeholder(param.name, meta=self._meta(param, None))
        if kind == "tensor":
            node.meta["annotated_tensor"] = True
            return Tensor(node, weak=isinstance(default, nodes.Const) and default.value is None)
        if kind == "static" or (default is not None and not (
                isinstance(default, nodes.Const) and default.value is None)):
            return Static()
        if kind == "unknown":
            return UNKNOWN
        # An input used as a tensor in the root's own body (x.sum(), x.shape) is one; an input
        # only used with operators may be an int (a rope module's `num_frames`).
        return Tensor(node, weak=param.name not in self._used_as_tensor)

    # ------------------------------------------------------------- statements

    def _tick(self) -> None:
        self.state.steps += 1
        if self.state.steps > self.state.max_steps:
            raise BudgetExceeded("step budget")
        if self.state.steps % 256 == 0 and time.process_time() > self.state.deadline:
            raise BudgetExceeded("time budget")
        if len(self.graph.nodes) > self.options.max_nodes:
            raise BudgetExceeded("node budget")

    def _run_body(self, frame: Frame) -> None:
        body = frame.function.body
        if isinstance(frame.function, nodes.Lambda):
            frame.returns.append(self.eval(body, frame))
        else:
            self.exec_block(body, frame)

    def exec_block(self, statements: list[nodes.NodeNG], frame: Frame) -> str | None:
        for statement in statements:
            flow = self.exec_statement(statement, frame)
            if flow is not FALLS_THROUGH:
                return flow
        return FALLS_THROUGH

    def exec_statement(self, stmt: nodes.NodeNG, frame: Frame) -> str | None:
        self._tick()
        frame.short_circuit = 0
        handler = getattr(self, "exec_" + type(stmt).__name__, None)
        if handler is not None:
            return handler(stmt, frame)
        for child in stmt.get_children():  # unknown statement kinds: still see their calls
            if isinstance(child, nodes.NodeNG) and not isinstance(child, (nodes.FunctionDef, nodes.ClassDef)):
                if child.is_statement:
                    self.exec_statement(child, frame)
                else:
                    self.eval(child, frame)
        return FALLS_THROUGH

    def exec_Expr(self, stmt: nodes.Expr, frame: Frame) -> None:
        self.eval(stmt.value, frame)

    def exec_Assign(self, stmt: nodes.Assign, frame: Frame) -> None:
        value = self.eval(stmt.value, frame)
        for target in stmt.targets:
            self.assign(target, value, frame)

    def exec_AnnAssign(self, stmt: nodes.AnnAssign, frame: Frame) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, frame), frame)

    def exec_AugAssign(self, stmt: nodes.AugAssign, frame: Frame) -> None:
        current = self.eval(stmt.target, frame)
        value = self.eval(stmt.value, frame)
        self.assign(stmt.target, self.binop(stmt.op.rstrip("="), current, value, stmt, frame), frame)

    def exec_Return(self, stmt: nodes.Return, frame: Frame) -> str:
        frame.returns.append(self.eval(stmt.value, frame) if stmt.value is not None else Static(None))
        return RETURNS

    def exec_Raise(self, stmt: nodes.Raise, frame: Frame) -> str:
        return RETURNS  # the path ends; its message is never formatted in the compiled run

    def exec_Pass(self, stmt: nodes.NodeNG, frame: Frame) -> None:
        return None

    exec_Global = exec_Nonlocal = exec_Import = exec_ImportFrom = exec_Pass

    def exec_Break(self, stmt: nodes.Break, frame: Frame) -> str:
        return BREAKS

    def exec_Continue(self, stmt: nodes.Continue, frame: Frame) -> str:
        return CONTINUES

    def exec_Delete(self, stmt: nodes.Delete, frame: Frame) -> None:
        for target in stmt.targets:
            if isinstance(target, nodes.DelName):
                frame.env.pop(target.name, None)

    def exec_FunctionDef(self, stmt: nodes.FunctionDef, frame: Frame) -> None:
        frame.env[stmt.name] = Function(stmt, closure=frame, cls=frame.cls)

    def exec_ClassDef(self, stmt: nodes.ClassDef, frame: Frame) -> None:
        frame.env[stmt.name] = ClassRef(stmt)

    def exec_Assert(self, stmt: nodes.Assert, frame: Frame) -> None:
        # Dynamo rewrites `assert tensor_condition` into torch._assert: no break.
        self.eval(stmt.test, frame)

    def exec_If(self, stmt: nodes.If, frame: Frame) -> str | None:
        _, known, branch = self.condition(stmt.test, frame)
        narrowed = _narrowing(stmt.test, frame)
        if known is not None:
            return self.exec_block(stmt.body if known else stmt.orelse, frame)
        start = len(self.graph.nodes)
        saved = dict(frame.env)
        if narrowed:
            frame.env[narrowed[0]] = narrowed[1]
        frame.conditional += 1
        try:
            flow_then = self.exec_block(stmt.body, frame)
            env_then = frame.env
            frame.env = dict(saved)
            flow_else = self.exec_block(stmt.orelse, frame)
        finally:
            frame.conditional -= 1
        frame.env = _merge_envs(env_then, flow_then, frame.env, flow_else)
        self._cover(branch, start)
        if flow_then is not FALLS_THROUGH and flow_else is not FALLS_THROUGH:
            return flow_then if flow_then == flow_else else RETURNS
        return FALLS_THROUGH

    def exec_While(self, stmt: nodes.While, frame: Frame) -> str | None:
        _, known, branch = self.condition(stmt.test, frame)
        if known is False:
            return self.exec_block(stmt.orelse, frame)
        start = len(self.graph.nodes)
        saved = dict(frame.env)
        frame.loop_depth += 1
        try:
            flow = self.exec_block(stmt.body, frame)
        finally:
            frame.loop_depth -= 1
        if branch is None and flow in (FALLS_THROUGH, CONTINUES):
            # The test runs again after the body: a flag the body sets from a tensor
            # (`finished = seqs.max() == 0`) makes that test data-dependent.
            branch = self.condition(stmt.test, frame)[2]
        self._cover(branch, start)
        self._repeat_unknown(start, stmt)
        frame.env = _merge_envs(saved, None, frame.env, None)
        return RETURNS if flow == RETURNS and known is True else FALLS_THROUGH

    def _repeat_unknown(self, start: int, loop: nodes.NodeNG) -> None:
        """The nodes of a loop body drawn once for a trip count not known statically: the
        graph says so rather than inventing a structure."""
        for node in self.graph.nodes[start:]:
            node.meta.setdefault("repeat", f"loop at line {loop.lineno}, trip count unknown")

    def exec_For(self, stmt: nodes.For, frame: Frame) -> str | None:
        iterable = self.eval(stmt.iter, frame)
        items = self.iterate(iterable, stmt.iter, frame)
        frame.loop_depth += 1
        try:
            if items is not None:
                for item in items:
                    self.assign(stmt.target, item, frame)
                    flow = self.exec_block(stmt.body, frame)
                    if flow in (BREAKS, RETURNS):
                        return flow if flow == RETURNS else FALLS_THROUGH
            else:
                saved = dict(frame.env)
                start = len(self.graph.nodes)
                self.assign(stmt.target, self.element(iterable, stmt.iter, frame), frame)
                frame.conditional += 1  # the loop may run zero times
                try:
                    self.exec_block(stmt.body, frame)
                finally:
                    frame.conditional -= 1
                self._repeat_unknown(start, stmt)
                frame.env = _merge_envs(saved, None, frame.env, None)
        finally:
            frame.loop_depth -= 1
        return self.exec_block(stmt.orelse, frame)

    def exec_With(self, stmt: nodes.With, frame: Frame) -> str | None:
        frame.with_depth += 1  # dynamo cannot resume inside a `with`, its header included
        try:
            for context, alias in stmt.items:
                manager = self.eval(context, frame)
                self.enter_context(manager, context, frame)
                if alias is not None:
                    self.assign(alias, UNKNOWN, frame)
            return self.exec_block(stmt.body, frame)
        finally:
            frame.with_depth -= 1

    def exec_Try(self, stmt: nodes.Try, frame: Frame) -> str | None:
        # Handlers run only when something failed: they are not the compiled path.
        flow = self.exec_block(stmt.body, frame)
        if flow is FALLS_THROUGH:
            flow = self.exec_block(stmt.orelse, frame)
        final = self.exec_block(stmt.finalbody, frame)
        return final if final is not FALLS_THROUGH else flow

    exec_TryStar = exec_Try

    def exec_Match(self, stmt: nodes.Match, frame: Frame) -> str | None:
        self.eval(stmt.subject, frame)
        saved = dict(frame.env)
        for case in stmt.cases:
            frame.env = dict(saved)
            self.exec_block(case.body, frame)
        frame.env = _merge_envs(saved, None, frame.env, None)
        return FALLS_THROUGH

    # ------------------------------------------------------------- assignment

    def assign(self, target: nodes.NodeNG, value: Value, frame: Frame) -> None:
        if isinstance(target, nodes.AssignName):
            frame.env[target.name] = value
        elif isinstance(target, (nodes.Tuple, nodes.List)):
            self._unpack(target.elts, value, frame)
        elif isinstance(target, nodes.Starred):
            self.assign(target.value, Seq(None, elem=self.element(value, target, frame), is_list=True), frame)
        elif isinstance(target, nodes.AssignAttr):
            receiver = self.eval(target.expr, frame)
            if isinstance(receiver, Module):
                self.set_attribute(receiver, target.attrname, value)
            elif isinstance(receiver, Obj):
                old = receiver.attrs.get(target.attrname)
                if frame.conditional or frame.short_circuit:
                    value = join(old, value) if old is not None else UNKNOWN  # set on some paths
                receiver.attrs[target.attrname] = value
            elif is_definite_tensor(receiver) and target.attrname == "requires_grad":
                node = self.graph.python_call("setattr", (self._as_arg(receiver), "requires_grad"),
                                              meta=self._meta(target, frame))
                self.mark(node, "requires_grad", target, frame)
        elif isinstance(target, nodes.Subscript):
            container = self.eval(target.value, frame)
            key = self.eval(target.slice, frame)
            if isinstance(container, Dict):
                try:
                    # An unknown key still stores a value a later unknown lookup may return.
                    container.items[key.value if isinstance(key, Static) and key.known else object()] = value
                except TypeError:
                    container.complete = False
                if not (isinstance(key, Static) and key.known):
                    container.complete = False
            elif isinstance(container, Tensor):
                self.graph.call_function("operator.setitem", (
                    self._as_arg(container), self._as_arg(key), self._as_arg(value)),
                    meta=self._meta(target, frame))

    def _unpack(self, targets: list[nodes.NodeNG], value: Value, frame: Frame) -> None:
        starred = [i for i, t in enumerate(targets) if isinstance(t, nodes.Starred)]
        if isinstance(value, Seq) and value.items is not None and (
                len(value.items) == len(targets) or starred):
            items = value.items
            if starred:
                s = starred[0]
                tail = len(targets) - s - 1
                middle = items[s: len(items) - tail]
                items = [*items[:s], Seq(list(middle), is_list=True), *items[len(items) - tail:]]
                if len(items) != len(targets):
                    items = [UNKNOWN] * len(targets)
                for target, item in zip(targets, items):
                    self.assign(target.value if isinstance(target, nodes.Starred) else target, item, frame)
                return
            for target, item in zip(targets, items):
                self.assign(target, item, frame)
            return
        if isinstance(value, Static) and value.node is not None and not starred:
            for index, target in enumerate(targets):  # B, C, H, W = x.shape
                self.assign(target, self.subscript(value, Static(index), target, frame), frame)
            return
        if isinstance(value, Tensor) and not starred:
            for index, target in enumerate(targets):  # q, k, v = qkv.unbind(0): one getitem each
                self.assign(target, self.subscript(value, Static(index), target, frame), frame)
            return
        element = self.element(value, None, frame)
        for target in targets:
            self.assign(target, element, frame)

    # ------------------------------------------------------------ expressions

    def eval(self, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        if expr is None:
            return Static(None)
        handler = getattr(self, "eval_" + type(expr).__name__, None)
        if handler is None:
            for child in expr.get_children():
                if isinstance(child, nodes.NodeNG) and not child.is_statement:
                    self.eval(child, frame)
            return UNKNOWN
        return handler(expr, frame)

    def eval_Const(self, expr: nodes.Const, frame: Frame) -> Value:
        return Static(expr.value)

    def eval_Name(self, expr: nodes.Name, frame: Frame) -> Value:
        value = frame.lookup(expr.name)
        if value is not None:
            return value
        return self.global_value(frame.module, expr.name)

    def eval_Attribute(self, expr: nodes.Attribute, frame: Frame) -> Value:
        return self.attribute(self.eval(expr.expr, frame), expr.attrname, expr, frame)

    def eval_Tuple(self, expr: nodes.Tuple, frame: Frame) -> Value:
        return Seq(self._elements(expr.elts, frame))

    def eval_List(self, expr: nodes.List, frame: Frame) -> Value:
        return Seq(self._elements(expr.elts, frame), is_list=True)

    def eval_Set(self, expr: nodes.Set, frame: Frame) -> Value:
        self._elements(expr.elts, frame)
        return UNKNOWN

    def _elements(self, elts: list[nodes.NodeNG], frame: Frame) -> list[Value] | None:
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
        return items if exact else None

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
                    and isinstance(operand.value, (str, int, float, bool, type(None))):
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
        return Seq(parts) if any(isinstance(p, Tensor) for p in parts) else Static()

    def eval_Lambda(self, expr: nodes.Lambda, frame: Frame) -> Value:
        return Function(expr, closure=frame, cls=frame.cls)

    def eval_NamedExpr(self, expr: nodes.NamedExpr, frame: Frame) -> Value:
        value = self.eval(expr.value, frame)
        self.assign(expr.target, value, frame)
        return value

    def eval_Starred(self, expr: nodes.Starred, frame: Frame) -> Value:
        return self.eval(expr.value, frame)

    def eval_IfExp(self, expr: nodes.IfExp, frame: Frame) -> Value:
        test, known, branch = self.condition(expr.test, frame)
        if known is not None:
            return self.eval(expr.body if known else expr.orelse, frame)
        start = len(self.graph.nodes)
        narrowed = _narrowing(expr.test, frame)
        saved = frame.env
        if narrowed:
            frame.env = {**saved, narrowed[0]: narrowed[1]}
        assumed = _assumed_truth(test)
        with _short_circuit(frame, _varies(test) or assumed is True):
            body = self.eval(expr.body, frame)
        frame.env = saved
        with _short_circuit(frame, _varies(test) or assumed is False):
            orelse = self.eval(expr.orelse, frame)
        self._cover(branch, start)
        return join(body, orelse)

    def condition(self, expr: nodes.NodeNG, frame: Frame) -> tuple[Value, bool | None, Node | None]:
        """Evaluate the test of an `if`/`while`/ternary and test it for truth as Python does
        (`if a and t:` tests `t` itself when `a` holds): (value, known outcome, branch node)."""
        if not isinstance(expr, nodes.BoolOp):
            value = self.eval(expr, frame)
            return (value, *self.truth(value, expr, frame))
        value, decided, last_branch = self._bool_operands(expr, frame, test_last=True)
        if decided is not None or last_branch is not None:
            return value, decided, last_branch
        known, branch = self.truth(value, expr, frame)
        return value, known, branch

    def eval_BoolOp(self, expr: nodes.BoolOp, frame: Frame) -> Value:
        return self._bool_operands(expr, frame, test_last=False)[0]

    def _bool_operands(self, expr: nodes.BoolOp, frame: Frame,
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
        try:
            for index, operand in enumerate(expr.values):
                value = self.eval(operand, frame)
                if index == len(expr.values) - 1:
                    results.append(value)
                    if test_last and is_definite_tensor(value):
                        branch = self.branch(value, operand, frame)
                    elif test_last and self.truth(value, operand, frame)[0] == (expr.op == "or"):
                        decided = expr.op == "or"
                    break
                known, _ = self.truth(value, operand, frame)
                if known is None:
                    results.append(value)
                    if not _varies(value) and _assumed_truth(value) != (expr.op == "and"):
                        frame.short_circuit += 1  # later operands run only on some calls
                        entered += 1
                    continue
                if known == (expr.op == "or"):
                    results.append(value)
                    decided = known
                    break
        finally:
            frame.short_circuit -= entered
        return join_all(results), decided, branch

    def eval_UnaryOp(self, expr: nodes.UnaryOp, frame: Frame) -> Value:
        operand = self.eval(expr.operand, frame)
        if expr.op == "not":
            known, _ = self.truth(operand, expr.operand, frame)
            if known is not None:
                return Static(not known)
            if isinstance(operand, Static) and operand.assumed and operand.known:
                return derived(not operand.value, operand)
            return Static()
        if isinstance(operand, Tensor):
            node = self.graph.call_function(f"operator.{UNARY_OPS[expr.op]}", (self._as_arg(operand),),
                                            meta=self._meta(expr, frame))
            return Tensor(node, weak=operand.weak, is_bool=operand.is_bool and expr.op == "~",
                          scalar=operand.scalar)
        if isinstance(operand, Static) and operand.known:
            try:
                return derived({"-": operator.neg, "+": operator.pos, "~": operator.invert}[expr.op](operand.value),
                               operand)
            except Exception:  # noqa: BLE001 - any Python value
                return Static()
        return Static() if isinstance(operand, Static) else UNKNOWN

    def eval_BinOp(self, expr: nodes.BinOp, frame: Frame) -> Value:
        return self.binop(expr.op, self.eval(expr.left, frame), self.eval(expr.right, frame), expr, frame)

    def binop(self, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        randoms = [v for v in (left, right) if isinstance(v, Tensor) and v.python_random]
        if randoms and not any(isinstance(v, Tensor) and not v.python_random for v in (left, right)):
            node = self.graph.python_call(f"operator.{BINOPS.get(op, 'add')}", meta=self._meta(expr, frame))
            self.mark(node, "random_arithmetic", expr, frame)
            return Tensor(None, python_random=True)
        if NdArray in (type(left), type(right)) and not isinstance(left, Tensor) and not isinstance(right, Tensor):
            return NdArray()  # arange(n) * step: an array whatever the Python number
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            node = self.graph.call_function(f"operator.{BINOPS.get(op, 'add')}",
                                            (self._as_arg(left), self._as_arg(right)),
                                            meta=self._meta(expr, frame))
            is_bool = op in "&|^" and all(isinstance(v, Tensor) and v.is_bool for v in (left, right)
                                          if isinstance(v, Tensor))
            return Tensor(node, weak=_only_weak(left, right), is_bool=is_bool, scalar=_all_scalar(left, right),
                          needs_grad=not is_bool and _grad(left, right))
        if isinstance(left, Static) and isinstance(right, Static) and (left.node or right.node):
            node = self.graph.call_function(f"operator.{BINOPS.get(op, 'add')}",
                                            (self._as_arg(left), self._as_arg(right)),
                                            meta=self._meta(expr, frame))
            return Static(node=node)
        if isinstance(left, Static) and isinstance(right, Static):
            if left.known and right.known and op in PY_BINOPS:
                result = _fold(PY_BINOPS[op], left.value, right.value)
                if result is not NOTHING:
                    return derived(result, left, right)
            return Static()
        if isinstance(left, Seq) and isinstance(right, Seq) and op == "+":
            if left.items is not None and right.items is not None:
                return Seq([*left.items, *right.items], is_list=left.is_list)
            return Seq(None, elem=join(left.element(), right.element()), is_list=left.is_list)
        return UNKNOWN

    def eval_Compare(self, expr: nodes.Compare, frame: Frame) -> Value:
        left = self.eval(expr.left, frame)
        result: Value = Static(True)
        for op, right_node in expr.ops:
            right = self.eval(right_node, frame)
            result = _and(result, self.compare(op, left, right, expr, frame))
            left = right
        return result

    def compare(self, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if op in ("is", "is not"):
            same = _identity(left, right)
            if same is None:
                # Whether an optional input was passed differs between ordinary calls.
                optional = any(isinstance(v, Tensor) and v.weak for v in (left, right))
                return Static(varies=optional)
            return derived(same if op == "is" else not same, left, right)
        if op in ("in", "not in"):
            return self._membership(op, left, right, expr, frame)
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            if any(isinstance(v, Static) and isinstance(v.value, str) for v in (left, right)):
                return UNKNOWN  # a tensor is never compared with a string: not a tensor
            node = self.graph.call_function(f"operator.{COMPARE_OPS[op]}",
                                            (self._as_arg(left), self._as_arg(right)),
                                            meta=self._meta(expr, frame))
            return Tensor(node, weak=_only_weak(left, right), is_bool=True, scalar=_all_scalar(left, right))
        if isinstance(left, Static) and isinstance(right, Static):
            if left.known and right.known:
                try:
                    return derived(bool(PY_COMPARE[op](left.value, right.value)), left, right)
                except Exception:  # noqa: BLE001 - any Python value
                    return Static()
            return Static()
        if isinstance(left, Static) and isinstance(right, (Seq, Dict)) or \
                isinstance(right, Static) and isinstance(left, (Seq, Dict)):
            return Static()
        return UNKNOWN

    def _membership(self, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if is_definite_tensor(left) and isinstance(right, (Seq, Static)):
            # `t in (0, 1)` compares the tensor with each item and tests the result.
            self.branch(left, expr, frame)
            return Static()
        if isinstance(right, Dict) and isinstance(left, Static) and left.known:
            try:
                present = left.value in right.items
            except TypeError:
                return Static()
            if present or right.complete:
                return Static(present if op == "in" else not present)
            return Static()
        if isinstance(right, Seq) and right.items is not None and isinstance(left, Static) and left.known \
                and all(isinstance(i, Static) and i.known for i in right.items):
            try:
                present = left.value in [i.value for i in right.items]
            except Exception:  # noqa: BLE001 - any Python value
                return Static()
            return Static(present if op == "in" else not present)
        if is_definite_tensor(right):
            # Tensor.__contains__ is `(right == left).any().item()`: a Python bool (GB0124).
            node = self.graph.call_method("__contains__", (self._as_arg(right), self._as_arg(left)),
                                          meta=self._meta(expr, frame))
            self.mark(node, "item", expr, frame)
            return Static()
        if isinstance(right, Tensor):
            return UNKNOWN
        return Static() if isinstance(left, Static) else UNKNOWN

    def eval_Subscript(self, expr: nodes.Subscript, frame: Frame) -> Value:
        container = self.eval(expr.value, frame)
        key = self.eval(expr.slice, frame)
        return self.subscript(container, key, expr, frame)

    def subscript(self, container: Value, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if isinstance(container, NdArray):
            return NdArray()
        if isinstance(container, Tensor):
            node = self.graph.call_function("operator.getitem", (self._as_arg(container), self._as_arg(key)),
                                            meta=self._meta(expr, frame))
            if _has_bool_mask(key):
                self.mark(node, "dynamic_shape", expr, frame)
            # `dims[0]`, `dims[1:]` are as valid on a tuple: an assumed input stays assumed.
            weak = container.weak and isinstance(key, Static) and (
                not key.known or type(key.value) in (int, slice))
            return Tensor(node, weak=weak, is_bool=container.is_bool, needs_grad=container.needs_grad)
        if isinstance(container, Static) and container.node is not None:
            node = self.graph.call_function("operator.getitem", (self._as_arg(container), self._as_arg(key)),
                                            meta=self._meta(expr, frame))
            return Static(node=node)
        if isinstance(key, Static) and key.known:
            if isinstance(container, Seq) and container.items is not None:
                try:
                    picked = container.items[key.value]
                    return Seq(picked, is_list=container.is_list) if isinstance(picked, list) else picked
                except (TypeError, IndexError):
                    return UNKNOWN
            if isinstance(container, Dict):
                try:
                    if key.value in container.items:
                        return container.items[key.value]
                except TypeError:
                    return UNKNOWN
                return UNKNOWN
            if isinstance(container, Module) and container.kind == "container":
                return self._container_item(container, key.value)
            if isinstance(container, Static) and container.known:
                try:
                    return derived(container.value[key.value], container, key)
                except Exception:  # noqa: BLE001 - any Python value
                    return Static()
        if isinstance(container, Seq):
            if isinstance(key, Static) and isinstance(key.value, slice):
                return Seq(None, elem=container.element(), is_list=container.is_list)
            return container.element()
        if isinstance(container, Module) and container.kind == "container":
            items = container.items
            values = list(items.values()) if isinstance(items, dict) else items
            return join_all(values) if values else UNKNOWN
        if isinstance(container, Dict):
            return join_all(list(container.items.values())) if container.items else UNKNOWN
        if isinstance(container, Static):
            return Static()
        return UNKNOWN

    def _comprehension(self, expr: nodes.NodeNG, frame: Frame, element: nodes.NodeNG,
                       key: nodes.NodeNG | None = None) -> Value:
        saved = dict(frame.env)
        results: list[Value] = []
        keys: list[Value] = []
        exact = [True]

        def run(generators: list[nodes.Comprehension]) -> None:
            if not generators:
                if key is not None:
                    keys.append(self.eval(key, frame))
                results.append(self.eval(element, frame))
                return
            generator = generators[0]
            iterable = self.eval(generator.iter, frame)
            items = self.iterate(iterable, generator.iter, frame)
            if items is None:
                exact[0] = False
                items = [self.element(iterable, generator.iter, frame)]
            for item in items:
                self.assign(generator.target, item, frame)
                keep = True
                for condition in generator.ifs:
                    known, _ = self.truth(self.eval(condition, frame), condition, frame)
                    if known is False:
                        keep = False
                        break
                    if known is None:
                        exact[0] = False
                if keep:
                    run(generators[1:])

        run(expr.generators)
        frame.env = saved
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

    def eval_ListComp(self, expr: nodes.ListComp, frame: Frame) -> Value:
        return self._comprehension(expr, frame, expr.elt)

    eval_SetComp = eval_GeneratorExp = eval_ListComp

    def eval_DictComp(self, expr: nodes.DictComp, frame: Frame) -> Value:
        return self._comprehension(expr, frame, expr.value, expr.key)

    # ---------------------------------------------------------------- truth

    def truth(self, value: Value, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        """Python tests `value` for truth: (its known outcome or None, the branch node if it breaks)."""
        if is_definite_tensor(value):
            return None, self.branch(value, expr, frame)
        if isinstance(value, Static) and value.known:
            if value.assumed and not self.options.follow_defaults:
                return None, None  # the lint explores both: the model may be built otherwise
            try:
                return bool(value.value), None
            except Exception:  # noqa: BLE001 - any Python value
                return None, None
        if isinstance(value, Static) and value.varies and self.options.follow_defaults:
            return True, None  # self.training: a module is built in training mode
        if isinstance(value, (Module, Function, ClassRef, External)):
            return True, None
        if isinstance(value, Seq) and value.items is not None:
            return bool(value.items), None
        if isinstance(value, Dict) and value.complete:
            return bool(value.items), None
        return None, None

    def branch(self, value: Tensor, expr: nodes.NodeNG, frame: Frame) -> Node:
        node = self.graph.call_function("bool", (self._as_arg(value),), meta=self._meta(expr, frame))
        self.mark(node, "branch", expr, frame, scalar=value.scalar)
        return node

    def _cover(self, branch: Node | None, start: int) -> None:
        if branch is not None:
            branch.meta["covers"] = self.graph.nodes[start:]

    # ------------------------------------------------------------- iteration

    def iterate(self, value: Value, expr: nodes.NodeNG | None, frame: Frame) -> list[Value] | None:
        """The items of a loop over `value` when dynamo would unroll a known sequence."""
        limit = self.options.max_unroll
        if isinstance(value, Seq) and value.items is not None and len(value.items) <= limit:
            return list(value.items)
        if isinstance(value, Module) and value.kind == "container":
            items = value.items
            if isinstance(items, dict):
                return [Static(k) for k in items] if len(items) <= limit else None
            if isinstance(items, list) and len(items) <= limit:
                return list(items)
        if isinstance(value, Dict) and value.complete and len(value.items) <= limit:
            return [Static(k) for k in value.items]
        return None

    def element(self, value: Value, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        """One item of `value` when the items are not known one by one."""
        if isinstance(value, Tensor):
            node = self.graph.call_function("operator.getitem", (self._as_arg(value), 0),
                                            meta=self._meta(expr, frame) if expr is not None else {})
            return Tensor(node, weak=value.weak, is_bool=value.is_bool)  # a tuple unpacks too
        if isinstance(value, Seq):
            return value.element()
        if isinstance(value, Module) and value.kind == "container":
            items = value.items
            values = list(items.values()) if isinstance(items, dict) else (items or [])
            if isinstance(items, dict):
                return Static()
            return join_all(values) if values else UNKNOWN
        if isinstance(value, Dict):
            return Static()
        if isinstance(value, Static):
            return Static()
        return UNKNOWN

    # ------------------------------------------------------------ attributes

    def attribute(self, receiver: Value, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if isinstance(receiver, Tensor):
            return self._tensor_attribute(receiver, name, expr, frame)
        if isinstance(receiver, Module):
            return self.module_attribute(receiver, name, expr, frame)
        if isinstance(receiver, Obj):
            if name in receiver.attrs:
                return self._in_this_graph(receiver.attrs[name])
            return self._class_attribute(receiver.cls, name, receiver, frame, site=expr)
        if isinstance(receiver, External):
            return self.value_of(self.resolver.qualified(f"{receiver.qname}.{name}"), frame)
        if isinstance(receiver, ClassRef):
            return self._class_attribute(receiver.node, name, None, frame)
        if isinstance(receiver, Super):
            return self._super_attribute(receiver, name, expr, frame)
        if isinstance(receiver, Static):
            if receiver.known and isinstance(receiver.value, (str, bytes)) and name.startswith(("__",)) is False:
                return BoundMethod(receiver, name)
            return Static() if not name[:1].isupper() else UNKNOWN
        if isinstance(receiver, (Seq, Dict, Instance)):
            return BoundMethod(receiver, name)
        if isinstance(receiver, NdArray):
            if name in tables.NDARRAY_METHODS or name == "tolist":
                return BoundMethod(receiver, name)
            return Static() if name in ("shape", "ndim", "size", "dtype") else UNKNOWN
        return UNKNOWN

    def _tensor_attribute(self, tensor: Tensor, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if tensor.weak and name not in TENSOR_MEMBERS:
            return UNKNOWN  # `cache.get_seq_length()`: the input assumed a tensor is something else
        if name in tables.TENSOR_STATIC_ATTRIBUTES or name in tables.TENSOR_TENSOR_ATTRIBUTES:
            node = self.graph.call_function("getattr", (self._as_arg(tensor), name),
                                            meta=self._meta(expr, frame))
            return Tensor(node) if name in tables.TENSOR_TENSOR_ATTRIBUTES else Static(node=node)
        return BoundMethod(tensor, name)

    def module_attribute(self, module: Module, name: str, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        overlay = self._overlay.get((id(module), name))
        if overlay is not None:
            return overlay
        if name == "training":
            return Static(varies=True)
        if module.kind == "leaf":
            if name in tables.MODULE_TENSOR_ATTRIBUTES:
                return self._get_attr(_join_path(module.path, name), expr, frame)
            if name == "forward":
                return BoundMethod(module, "__call__")
            if module.qname in tables.RNN_MODULES and name == "flatten_parameters":
                return BoundMethod(module, name)
            return Static() if not name.startswith("_") else UNKNOWN
        if module.kind == "container":
            return BoundMethod(module, name)
        attrs = self.module_attrs(module)
        if name in attrs:
            value = attrs[name]
            if isinstance(value, Tensor):
                return self._get_attr(_join_path(module.path, name), expr, frame)
            if name in self._mutated(module.cls) and not isinstance(value, Module):
                return Static() if isinstance(value, Static) else UNKNOWN
            return self._in_this_graph(value)
        if module.cls is not None:
            return self._class_attribute(module.cls, name, module, frame, site=expr)
        return UNKNOWN

    def _class_attribute(self, cls: nodes.ClassDef, name: str, receiver: Value | None, frame: Frame,
                         after: nodes.ClassDef | None = None, site: nodes.NodeNG | None = None) -> Value:
        """A method, property value or class attribute; `site` is the attribute expression
        (a property runs there)."""
        method = find_method(self.resolver, cls, name, after=after)
        if method is not None:
            function, owner = method
            if is_staticmethod(self.resolver, function):
                return Function(function, cls=owner)
            if is_property(self.resolver, function) and receiver is not None:
                return self.call_function(Function(function, bound=receiver, cls=owner), [], {},
                                          site or function, frame, in_property=True)
            return Function(function, bound=receiver, cls=owner)
        expr = find_class_attribute(self.resolver, cls, name)
        if expr is not None:
            if receiver is None and self.resolver.is_enum_class(cls):
                return Static(EnumMember(cls.qname(), name))
            return self.eval_static_expr(expr, frame)
        if receiver is not None and name in tables.MODULE_METHODS:
            return BoundMethod(receiver, name)
        return UNKNOWN

    def _super_attribute(self, sup: Super, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        receiver = sup.receiver
        cls = receiver.cls if isinstance(receiver, Module) else None
        if cls is None or sup.cls is None:
            return UNKNOWN
        value = self._class_attribute(cls, name, receiver, frame, after=sup.cls)
        if value is UNKNOWN and name in ("forward", "__call__") and isinstance(receiver, Module):
            return BoundMethod(replace(receiver, kind="leaf", qname=_torch_base(self.resolver, cls)), "forward")
        return value

    def _in_this_graph(self, value: Value) -> Value:
        """A value made outside this graph (by `__init__`, or by another root's forward), read
        here: its tensors are constants of this graph (fx's `_tensor_constantN`), not nodes of
        the graph that made them; its objects are this graph's own copies."""
        if isinstance(value, Tensor) and value.node is not None and not self.graph.owns(value.node):
            constant = self._constants.get(value.node)
            if constant is None:
                constant = self._constants[value.node] = self.graph.get_attr(
                    f"_tensor_constant{len(self._constants)}")
            return replace(value, node=constant)
        # Containers are copied only when an item changes, so that forward's own writes to
        # them (`self._memo[key] = ...`) stay visible to its later reads.
        if isinstance(value, Seq):
            items = None if value.items is None else [self._in_this_graph(item) for item in value.items]
            elem = self._in_this_graph(value.elem)
            if elem is value.elem and (items is None or all(a is b for a, b in zip(items, value.items))):
                return value
            return Seq(items, elem=elem, is_list=value.is_list)
        if isinstance(value, Dict):
            items = {key: self._in_this_graph(item) for key, item in value.items.items()}
            if all(items[key] is item for key, item in value.items.items()):
                return value
            return Dict(items, value.complete)
        if isinstance(value, Obj):
            # An object made elsewhere (by a module's `__init__`): this graph works on its own
            # copy, in which what other methods reassign (scheduler.set_timesteps() before
            # forward) is not a fact.
            copy = self._objects.get(id(value))
            if copy is None:
                mutated = self._mutated(value.cls)
                copy = self._objects[id(value)] = Obj(value.cls, {
                    name: item if name not in mutated or isinstance(item, Module)
                    else Static() if isinstance(item, Static) else UNKNOWN
                    for name, item in value.attrs.items()})
                self._objects[id(copy)] = copy
            return copy
        return value

    def _reduced_in_graph(self, values: list[Value]) -> bool:
        """Is a size argument (or an item of a size tuple) a reduction of tensor data made in
        the current graph (`lengths.max()`, `n.sum() + 1`)? Dynamo then needs its value in
        Python (GB0033). Measured with 2.13, it does not break when the size is a forward
        input or was computed before an earlier graph break (it is an input of the resumed
        graph then), nor when it is a torch op on Python ints (`torch.div(size, 2)`)."""
        for value in values:
            if isinstance(value, Seq) and value.items is not None and self._reduced_in_graph(value.items):
                return True
            if is_definite_tensor(value) and not value.scalar and value.node is not None \
                    and self.graph.position(value.node) >= self._segment_start:
                made = [value.node, *(n for n in value.node.inputs() if n.op != "get_attr")]
                if any(n.target.rsplit(".", 1)[-1] in tables.REDUCTIONS for n in made if n.op != "placeholder"):
                    return True
        return False

    def _get_attr(self, target: str, expr: nodes.NodeNG | None, frame: Frame) -> Tensor:
        node = self._attr_nodes.get(target)
        if node is None:
            node = self._attr_nodes[target] = self.graph.get_attr(
                target, meta=self._meta(expr, frame) if expr is not None else {})
        return Tensor(node, needs_grad=True)

    def set_attribute(self, module: Module, name: str, value: Value) -> None:
        if self.init_mode:
            if isinstance(value, Module):
                value = _with_path(value, _join_path(module.path, name))
            if module.attrs is not None:
                module.attrs[name] = value
        else:
            self._overlay[(id(module), name)] = value

    def _mutated(self, cls: nodes.ClassDef | None) -> frozenset[str]:
        """Attributes assigned outside __init__: their __init__ value is not a fact."""
        if cls is None:
            return frozenset()
        cached = self.state.mutated_attrs.get(cls)
        if cached is None:
            names = set()
            home = cls.root()
            for owner in self.resolver.mro(cls):
                if owner.root() is not home:
                    continue  # library base classes rarely reassign what subclasses read
                for method in owner.mymethods():
                    if method.name == "__init__":
                        continue
                    for node in method.nodes_of_class(nodes.AssignAttr):
                        if isinstance(node.expr, nodes.Name) and node.expr.name == "self":
                            names.add(node.attrname)
            cached = self.state.mutated_attrs[cls] = frozenset(names)
        return cached

    def module_attrs(self, module: Module) -> dict[str, Value]:
        """The module's attributes, by interpreting its class's `__init__` (once per instance)."""
        if module.attrs is not None:
            return module.attrs
        module.attrs = {}
        if module.cls is None:
            return module.attrs
        init = find_method(self.resolver, module.cls, "__init__")
        if init is None:
            return module.attrs
        function, owner = init
        key = (module.cls, _signature(module.ctor_args),
               None if self.state.reuse_inlined else module.path)
        cached = self.state.init_attrs.get(key)
        if cached is not None:
            module.attrs = cached
            return cached
        self.state.init_attrs[key] = module.attrs
        scratch = Builder(self.resolver, self.options, self.state, Graph("__init__", ""))
        scratch.init_mode = True
        if module.ctor_args is not None:
            args, kwargs = module.ctor_args
            env = bind_arguments(function, module, args, kwargs, lambda e: scratch.eval_static_expr(e, None))
        else:
            env = static_params(function, lambda e: _assume(scratch.eval_static_expr(e, None)))
            if function.args.args:
                env[function.args.args[0].name] = module
        frame = Frame(function, self.resolver.source_of(function), env, cls=owner)
        try:
            scratch._run_body(frame)
        except RecursionError:
            pass
        return module.attrs

    # ----------------------------------------------------------------- globals

    def global_value(self, module: SourceModule, name: str) -> Value:
        key = (module.path, name)
        if key in self.state.globals:
            return self.state.globals[key]
        self.state.globals[key] = UNKNOWN  # cuts cycles between module-level assignments
        binding = self.resolver.global_binding(module, name)
        if binding is None:
            value = External(name) if name in tables.BUILTINS else UNKNOWN
        else:
            value = self.value_of(binding, None)
        self.state.globals[key] = value
        return value

    def value_of(self, binding: Binding, frame: Frame | None) -> Value:
        if binding.kind == "external" or binding.kind == "module":
            return External(binding.qname)
        if binding.kind == "class":
            return ClassRef(binding.node)
        if binding.kind == "function":
            return Function(binding.node)
        if binding.kind == "assign":
            return self.eval_static_expr(binding.node, None, binding.module)
        return UNKNOWN

    def eval_static_expr(self, expr: nodes.NodeNG, frame: Frame | None,
                         module: SourceModule | None = None) -> Value:
        """Evaluate a default, class attribute or module-level value outside any graph."""
        if isinstance(expr, nodes.Const):
            return Static(expr.value)
        module = module or self.resolver.source_of(expr)
        pseudo = Frame(expr.root(), module, {}, caller=frame)
        # Module-level tensors are constants to the graph, not traced operations: whatever the
        # expression computes goes to a scratch graph.
        graph, self.graph = self.graph, Graph("<static>", module.path)
        try:
            value = self.eval(expr, pseudo)
        finally:
            self.graph = graph
        return UNKNOWN if isinstance(value, Tensor) and not self.init_mode else value

    # ------------------------------------------------------------------ calls

    def eval_Call(self, expr: nodes.Call, frame: Frame) -> Value:
        callee = self.eval(expr.func, frame)
        args: list[Value] = []
        unknown_rest = False
        for arg in expr.args:
            if isinstance(arg, nodes.Starred):
                inner = self.eval(arg.value, frame)
                if isinstance(inner, Seq) and inner.items is not None:
                    args.extend(inner.items)
                else:
                    unknown_rest = True
            else:
                args.append(self.eval(arg, frame))
        kwargs: dict[str, Value] = {}
        for keyword in expr.keywords:
            value = self.eval(keyword.value, frame)
            if keyword.arg is None:
                if isinstance(value, Dict) and value.complete and all(isinstance(k, str) for k in value.items):
                    kwargs.update(value.items)
                else:
                    unknown_rest = True
            else:
                kwargs[keyword.arg] = value
        return self.call(callee, args, kwargs, expr, frame, unknown_rest)

    def call(self, callee: Value, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        if isinstance(callee, Function):
            return self.call_function(callee, args, kwargs, expr, frame, unknown_rest=unknown_rest)
        if isinstance(callee, BoundMethod):
            return self.call_method(callee, args, kwargs, expr, frame)
        if isinstance(callee, Module):
            return self.call_module(callee, args, kwargs, expr, frame, unknown_rest)
        if isinstance(callee, External):
            return self.call_external(callee.qname, args, kwargs, expr, frame)
        if isinstance(callee, ClassRef):
            return self.construct(callee.node, args, kwargs, expr, frame, unknown_rest)
        if isinstance(callee, Obj):
            method = self._class_attribute(callee.cls, "__call__", callee, frame)
            return self.call(method, args, kwargs, expr, frame, unknown_rest) if isinstance(method, Function) \
                else UNKNOWN
        return UNKNOWN

    def call_function(self, function: Function, args: list[Value], kwargs: dict[str, Value],
                      expr: nodes.NodeNG, frame: Frame, unknown_rest: bool = False,
                      in_property: bool = False) -> Value:
        node = function.node
        if isinstance(node, nodes.FunctionDef):
            if is_disabled(self.resolver, node):
                call = self.graph.python_call(node.qname(), self._args(args), self._kwargs(kwargs),
                                              meta=self._meta(expr, frame))
                self.mark(call, "disabled_call", expr, frame)
                return UNKNOWN
            if is_opaque(self.resolver, node):
                return self._opaque_call(node.qname(), args, kwargs, expr, frame)
        if frame.active(node) or frame.depth >= self.options.max_inline_depth:
            return UNKNOWN
        if self.init_mode and not _builds_attributes(node, frame):
            return UNKNOWN
        receiver = function.bound
        if isinstance(node, nodes.FunctionDef) and receiver is None and function.cls is not None \
                and _is_classmethod(node):
            receiver = ClassRef(function.cls)
        # A call on a project object may reassign its attributes: never stand in for it.
        summarise = self.state.reuse_inlined and not self.init_mode and not _holds_object((receiver, args, kwargs))
        key = (node, _signature((receiver, args, kwargs)), unknown_rest, in_property, frame.loop_depth > 0) \
            if summarise else None
        summary = self.state.summaries.get(key) if summarise else None
        if summary is not None:
            # Inlined before in this file, with arguments of the same kinds: its breaks are
            # already reported; stand in a single node for the call.
            target = receiver.path if isinstance(receiver, Module) and receiver.path else node.qname()
            op = self.graph.call_module if isinstance(receiver, Module) and node.name == "forward" \
                else self.graph.call_function
            call = op(target, self._args(args), self._kwargs(kwargs), meta=self._meta(expr, frame))
            return _rebind(summary, call)
        env = bind_arguments(node, receiver, args, kwargs,
                             lambda e: self.eval_static_expr(e, frame), unknown_rest)
        callee = Frame(node, self.resolver.source_of(node), env, caller=frame, call_site=expr,
                       closure=function.closure, cls=function.cls)
        callee.is_property = in_property
        self._run_body(callee)
        result = join_all(callee.returns) if callee.returns else Static(None)
        if summarise:
            self.state.summaries[key] = result
        return result

    def _opaque_call(self, target: str, args: list[Value], kwargs: dict[str, Value],
                     expr: nodes.NodeNG, frame: Frame) -> Value:
        if any(isinstance(v, Tensor) for v in [*args, *kwargs.values()]):
            self.graph.call_function(target, self._args(args), self._kwargs(kwargs), meta=self._meta(expr, frame))
        return UNKNOWN

    def construct(self, cls: nodes.ClassDef, args: list[Value], kwargs: dict[str, Value],
                  expr: nodes.NodeNG, frame: Frame, unknown_rest: bool) -> Value:
        if self.resolver.is_module_class(cls):
            return Module("user", "", cls=cls, ctor_args=None if unknown_rest else (args, kwargs))
        if self.resolver.is_plain_class(cls):
            # Dynamo traces the constructor: run `__init__` here, in this graph.
            obj = Obj(cls)
            self._objects[id(obj)] = obj
            if not self.init_mode:
                self._local_objects.add(id(obj))
            init = find_method(self.resolver, cls, "__init__")
            if init is not None:
                function, owner = init
                ran = self.call_function(Function(function, bound=obj, cls=owner), args, kwargs, expr,
                                         frame, unknown_rest=unknown_rest)
                if ran is UNKNOWN:
                    return UNKNOWN  # not inlined (recursion, depth): its attributes are not known
            return obj
        return UNKNOWN

    def call_module(self, module: Module, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame, unknown_rest: bool = False) -> Value:
        if module.kind == "leaf":
            node = self.graph.call_module(module.path or module.qname, self._args(args),
                                          self._kwargs(kwargs), meta=self._meta(expr, frame))
            if module.qname in tables.RNN_MODULES:
                self.mark(node, "rnn", expr, frame)
            # Tuples (RNN, attention) unpack into getitem nodes, as in fx.
            return Tensor(node, needs_grad=module.qname not in tables.PARAMETER_FREE_LAYERS or _grad(*args))
        if module.kind == "container":
            if isinstance(module.items, list) and module.qname == "torch.nn.Sequential":
                value = args[0] if args else UNKNOWN
                for item in module.items:
                    value = self.call(item, [value], {}, expr, frame)
                return value
            return UNKNOWN
        if module.cls is not None and self.resolver.class_is_opaque(module.cls):
            self.graph.call_module(module.path or module.cls.name, self._args(args), self._kwargs(kwargs),
                                   meta=self._meta(expr, frame))
            return UNKNOWN
        forward = find_method(self.resolver, module.cls, "forward") if module.cls else None
        if forward is None:
            base = _torch_base(self.resolver, module.cls) if module.cls else ""
            if base:
                return self.call_module(replace(module, kind="leaf", qname=base), args, kwargs, expr, frame)
            return UNKNOWN
        function, owner = forward
        return self.call_function(Function(function, bound=module, cls=owner), args, kwargs, expr, frame,
                                  unknown_rest=unknown_rest)

    def _container_item(self, container: Module, key: Any) -> Value:
        items = container.items
        try:
            if isinstance(items, dict):
                return items.get(key, UNKNOWN)
            if isinstance(items, list):
                picked = items[key]
                if isinstance(picked, list):
                    return replace(container, items=picked, path=container.path)
                return picked
        except (TypeError, IndexError):
            pass
        return UNKNOWN

    # ------------------------------------------------------ methods of values

    def call_method(self, method: BoundMethod, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        receiver, name = method.receiver, method.name
        if isinstance(receiver, Tensor):
            return self.tensor_method(receiver, name, args, kwargs, expr, frame)
        if isinstance(receiver, Module):
            return self._module_method(receiver, name, args, kwargs, expr, frame)
        if isinstance(receiver, NdArray):
            if name == "tolist":
                node = self.graph.python_call("numpy.ndarray.tolist", meta=self._meta(expr, frame))
                self.mark(node, "tolist", expr, frame)
                return Seq(None, elem=Static(), is_list=True)
            return NdArray()
        if isinstance(receiver, Instance):
            if receiver.qname == "logging.Logger" and name in tables.LOGGER_METHODS:
                call = self.graph.python_call(f"logging.Logger.{name}", self._args(args),
                                              self._kwargs(kwargs), meta=self._meta(expr, frame))
                self.mark(call, "logger", expr, frame, qname=f"logging.Logger.{name}")
            if receiver.qname == "torch.Generator" and name == "manual_seed":
                return receiver  # it returns the generator
            return UNKNOWN
        if isinstance(receiver, Seq) and name == "sort" and isinstance(kwargs.get("key"), Function):
            self.call(kwargs["key"], [receiver.element()], {}, expr, frame)  # the key runs on each item
        if isinstance(receiver, Seq) and receiver.items is not None:
            if name in ("append", "extend", "insert") and receiver.is_list:
                if name == "append" and args:
                    receiver.items.append(args[0])
                elif name == "extend" and args and isinstance(args[0], Seq) and args[0].items is not None:
                    receiver.items.extend(args[0].items)
                else:
                    receiver.elem, receiver.items = receiver.element(), None
                if receiver.items is not None and len(receiver.items) > self.options.max_unroll:
                    receiver.elem, receiver.items = receiver.element(), None
                return Static(None)
            if name in ("index", "count"):
                return Static()
            if name in ("pop",):
                return receiver.element()
        if isinstance(receiver, Seq):
            if name in ("append", "extend", "insert"):
                return Static(None)
            return UNKNOWN
        if isinstance(receiver, Dict):
            return self._dict_method(receiver, name, args, kwargs)
        if isinstance(receiver, Static):
            if receiver.known and name in tables.FOLDED_STR_METHODS and not kwargs and all(
                    isinstance(a, Static) and a.known for a in args) and isinstance(receiver.value, str):
                result = _fold(getattr(receiver.value, name), *(a.value for a in args))
                if isinstance(result, (str, bool, int, tuple)):
                    return derived(result, receiver, *args)
            return Static()
        return UNKNOWN

    def _dict_method(self, receiver: Dict, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if name == "get":
            key = args[0] if args else UNKNOWN
            if isinstance(key, Static) and key.known:
                try:
                    if key.value in receiver.items:
                        return receiver.items[key.value]
                except TypeError:
                    return UNKNOWN
                if receiver.complete:
                    return args[1] if len(args) > 1 else Static(None)
            return UNKNOWN
        if name == "update" and args and isinstance(args[0], Dict):
            receiver.items.update(args[0].items)
            receiver.complete &= args[0].complete
            return Static(None)
        if name in ("keys",):
            return Seq([Static(k) for k in receiver.items]) if receiver.complete else Seq(None, elem=Static())
        if name in ("values",):
            return Seq(list(receiver.items.values())) if receiver.complete else Seq(None)
        if name == "items":
            if receiver.complete:
                return Seq([Seq([Static(k), v]) for k, v in receiver.items.items()])
            return Seq(None)
        if name in ("pop", "setdefault"):
            receiver.complete = False
        return UNKNOWN

    def _module_method(self, module: Module, name: str, args: list[Value], kwargs: dict[str, Value],
                       expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "__call__":
            return self.call_module(module, args, kwargs, expr, frame)
        if name == "forward" and module.qname in tables.LAYER_FUNCTIONS:
            # super().forward(x) in a subclass of a torch layer: fx traces the layer's forward.
            function, params = tables.LAYER_FUNCTIONS[module.qname]
            weights = tuple(self._as_arg(self._get_attr(_join_path(module.path, p), expr, frame)) for p in params)
            node = self.graph.call_function(function, (*self._args(args), *weights), meta=self._meta(expr, frame))
            return Tensor(node)
        if name == "forward":
            return self.call_module(module, args, kwargs, expr, frame)
        if module.kind == "leaf" and module.qname in tables.RNN_MODULES:
            # Any use of an RNN module in the graph (`self.lstm.flatten_parameters()`) wraps it.
            call = self.graph.python_call(f"{module.qname}.{name}", self._args(args), self._kwargs(kwargs),
                                          meta=self._meta(expr, frame))
            self.mark(call, "rnn", expr, frame)
            return UNKNOWN
        if name in ("register_buffer", "register_parameter", "add_module") and args:
            key = args[0]
            if isinstance(key, Static) and isinstance(key.value, str) and len(args) > 1:
                value = args[1]
                if name != "add_module" and not isinstance(value, Tensor):
                    value = Tensor(None) if not (isinstance(value, Static) and value.value is None) else value
                self.set_attribute(module, key.value, value)
            return Static(None)
        if module.kind == "container" and name in ("values", "keys", "items", "children", "modules"):
            items = module.items
            if isinstance(items, dict):
                if name == "keys":
                    return Seq([Static(k) for k in items])
                if name == "items":
                    return Seq([Seq([Static(k), v]) for k, v in items.items()])
                return Seq(list(items.values()))
            if isinstance(items, list):
                return Seq(list(items))
        if name in ("parameters", "buffers"):
            return Seq(None, elem=Tensor(None))
        if name in ("named_parameters", "named_buffers"):
            return Seq(None, elem=Seq([Static(), Tensor(None)]))
        return UNKNOWN

    def tensor_method(self, tensor: Tensor, name: str, args: list[Value], kwargs: dict[str, Value],
                      expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in tables.TENSOR_STATIC_METHODS:
            return Static(node=self.graph.call_method(name, (self._as_arg(tensor), *self._args(args)),
                                                      self._kwargs(kwargs), meta=self._meta(expr, frame)))
        node = self.graph.call_method(name, (self._as_arg(tensor), *self._args(args)), self._kwargs(kwargs),
                                      meta=self._meta(expr, frame))
        if name == "item":
            self.mark(node, "item", expr, frame)
            return self._python_scalar(node)
        if name == "tolist":
            self.mark(node, "tolist", expr, frame)
            return Seq(None, elem=Static(), is_list=True)
        if name in tables.SIZE_METHODS and self._reduced_in_graph(args[:1] if name == "new_full" else args):
            self.mark(node, "item", expr, frame, gb_ids=("GB0033",))  # x.new_zeros(n.sum())
        if name in tables.TENSOR_DYNAMIC_SHAPE_METHODS or (
                name == "repeat_interleave" and args and is_definite_tensor(args[0])):
            self.mark(node, "dynamic_shape", expr, frame)
        elif name == "backward":
            self.mark(node, "autograd", expr, frame)
            return Static(None)
        elif name == "requires_grad_" and not tensor.needs_grad:
            # On a tensor computed from parameters it changes nothing; dynamo breaks where
            # it makes a tensor require grad (GB0125, GB8985).
            self.mark(node, "requires_grad", expr, frame)
        elif name in tables.TENSOR_NON_TENSOR_METHODS:
            return UNKNOWN
        is_bool = name in tables.TENSOR_BOOL_METHODS or (name in tables.TENSOR_SAME_DTYPE_METHODS and tensor.is_bool)
        needs_grad = name not in ("detach", "detach_") and not is_bool and _grad(tensor, *args)
        return Tensor(node, is_bool=is_bool, needs_grad=needs_grad)

    def _python_scalar(self, node: Node) -> Value:
        """`.item()`: a Python number after the break, a data-dependent scalar when captured."""
        if self.options.capture_scalar_outputs or self.options.fullgraph:
            return Tensor(node, scalar=True)
        return Static()

    # --------------------------------------------------------- external calls

    def call_external(self, qname: str, args: list[Value], kwargs: dict[str, Value],
                      expr: nodes.NodeNG, frame: Frame) -> Value:
        if "." not in qname:
            return self.call_builtin(qname, args, kwargs, expr, frame)
        special = tables.EXTERNAL_CONSTRUCTS.get(qname)
        if special is None and qname.startswith(tables.SKIPPED_PREFIXES) and qname not in tables.TRACED_FUNCTIONS:
            special = "skipped"
        if special is not None:
            return self._external_construct(special, qname, args, kwargs, expr, frame)
        if qname in tables.ENVIRONMENT_LOOKUPS:
            fallback = args[1] if len(args) > 1 else kwargs.get("default", Static(None))
            if isinstance(fallback, Static) and fallback.known:
                return Static(fallback.value, assumed=True)  # the variable is usually unset
            return Static()
        if qname in tables.STATIC_FUNCTIONS:
            return Static(tables.STATIC_FUNCTIONS[qname])
        if qname in tables.LOGGER_FACTORIES:
            return Instance("logging.Logger")
        if qname in tables.UNSUPPORTED_CONTEXTS:
            return Instance(qname)
        if qname in tables.CALL_FIRST_ARGUMENT:
            if args and isinstance(args[0], (Function, Module)):
                return self.call(args[0], args[1:], {k: v for k, v in kwargs.items() if k != "use_reentrant"},
                                 expr, frame)
            return UNKNOWN
        if qname.startswith("torch."):
            return self._torch_call(qname, args, kwargs, expr, frame)
        if qname in tables.TRACED_RANDOM_FUNCTIONS:
            return Tensor(None, python_random=True)
        if qname in tables.NUMPY_ARRAY_FUNCTIONS and not any(isinstance(a, Tensor) for a in args):
            return NdArray()
        if qname.startswith("numpy.random.") and qname != "numpy.random.seed":
            return self._external_construct("numpy_random", qname, args, kwargs, expr, frame)
        if qname.startswith("math."):
            if any(is_definite_tensor(a) for a in args):
                return self._external_construct("data_dependent", qname, args, kwargs, expr, frame)
            return Static() if all(isinstance(a, Static) for a in args) else UNKNOWN
        return self._opaque_call(qname, args, kwargs, expr, frame)

    def _external_construct(self, kind: str, qname: str, args: list[Value], kwargs: dict[str, Value],
                            expr: nodes.NodeNG, frame: Frame) -> Value:
        if qname == "torch.nn.functional.ctc_loss":
            lengths = [*args[2:4], kwargs.get("input_lengths"), kwargs.get("target_lengths")]
            if not any(isinstance(v, Tensor) for v in lengths):
                return self._torch_call(qname, args, kwargs, expr, frame)
        if kind in ("data_dependent", "item") and not any(is_definite_tensor(a) for a in args[:1]):
            return Static(None)
        if kind == "deepcopy":
            if not args or not isinstance(args[0], (Module, Tensor)) or (
                    isinstance(args[0], Tensor) and args[0].weak):
                return args[0] if args and isinstance(args[0], (Static, Dict, Seq)) else UNKNOWN
        if kind == "dynamic_shape" and qname == "torch.where" and len(args) + len(kwargs) != 1:
            return self._torch_call(qname, args, kwargs, expr, frame)
        if kind == "dynamic_shape" and qname == "torch.repeat_interleave" and not (
                (len(args) == 1 and "repeats" not in kwargs) or (len(args) > 1 and is_definite_tensor(args[1]))
                or is_definite_tensor(kwargs.get("repeats", UNKNOWN))):
            return self._torch_call(qname, args, kwargs, expr, frame)
        produces_tensor = kind in ("dynamic_shape", "autograd", "requires_grad", "deepcopy")
        create = self.graph.call_function if produces_tensor else self.graph.python_call
        node = create(fx_target(qname), self._args(args), self._kwargs(kwargs), meta=self._meta(expr, frame))
        self.mark(node, kind, expr, frame, qname=qname)
        if kind == "numpy_random":
            return UNKNOWN  # a numpy array dynamo traces as a tensor
        if kind == "generator":
            return Instance(qname)
        if kind in ("logger", "data_dependent", "item"):
            return Static(None) if kind == "logger" else Static()
        if kind in ("dynamic_shape", "autograd", "requires_grad"):
            return Tensor(node)
        if kind == "deepcopy":
            return args[0] if isinstance(args[0], Module) else Tensor(node)
        return Static()

    def _torch_call(self, qname: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        last = qname.rsplit(".", 1)[-1]
        if is_torch_layer(qname):
            return Module("leaf", "", qname=qname, ctor_args=(args, kwargs))
        if qname in CONTAINERS or qname == "torch.nn.Module":
            return self._container(qname, args)
        if qname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
            return Tensor(None)
        if last[:1].isupper() and qname not in tables.TORCH_TENSOR_CLASSES:
            return Static() if qname in tables.TORCH_STATIC_CLASSES else UNKNOWN
        if last.startswith(tables.TORCH_QUERY_PREFIXES):
            return Static()  # torch.is_autocast_enabled(), torch.get_autocast_dtype(), ...
        if qname in tables.TORCH_NON_TENSOR_FUNCTIONS:
            return UNKNOWN  # torch.no_grad(), torch.jit.annotate(...): nothing fx records
        node = self.graph.call_function(fx_target(qname), self._args(args), self._kwargs(kwargs),
                                        meta=self._meta(expr, frame))
        generator = kwargs.get("generator")
        if isinstance(generator, Instance) and generator.qname == "torch.Generator":
            self.mark(node, "generator", expr, frame)  # made in this function: GB0055
        if qname in tables.SIZE_FUNCTIONS and self._reduced_in_graph(args[:1] if last == "full" else args):
            self.mark(node, "item", expr, frame, gb_ids=("GB0033",))  # torch.arange(lengths.max())
        if _sets_requires_grad(kwargs.get("requires_grad")):
            self.mark(node, "requires_grad", expr, frame, gb_ids=("GB0225",))  # torch.zeros(..., requires_grad=True)
        is_bool = last in tables.TENSOR_BOOL_METHODS
        return Tensor(node, is_bool=is_bool, needs_grad=not is_bool and _grad(*args, *kwargs.values()))

    def _container(self, qname: str, args: list[Value]) -> Value:
        items: Any = None
        if qname == "torch.nn.ModuleDict":
            source = args[0] if args else Dict({})
            if isinstance(source, Dict) and source.complete:
                items = dict(source.items)
        elif not args:
            items = []
        elif qname == "torch.nn.Sequential" and len(args) == 1 and isinstance(args[0], Dict) and args[0].complete:
            items = dict(args[0].items)
        elif qname == "torch.nn.Sequential" and not isinstance(args[0], Seq):
            items = list(args)
        elif isinstance(args[0], Seq) and args[0].items is not None:
            items = list(args[0].items)
        if isinstance(items, dict) and qname == "torch.nn.Sequential":
            items = [_with_path(v, str(k)) if isinstance(v, Module) else v for k, v in items.items()]
            return Module("container", "", qname=qname, items=items)
        if isinstance(items, list):
            items = [_with_path(v, str(i)) if isinstance(v, Module) else v for i, v in enumerate(items)]
        return Module("container", "", qname=qname, items=items)

    def call_builtin(self, name: str, args: list[Value], kwargs: dict[str, Value],
                     expr: nodes.NodeNG, frame: Frame) -> Value:
        first = args[0] if args else UNKNOWN
        if name in tables.PURE_BUILTINS and args and all(
                isinstance(v, Static) and v.known and v.node is None for v in [*args, *kwargs.values()]):
            # str(3), sorted((6, 1), reverse=True), max(2, 4): compute as Python would.
            result = _fold(getattr(builtins, name), *(a.value for a in args),
                           **{k: v.value for k, v in kwargs.items()})
            if result is NOTHING:
                return Static()
            if isinstance(result, list):
                return Seq([derived(v, *args) for v in result], is_list=True)
            return derived(result, *args)
        if name in tables.UNTRACEABLE_BUILTINS:
            node = self.graph.python_call(name, self._args(args), self._kwargs(kwargs),
                                          meta=self._meta(expr, frame))
            self.mark(node, "builtin", expr, frame)
            return UNKNOWN
        if name in tables.TENSOR_TEXT_BUILTINS and is_definite_tensor(first):
            node = self.graph.python_call(name, (self._as_arg(first),),
                                          meta=self._meta(expr, frame))
            self.mark(node, "builtin", expr, frame)
            return Static()
        if name in ("int", "float", "bool", "complex"):
            if is_definite_tensor(first) and not first.scalar:
                node = self.graph.call_function(name, (self._as_arg(first),),
                                                meta=self._meta(expr, frame))
                self.mark(node, "item", expr, frame)
                return self._python_scalar(node)
            if isinstance(first, Tensor):
                return first if first.scalar else UNKNOWN
            if isinstance(first, Static) and first.known:
                try:
                    return Static(__builtins__[name](first.value) if isinstance(__builtins__, dict)
                                  else getattr(__builtins__, name)(first.value))
                except Exception:  # noqa: BLE001 - any Python value
                    return Static()
            return Static() if isinstance(first, Static) or not args else UNKNOWN
        if name in ("sorted", "min", "max") and isinstance(kwargs.get("key"), Function) and args:
            self.call(kwargs["key"], [self.element(first, None, frame)], {}, expr, frame)  # runs on each item
        if name == "sorted":
            if is_definite_tensor(first):
                node = self.graph.call_function("sorted", self._args(args), meta=self._meta(expr, frame))
                self.mark(node, "sorted", expr, frame)
                return Seq(None, elem=Tensor(node), is_list=True)
            items = self.iterate(first, None, frame) if args and set(kwargs) <= {"reverse"} else None
            reverse = kwargs.get("reverse", Static(False))
            if items is not None and isinstance(reverse, Static) and reverse.known and all(
                    isinstance(i, Static) and i.known for i in items):
                try:
                    ordered = sorted((i.value for i in items), reverse=bool(reverse.value))
                    return Seq([derived(v, first, *items) for v in ordered], is_list=True)
                except TypeError:
                    pass
            return Seq(None, elem=self.element(first, None, frame), is_list=True) if args else UNKNOWN
        if name == "len":
            if isinstance(first, Seq) and first.items is not None:
                return Static(len(first.items))
            if isinstance(first, Module) and isinstance(first.items, (list, dict)):
                return Static(len(first.items))
            return Static()
        if name == "range":
            if args and all(isinstance(a, Static) and isinstance(a.value, int) for a in args):
                bounds = range(*(a.value for a in args))
                if len(bounds) <= self.options.max_unroll:
                    return Seq([derived(i, *args) for i in bounds])
            return Seq(None, elem=Static())
        if name == "next" and args:
            return self.element(first, None, frame)
        if name in ("enumerate", "zip", "reversed", "list", "tuple", "iter"):
            return self._sequence_builtin(name, args, frame)
        if name == "dict":
            result = Dict(dict(kwargs))
            if args:
                result.complete = False
            return result
        if name == "super":
            receiver = frame.env.get(frame.function.args.args[0].name) \
                if isinstance(frame.function, nodes.FunctionDef) and frame.function.args.args else None
            return Super(receiver or UNKNOWN, frame.cls)
        if name == "isinstance":
            if len(args) == 2 and is_definite_tensor(args[0]) and isinstance(args[1], External) \
                    and args[1].qname in tables.TORCH_TENSOR_CLASSES:
                return Static(True)
            return Static()
        if name == "getattr" and len(args) >= 2 and isinstance(args[1], Static) and isinstance(args[1].value, str):
            value = self.attribute(first, args[1].value, expr, frame)
            if value is UNKNOWN and len(args) == 3:
                return args[2]
            return value
        if name in ("min", "max", "abs", "sum", "round", "pow", "divmod"):
            values = args[0].items if len(args) == 1 and isinstance(args[0], Seq) and args[0].items else args
            if any(isinstance(v, Tensor) for v in values):
                node = self.graph.call_function(name, self._args(args), meta=self._meta(expr, frame))
                return Tensor(node, weak=_only_weak(*values))
            return Static() if all(isinstance(v, Static) for v in values) else UNKNOWN
        if name in tables.STATIC_BUILTINS:
            return Static()
        return UNKNOWN

    def _sequence_builtin(self, name: str, args: list[Value], frame: Frame) -> Value:
        if not args:
            return Seq([], is_list=name == "list")
        if name == "zip":
            seqs = [self.iterate(a, None, frame) for a in args]
            if all(s is not None for s in seqs):
                return Seq([Seq(list(group)) for group in zip(*seqs)])
            return Seq(None, elem=Seq([self.element(a, None, frame) for a in args]))
        items = self.iterate(args[0], None, frame)
        if name == "enumerate":
            if items is not None:
                return Seq([Seq([Static(i), item]) for i, item in enumerate(items)])
            return Seq(None, elem=Seq([Static(), self.element(args[0], None, frame)]))
        if items is not None:
            return Seq(items[::-1] if name == "reversed" else items, is_list=name == "list")
        return Seq(None, elem=self.element(args[0], None, frame), is_list=name == "list")

    def enter_context(self, manager: Value, expr: nodes.NodeNG, frame: Frame) -> None:
        """Context managers: the known-unsupported ones break (GB0142)."""
        if isinstance(manager, Instance) and manager.qname in tables.UNSUPPORTED_CONTEXTS:
            node = self.graph.python_call(manager.qname, (), meta=self._meta(expr, frame))
            self.mark(node, "context", expr, frame)

    # ----------------------------------------------------------------- tagging

    def mark(self, node: Node, kind: str, expr: nodes.NodeNG, frame: Frame, **extra: Any) -> None:
        """Tag a node with the construct dynamo cannot trace; annotate.py decides the rule."""
        if self.init_mode or _conditional_at_report_site(frame, self.resolver.main):
            return
        meta = {"construct": kind, "what": _source(expr), "frame_skip": _skipped_function(frame)}
        node.meta.update(meta, **extra)
        self._segment_start = len(self.graph.nodes)  # what is computed before a break is an input after it
        if kind != "local_object":
            self._mark_unresumable(node, frame)

    def _mark_unresumable(self, cause: Node, frame: Frame) -> None:
        """A break inside a method of an object this graph made: dynamo cannot rebuild the
        object to resume the root function, and gives up on all of it (GB0092, measured; a
        break in any other helper, or at the root, resumes)."""
        stack = frame.stack()
        if not any(id(_receiver(current)) in self._local_objects for current in stack[1:]):
            return
        call = stack[1].call_site
        if call is None:
            return
        node = self.graph.python_call("resume", meta=self._meta(call, stack[0]))
        self.mark(node, "local_object", call, stack[0], cause=cause,
                  frame_skip=(stack[0].name, "that call"))

    def _meta(self, expr: nodes.NodeNG | None, frame: Frame | None) -> dict:
        if expr is None:
            return {}
        module = frame.module if frame is not None else self.resolver.main
        function = frame.name if frame is not None else ""
        span = SourceSpan(module.path, expr.lineno or 0, expr.col_offset or 0,
                          expr.end_lineno or expr.lineno or 0, expr.end_col_offset or 0, function)
        stack = []
        current = frame
        while current is not None and current.caller is not None:
            site = current.call_site
            stack.append(SourceSpan(current.caller.module.path, site.lineno or 0, site.col_offset or 0,
                                    site.end_lineno or 0, site.end_col_offset or 0, current.caller.name))
            current = current.caller
        return {"span": span, "stack": tuple(reversed(stack))}

    def _as_arg(self, value: Value) -> Any:
        if isinstance(value, Tensor):
            return value.node if value.node is not None else "<tensor>"
        if isinstance(value, Static):
            if value.node is not None:
                return value.node
            return value.value if value.known and _printable(value.value) else "<static>"
        if isinstance(value, Seq):
            return tuple(self._as_arg(v) for v in value.items) if value.items is not None else "<seq>"
        if isinstance(value, Module):
            return f"<module {value.path}>"
        if isinstance(value, External):
            return value.qname  # torch.long, torch.float32
        return "<?>"

    def _args(self, args: list[Value]) -> tuple:
        return tuple(self._as_arg(a) for a in args)

    def _kwargs(self, kwargs: dict[str, Value]) -> dict:
        return {k: self._as_arg(v) for k, v in kwargs.items()}


# ---------------------------------------------------------------------------
# helpers


MAX_FOLDED_SIZE = 10_000  # items of a folded sequence, bits of a folded int


def _fold(function: Any, *values: Any, **keywords: Any) -> Any:
    """Compute a static value as Python would, or NOTHING when that fails or could be huge
    (`2 ** 10 ** 10` must not hang the linter, nor `"a" * 10 ** 9` fill its memory)."""
    if not _small_result(function, values):
        return NOTHING
    try:
        result = function(*values, **keywords)
    except Exception:  # noqa: BLE001 - any Python value
        return NOTHING
    if isinstance(result, (str, bytes, tuple, list)) and len(result) > MAX_FOLDED_SIZE:
        return NOTHING
    return result


def _small_result(function: Any, values: tuple) -> bool:
    """Can the result of `function(*values)` be bounded before computing it?"""
    if function in (operator.pow, builtins.pow) and len(values) >= 2:
        base, exponent = values[0], values[1]
        if isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1:
            return exponent <= MAX_FOLDED_SIZE // max(base.bit_length(), 1)
        return not (isinstance(exponent, int) and exponent > MAX_FOLDED_SIZE and isinstance(base, float))
    if function is operator.lshift and len(values) == 2:
        return isinstance(values[1], int) and values[1] <= MAX_FOLDED_SIZE
    if function is operator.mul and len(values) == 2:
        for sequence, count in (values, values[::-1]):
            if isinstance(sequence, (str, bytes, tuple, list)) and isinstance(count, int):
                return len(sequence) * count <= MAX_FOLDED_SIZE
        if all(isinstance(v, int) for v in values):
            return sum(v.bit_length() for v in values) <= MAX_FOLDED_SIZE
    return True


def _source(expr: nodes.NodeNG) -> str:
    try:
        text = expr.as_string()
    except Exception:  # noqa: BLE001 - as_string on odd nodes
        return type(expr).__name__
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _printable(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, slice)) and (
        not isinstance(value, str) or len(value) < 80)


def _receiver(frame: Frame) -> Value | None:
    """The object a method's frame runs on (its first parameter), if it is a method."""
    function = frame.function
    if isinstance(function, nodes.FunctionDef) and function.args.args:
        return frame.env.get(function.args.args[0].name)
    return None


def _skipped_function(frame: Frame) -> tuple[str, str] | None:
    """The outermost function dynamo would give up on, and why: a break sits in its loop
    body, `with` block or property (directly or through the calls it inlined)."""
    for current in frame.stack():
        if current.loop_depth:
            return current.name, "a loop"
        if current.with_depth:
            return current.name, "a `with` block"
        if current.is_property:
            return current.name, "a property"
    return None


def _signature(value: Any, depth: int = 0) -> Any:
    """A hashable description of abstract values, for caching by argument kinds."""
    if depth > 4:
        return "..."
    if isinstance(value, Tensor):
        return ("T", value.weak, value.is_bool, value.scalar)
    if isinstance(value, Static):
        try:
            hash(value.value)
        except TypeError:
            return ("S", "?")
        return ("S", value.value if value.known else "?")
    if isinstance(value, Module):
        return ("M", value.cls or value.qname, id(value.attrs) if value.attrs is not None else None)
    if isinstance(value, Seq):
        if value.items is None or len(value.items) > 16:
            return ("Q", _signature(value.element(), depth + 1))
        return ("Q", tuple(_signature(v, depth + 1) for v in value.items))
    if isinstance(value, Dict):
        return ("D", value.complete, tuple(sorted(
            ((repr(k), _signature(v, depth + 1)) for k, v in value.items.items()))))
    if isinstance(value, (tuple, list)):
        return tuple(_signature(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _signature(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, (Function, ClassRef)):
        return ("F", value.node)
    if value is None:
        return None
    return type(value).__name__


def _rebind(value: Value, node: Node) -> Value:
    """A summary's value with its tensors now produced by `node`."""
    if isinstance(value, Tensor):
        return Tensor(node, weak=value.weak, is_bool=value.is_bool, scalar=value.scalar)
    if isinstance(value, Seq):
        if value.items is None:
            return Seq(None, elem=_rebind(value.elem, node), is_list=value.is_list)
        return Seq([_rebind(v, node) for v in value.items], is_list=value.is_list)
    if isinstance(value, Dict):
        return Dict({k: _rebind(v, node) for k, v in value.items.items()}, complete=value.complete)
    return value


def _builds_attributes(function: nodes.FunctionDef | nodes.Lambda, frame: Frame) -> bool:
    """In `__init__`, follow only what builds the module's attributes: the `__init__` chain
    and helpers of the same file (`self._make_layer(...)`); library setup such as
    `self.post_init()` only costs time."""
    return getattr(function, "name", "") == "__init__" or function.root() is frame.stack()[0].function.root()


def _conditional_at_report_site(frame: Frame, main: SourceModule) -> bool:
    """Would the line we report at run without this construct on some calls?

    A diagnostic says "when this line runs, dynamo breaks here". The line is the construct's
    own in the linted file, or the call site in it that leads to another file. It does not
    hold when the construct sits under a short-circuit or ternary of that line whose outcome
    is not known, or under any unknown branch inside the other files' functions.
    """
    stack = frame.stack()
    report = max((i for i, f in enumerate(stack) if f.module is main), default=0)
    if stack[report].short_circuit:
        return True
    return any(f.conditional or f.short_circuit for f in stack[report + 1:])


class _short_circuit:
    """Context: the code evaluated inside runs only on some calls."""

    def __init__(self, frame: Frame, varies: bool):
        self.frame, self.step = frame, 0 if varies else 1

    def __enter__(self) -> None:
        self.frame.short_circuit += self.step

    def __exit__(self, *exc: object) -> None:
        self.frame.short_circuit -= self.step


def _assume(value: Value) -> Value:
    """A default argument's value, marked as only assumed."""
    if isinstance(value, Static) and value.known:
        return Static(value.value, assumed=True)
    if isinstance(value, Seq) and value.items is not None:
        return Seq([_assume(v) for v in value.items], is_list=value.is_list)
    return value


def _holds_object(value: Any, depth: int = 0) -> bool:
    """Is a project object (`Obj`) among these values, a few containers deep?"""
    if isinstance(value, Obj):
        return True
    if depth > 3:
        return False
    if isinstance(value, (tuple, list)):
        return any(_holds_object(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_holds_object(v, depth + 1) for v in value.values())
    if isinstance(value, Seq) and value.items is not None:
        return any(_holds_object(v, depth + 1) for v in value.items)
    if isinstance(value, Dict):
        return any(_holds_object(v, depth + 1) for v in value.items.values())
    return False


def _sets_requires_grad(flag: Value | None) -> bool:
    """`requires_grad=` of a tensor factory that is true on ordinary calls: a constant, or
    `self.training` (true while training)."""
    if not isinstance(flag, Static) or flag.assumed:
        return False
    return flag.varies or (flag.known and flag.value is True)


def _assumed_truth(value: Value) -> bool | None:
    """The truth of a value known from constructor defaults, if it is one."""
    if isinstance(value, Static) and value.assumed and value.known:
        try:
            return bool(value.value)
        except Exception:  # noqa: BLE001 - any Python value
            return None
    return None


def _varies(value: Value) -> bool:
    """Values that differ between ordinary runs do not make the code under them conditional."""
    return isinstance(value, Static) and value.varies or is_definite_tensor(value)


def fx_target(qname: str) -> str:
    """The call_function target torch.fx records for a function the user spells `qname`."""
    return FX_NAMES.get(qname, qname)


def _join_path(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _with_path(module: Module, path: str) -> Module:
    if not isinstance(module, Module):
        return module
    items = module.items
    if isinstance(items, list):
        items = [_with_path(v, _join_path(path, str(i))) if isinstance(v, Module) else v
                 for i, v in enumerate(items)]
    elif isinstance(items, dict):
        items = {k: _with_path(v, _join_path(path, str(k))) if isinstance(v, Module) else v
                 for k, v in items.items()}
    return replace(module, path=path, items=items, attrs=None)


def _torch_base(resolver: Resolver, cls: nodes.ClassDef) -> str:
    """The torch.nn layer a project class derives from (HookedLinear(nn.Linear)), if any."""
    for owner in resolver.mro(cls):
        for binding in resolver.base_classes(owner):
            if binding.kind == "external" and is_torch_layer(binding.qname):
                return binding.qname
    return ""


def _is_classmethod(function: nodes.FunctionDef) -> bool:
    return bool(function.decorators) and any(
        isinstance(d, nodes.Name) and d.name == "classmethod" for d in function.decorators.nodes)


def _grad(*values: Value) -> bool:
    """Does autograd already track a result computed from these values?"""
    return any(isinstance(v, Tensor) and v.needs_grad for v in values)


def _only_weak(*values: Value) -> bool:
    """Python operators and builtins also work on ints: on assumed tensors they give assumed
    tensors; one definite tensor operand makes the result definite."""
    return not any(is_definite_tensor(v) for v in values)


def _all_scalar(*values: Value) -> bool:
    return all(v.scalar for v in values if isinstance(v, Tensor))


def _has_bool_mask(key: Value) -> bool:
    """A boolean tensor index. Comparisons of assumed tensors count too: nobody indexes a
    tensor with the Python bool they would give for an int."""
    if isinstance(key, Tensor):
        return key.is_bool
    if isinstance(key, Seq) and key.items is not None:
        return any(isinstance(k, Tensor) and k.is_bool for k in key.items)
    return False


def _identity(left: Value, right: Value) -> bool | None:
    """`left is right` when the answer is known statically."""
    for a, b in ((left, right), (right, left)):
        if isinstance(b, Static) and b.known and b.value is None:
            if isinstance(a, Static) and a.known:
                return a.value is None
            if isinstance(a, (Module, Function, Seq, Dict, ClassRef)) or is_definite_tensor(a):
                return False
            return None
    if isinstance(left, Static) and isinstance(right, Static) and left.known and right.known:
        singletons = (bool, type(None), EnumMember)
        if isinstance(left.value, singletons) and isinstance(right.value, singletons):
            return left.value == right.value and type(left.value) is type(right.value)
    return None


def _and(a: Value, b: Value) -> Value:
    if isinstance(a, Static) and a.value is True:
        return b
    if isinstance(a, Static) and isinstance(b, Static):
        if a.value is False or b.value is False:
            return Static(False)
        return Static()
    return UNKNOWN


def _narrowing(test: nodes.NodeNG, frame: Frame) -> tuple[str, Value] | None:
    """`if x is not None:` makes an optional tensor `x` definite inside the branch."""
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and isinstance(test.left, nodes.Name):
        op, right = test.ops[0]
        if op == "is not" and isinstance(right, nodes.Const) and right.value is None:
            value = frame.lookup(test.left.name)
            if isinstance(value, Tensor) and value.weak and value.node is not None \
                    and value.node.meta.get("annotated_tensor"):
                return test.left.name, Tensor(value.node)
    return None


def _merge_envs(env_a: dict[str, Value], flow_a: str | None, env_b: dict[str, Value],
                flow_b: str | None) -> dict[str, Value]:
    """Variables after two paths meet; a path that ended (return, break) does not flow on."""
    if flow_a is not FALLS_THROUGH and flow_b is FALLS_THROUGH:
        return env_b
    if flow_b is not FALLS_THROUGH and flow_a is FALLS_THROUGH:
        return env_a
    merged = dict(env_a)
    for name, value in env_b.items():
        merged[name] = join(merged[name], value) if name in merged else value
    return merged
