"""Stage 2: abstract interpretation of a compile root into a static FX graph.

The interpreter walks the root's statements the way dynamo walks its bytecode: tensor
operations become graph nodes, static Python values are computed (or known to be static and
left unknown), calls into the project are inlined, loops over known containers are unrolled.
This class runs statements (control flow, merging of paths, budgets); `inline.py` inlines a
call, expressions are evaluated by `expressions.ExpressionEvaluator`, and each kind of value
owns what it does (`values/`). A construct dynamo cannot trace raises its break where it is detected, through
`graph_break`, naming its rule; `resume.Breaks` decides what dynamo does after it.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from astroid import nodes

from .. import rules, tables
from ..breaks import BreakingCall, breaking_call
from ..config import Options
from ..discover.parse import nodes_of_class
from ..discover.projects import SourceModule
from ..discover.resolver import Binding, Resolver
from ..discover.roots import Root
from .expressions import ExpressionEvaluator, OnSomeCalls, narrowing, outcome_needs
from .heap import Heap
from .frame import Frame, next_serial
from .inline import handler_for, inline_call, mutates_arguments
from ..ir import CallStack, Condition, Graph, Node, Origin, SourceSpan, report_site
from .parameters import root_parameters, root_receiver
from .resume import Breaks, Eagerness, WhollyEagerly
from ..rules import Advice, Rule
from ..values import (
    UNKNOWN,
    ClassRef,
    Function,
    Instance,
    Module,
    Obj,
    Seq,
    Static,
    Tensor,
    UserModule,
    Value,
    assumed_truth,
    external,
    holds_object,
    join,
    join_all,
    signature_of,
)
from ..values.tensors import IfPath, joined_on_paths


class BudgetExceeded(Exception):
    """The analysis of one root ran past a limit; what was found so far stands."""


# Flow of a block: how it ends.
FALLS_THROUGH, RETURNS, BREAKS, CONTINUES = None, "return", "break", "continue"


class FileState:
    """What the interpreters of one file share: caches keyed by code, never by root."""

    def __init__(self, deadline: float, reuse_inlined: bool, max_steps: int,
                 init_attributes: Callable[[Interpreter, UserModule], dict[str, Value]]):
        self.deadline = deadline  # process time: a loaded machine must not change the answer
        self.reuse_inlined = reuse_inlined
        self.max_steps = max_steps  # and a deterministic bound, so that it rarely has to
        self.steps = 0
        self.globals: dict[tuple[str, str], Value] = {}
        self.mutated_attrs: dict[nodes.ClassDef, frozenset[str]] = {}
        self.init_attrs: dict[tuple, dict[str, Value]] = {}
        # How a module's attributes are learnt (init_interpreter.init_attributes): given by the
        # analysis, because the interpreter that runs `__init__` is a subclass of this one.
        self.init_attributes = init_attributes
        self.summaries: dict[tuple, Value] = {}
        # (package, line, col) of calls into packages whose source was not found: SFX900 notices.
        self.missing_libraries: dict[tuple[str, int, int], str] = {}
        # (line, col) -> the called name of a module we read that no statement we follow binds: SFX900 notices.
        self.unbound_names: dict[tuple[int, int], str] = {}
        # (line, col) -> the submodule whose contents are not known statically, drawn as one opaque call.
        self.opaque_modules: dict[tuple[int, int], str] = {}


class Interpreter:
    """Interprets one compile root into `graph`."""

    def __init__(self, resolver: Resolver, options: Options, state: FileState, graph: Graph,
                 heap: Heap | None = None):
        self.resolver = resolver
        self.options = options
        self.state = state
        self.graph = graph
        self.heap = heap or Heap()
        self.expressions = ExpressionEvaluator(self)
        self.eval = self.expressions.eval
        self.breaks = Breaks(self)
        self._attr_nodes: dict[str, Node] = {}
        self._constants: dict[Node, Node] = {}  # a tensor made outside the graph -> its _tensor_constant
        # A call site whose frames are one evaluation of it (`one_evaluation`), and its number.
        self.evaluating: tuple[nodes.NodeNG, int] | None = None

    @contextlib.contextmanager
    def one_evaluation(self, expr: nodes.NodeNG) -> Iterator[None]:
        """The frames the calls at `expr` make inside are one evaluation of the site (a
        Sequential's layers, run by one call); any other frame is an evaluation of its own
        (segments.py: a loop's calls at one site are calls of their own)."""
        outer, self.evaluating = self.evaluating, (expr, next_serial())
        try:
            yield
        finally:
            self.evaluating = outer

    # ------------------------------------------------------------------ roots

    def build(self, root: Root) -> Graph:
        function = root.function
        receiver = root_receiver(self, root)
        env = root_parameters(self, function, receiver, library=root.library, compiled=root.compiled)
        frame = Frame(function, self.resolver.source_of(function), env, cls=root.owner or root.cls)
        frame.resume.is_property = self.resolver.is_property(function)
        try:
            self.run_body(frame)
        finally:
            result = join_all(frame.returns) if frame.returns else Static(None)
            self.graph.output(result.as_arg(), meta=self.meta(function, frame))
        return self.graph

    # ------------------------------------------------------------- statements

    def tick(self) -> None:
        self.state.steps += 1
        if self.state.steps > self.state.max_steps:
            raise BudgetExceeded("step budget")
        if self.state.steps % 256 == 0 and time.process_time() > self.state.deadline:
            raise BudgetExceeded("time budget")
        if len(self.graph.nodes) > self.options.max_nodes:
            raise BudgetExceeded("node budget")

    def run_body(self, frame: Frame) -> None:
        body = frame.function.body
        if isinstance(frame.function, nodes.Lambda):
            frame.returns.append(self.eval(body, frame))
            frame.resume.return_breaks.append(frame.resume.path_break)
        elif self.exec_block(body, frame) is FALLS_THROUGH:
            frame.resume.return_breaks.append(frame.resume.path_break)  # the implicit `return None`
        if isinstance(frame.resume.eagerly, WhollyEagerly):  # dynamo reruns all of it eagerly
            for comprehension, inner in frame.resume.comprehensions_alone:
                self.expressions.compiled_alone(comprehension, inner)

    def exec_block(self, statements: list[nodes.NodeNG], frame: Frame) -> str | None:
        with contextlib.ExitStack() as rest:
            for statement in statements:
                flow = self.exec_statement(statement, frame)
                if flow is not FALLS_THROUGH:
                    return flow
                if frame.resume.rest_needs:  # the `if` just run returned on its other outcome
                    rest.enter_context(self.breaks.taking(frame.resume.take_rest_needs()))
        return FALLS_THROUGH

    def exec_statement(self, stmt: nodes.NodeNG, frame: Frame) -> str | None:
        self.tick()
        frame.resume.short_circuit = 0
        handler = handler_for(type(self), "exec_", type(stmt))
        if handler is not None:
            return handler(self, stmt, frame)
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
        from ..values.operators import binop

        current = self.read_target(stmt.target, frame)
        value = self.eval(stmt.value, frame)
        if stmt.op == "+=" and isinstance(current, Seq) and current.is_list:
            current.call_method(self, "extend", [value], {}, stmt, frame)  # `layers += [...]` extends in place
            result = current
        else:
            result = binop(self, stmt.op.rstrip("="), current, value, stmt, frame)
        self.assign(stmt.target, result, frame)

    def read_target(self, target: nodes.NodeNG, frame: Frame) -> Value:
        """The current value of an assignment target (`x`, `self.x`, `x[i]` in `x += 1`)."""
        if isinstance(target, nodes.AssignName):
            value = frame.lookup(target.name)
            return value if value is not None else self.global_value(frame.module, target.name)
        if isinstance(target, nodes.AssignAttr):
            return self.eval(target.expr, frame).var_getattr(self, target.attrname, target, frame)
        return self.eval(target, frame)

    def exec_Return(self, stmt: nodes.Return, frame: Frame) -> str:
        frame.returns.append(self.eval(stmt.value, frame) if stmt.value is not None else Static(None))
        frame.resume.return_breaks.append(frame.resume.path_break)
        return RETURNS

    def exec_Raise(self, stmt: nodes.Raise, frame: Frame) -> str:
        return RETURNS  # the path ends; its message is never formatted in the compiled run

    def exec_Pass(self, stmt: nodes.NodeNG, frame: Frame) -> None:
        return None

    exec_Global = exec_Nonlocal = exec_Pass

    def exec_Import(self, stmt: nodes.Import | nodes.ImportFrom, frame: Frame) -> None:
        """A function's own imports of what the tables know (torch, the standard library) bind
        its locals: transformers' import_utils.py imports torch inside each function, never at
        module level (module-level imports are the resolver's). An import of a module whose
        source is read is left to the module's names as before: resolving it would parse that
        module in every file that calls the function (diffusers' 70 KB __init__.py, measured:
        +8 MiB peak over the 200 sampled library files)."""
        if isinstance(frame.function, nodes.Module) or isinstance(stmt, nodes.ImportFrom) and stmt.level:
            return
        for imported, alias in stmt.names:
            module = stmt.modname if isinstance(stmt, nodes.ImportFrom) else imported
            if imported == "*" or self.resolver.is_project_module(module.split(".")[0]):
                continue
            name = alias or imported.split(".")[0]
            binding = self.resolver.import_binding(frame.module, stmt, name)
            frame.env[name] = self.value_of(binding, frame) if binding is not None else UNKNOWN

    exec_ImportFrom = exec_Import

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
        """Dynamo 2.13 cannot run `__build_class__` (GB8977, measured): the graph splits at the
        class statement and resumes after it."""
        node = self.graph.python_call("__build_class__", (stmt.name,), meta=self.meta(stmt, frame))
        self.graph_break(rules.CLASS_IN_COMPILED_CODE, node, stmt, frame)
        frame.env[stmt.name] = ClassRef(stmt)

    def exec_Assert(self, stmt: nodes.Assert, frame: Frame) -> None:
        # Dynamo rewrites `assert tensor_condition` into torch._assert: no break.
        self.eval(stmt.test, frame)

    def exec_If(self, stmt: nodes.If, frame: Frame) -> str | None:
        test, known, branch = self.expressions.condition(stmt.test, frame)
        narrowed = narrowing(stmt.test, frame)
        if known is not None:
            if _view_raises(test, stmt.body if known else stmt.orelse, self.options):
                known = not known
            with self.breaks.taking(outcome_needs(test, known)):
                flow = self.exec_block(stmt.body if known else stmt.orelse, frame)
            frame.resume.rest_needs = _rest_needs(test, stmt, {known: flow})
            return flow
        start = len(self.graph.nodes)
        saved = dict(frame.env)
        if narrowed:
            frame.env[narrowed[0]] = narrowed[1]
        flag = _tested_flag(stmt.test, frame)
        mark = self.heap.begin_branch()
        # `if self.training:` picks its path by the mode, not by the call: a break under it
        # happens on every call in that mode (vector-quantize-pytorch's `loss.requires_grad_()`).
        # A test known only as a default (a constructor's, or a key the root's caller leaves
        # out of its **kwargs) picks its path on the default call, as in a ternary.
        by_mode = isinstance(test, Static) and test.varies
        default_path = assumed_truth(test)
        before = frame.resume.before_paths()
        with OnSomeCalls(frame, by_mode or default_path is True, "conditional"), self.heap.flags.holding(flag, True), \
                self.breaks.taking(outcome_needs(test, True)):
            flow_then = self.exec_block(stmt.body, frame)
        env_then, changed_then = frame.env, self.heap.end_path(mark)
        frame.env = dict(saved)
        then = frame.resume.before_paths()
        frame.resume.restore(before)
        with OnSomeCalls(frame, by_mode or default_path is False, "conditional"), self.heap.flags.holding(flag, False), \
                self.breaks.taking(outcome_needs(test, False)):
            flow_else = self.exec_block(stmt.orelse, frame)
        frame.resume.join_paths(before, tuple((flow is not RETURNS, flow is FALLS_THROUGH, *left) for flow, left in
                                              ((flow_then, then), (flow_else, frame.resume.before_paths()))))
        with self.heap.flags.joined(flag):
            self.heap.join_paths(mark, changed_then, flow_then, flow_else)
        frame.env = merge_envs(env_then, flow_then, frame.env, flow_else, _paths(test, by_mode, default_path))
        self.cover(branch, start)
        frame.resume.rest_needs = _rest_needs(test, stmt, {True: flow_then, False: flow_else})
        # The rest runs only on some calls if a path the default call may take returns.
        returns_then = default_path is not False and _returns_from(stmt.body, flow_then)
        returns_else = default_path is not True and _returns_from(stmt.orelse, flow_else)
        if not by_mode and (returns_then or returns_else):
            frame.resume.after_early_return = True
        if flow_then is not FALLS_THROUGH and flow_else is not FALLS_THROUGH:
            return flow_then if flow_then == flow_else else RETURNS
        return FALLS_THROUGH

    def exec_While(self, stmt: nodes.While, frame: Frame) -> str | None:
        _, known, branch = self.expressions.condition(stmt.test, frame)
        if known is False:
            return self.exec_block(stmt.orelse, frame)
        start = len(self.graph.nodes)
        saved = dict(frame.env)
        mark = self.heap.begin_branch()
        frame.resume.loop_depth += 1
        before = frame.resume.before_paths()
        try:
            flow = self.exec_block(stmt.body, frame)
        finally:
            frame.resume.loop_depth -= 1
            frame.resume.restore(before)  # the body may not run
        if branch is None and flow in (FALLS_THROUGH, CONTINUES):
            # The test runs again after the body: a flag the body sets from a tensor
            # (`finished = seqs.max() == 0`) makes that test data-dependent.
            branch = self.expressions.condition(stmt.test, frame)[2]
        self.cover(branch, start)
        self.repeat_unknown(start, stmt)
        self.merge_with_skipped(mark)
        frame.env = merge_envs(saved, None, frame.env, None)
        return RETURNS if flow == RETURNS and known is True else FALLS_THROUGH

    def repeat_unknown(self, start: int, loop: nodes.NodeNG) -> None:
        """The nodes of a loop body drawn once for a trip count not known statically: the
        graph says so rather than inventing a structure."""
        for node in self.graph.nodes[start:]:
            node.meta.setdefault("repeat", f"loop at line {loop.lineno}, trip count unknown")

    def exec_For(self, stmt: nodes.For, frame: Frame) -> str | None:
        iterable = self.eval(stmt.iter, frame)
        items = iterable.iterate(self)
        frame.resume.loop_depth += 1
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
                self.assign(stmt.target, iterable.element(self, stmt.iter, frame), frame)
                mark = self.heap.begin_branch()
                frame.resume.conditional += 1  # the loop may run zero times
                before = frame.resume.before_paths()
                try:
                    self.exec_block(stmt.body, frame)
                finally:
                    frame.resume.conditional -= 1
                    frame.resume.restore(before)
                self.repeat_unknown(start, stmt)
                self.merge_with_skipped(mark)
                frame.env = merge_envs(saved, None, frame.env, None)
        finally:
            frame.resume.loop_depth -= 1
        return self.exec_block(stmt.orelse, frame)

    def exec_With(self, stmt: nodes.With, frame: Frame) -> str | None:
        frame.resume.with_depth += 1  # dynamo cannot resume inside a `with`, its header included
        depth = 1
        try:
            managers = []
            for context, alias in stmt.items:
                if isinstance(context, nodes.Call):  # its function names the manager's class
                    managers.append(getattr(self.eval(context.func, frame), "qname", None))
                manager = self.eval(context, frame)
                if isinstance(manager, Instance):
                    manager.enter(self, context, frame)
                if alias is not None:
                    self.assign(alias, UNKNOWN, frame)
            if len(managers) == len(stmt.items) and all(m in tables.RESUMABLE_CONTEXTS for m in managers):
                frame.resume.with_depth -= 1  # dynamo resumes inside grad-mode and autocast blocks
                depth = 0
            return self.exec_block(stmt.body, frame)
        finally:
            frame.resume.with_depth -= depth

    def exec_Try(self, stmt: nodes.Try, frame: Frame) -> str | None:
        # Handlers run only when something failed: they are not the compiled path. A break in
        # the body makes dynamo give up on the function (measured: cfg_try_except.py).
        frame.resume.try_depth += 1
        try:
            flow = self.exec_block(stmt.body, frame)
        finally:
            frame.resume.try_depth -= 1
        if flow is FALLS_THROUGH:
            flow = self.exec_block(stmt.orelse, frame)
        final = self.exec_block(stmt.finalbody, frame)
        return final if final is not FALLS_THROUGH else flow

    exec_TryStar = exec_Try

    def exec_Match(self, stmt: nodes.Match, frame: Frame) -> str | None:
        self.eval(stmt.subject, frame)
        saved = dict(frame.env)
        before = frame.resume.before_paths()  # no case may match
        for case in stmt.cases:
            frame.env = dict(saved)
            mark = self.heap.begin_branch()
            self.exec_block(case.body, frame)
            self.merge_with_skipped(mark)
            frame.resume.restore(before)
        frame.env = merge_envs(saved, None, frame.env, None)
        return FALLS_THROUGH

    def merge_with_skipped(self, mark: int) -> None:
        """What the code run since `mark` changed meets the state of not running it (a loop
        that may run zero times, a case that may not match)."""
        self.heap.join_paths(mark, self.heap.end_path(mark), FALLS_THROUGH, FALLS_THROUGH)

    # ------------------------------------------------------------- assignment

    def assign(self, target: nodes.NodeNG, value: Value, frame: Frame) -> None:
        if isinstance(target, nodes.AssignName):
            frame.env[target.name] = value
        elif isinstance(target, (nodes.Tuple, nodes.List)):
            self.unpack(target.elts, value, frame)
        elif isinstance(target, nodes.Starred):
            self.assign(target.value, Seq(None, elem=value.element(self, target, frame), is_list=True), frame)
        elif isinstance(target, nodes.AssignAttr):
            self.eval(target.expr, frame).store_attribute(self, target.attrname, value, target, frame)
        elif isinstance(target, nodes.Subscript):
            container = self.eval(target.value, frame)
            key = self.eval(target.slice, frame)
            container.store_item(self, key, value, target, frame)

    def unpack(self, targets: list[nodes.NodeNG], value: Value, frame: Frame) -> None:
        starred = [i for i, t in enumerate(targets) if isinstance(t, nodes.Starred)]
        if isinstance(value, Seq) and value.items is not None and (len(value.items) == len(targets) or starred):
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
        if (isinstance(value, Static) and value.node is not None or isinstance(value, Tensor)) and not starred:
            # B, C, H, W = x.shape; q, k, v = qkv.unbind(0): one getitem each
            for index, target in enumerate(targets):
                self.assign(target, value.subscript(self, Static(index), target, frame), frame)
            return
        element = value.element(self, None, frame)
        for target in targets:
            self.assign(target, element, frame)

    # ------------------------------------------------------------------ calls

    def call_function(self, function: Function, args: list[Value], kwargs: dict[str, Value],
                      expr: nodes.NodeNG, frame: Frame, unknown_rest: bool = False,
                      in_property: bool = False) -> Value:
        """Inline `function`, or stand in a summary of an earlier inlining of it (`inline.inline_call`)."""
        return inline_call(self, function, args, kwargs, expr, frame, unknown_rest, in_property)

    def follows(self, function: nodes.FunctionDef | nodes.Lambda, frame: Frame, receiver: Value | None) -> bool:
        """Is a call of `function` (a method of `receiver`, if bound) inlined? (Every call is,
        in a compiled function.)"""
        return True

    def summary_key(self, node: nodes.NodeNG, receiver: Value | None, args: list[Value],
                    kwargs: dict[str, Value], unknown_rest: bool, in_property: bool, frame: Frame) -> tuple | None:
        """The key under which a call's summary is kept, or None when it must not be reused: a
        summary replays no mutation, so none stands in for a call on a project object (which may
        reassign its attributes) or for a function that changes a list or dict it is given."""
        if not self.state.reuse_inlined or holds_object((receiver, args, kwargs)) or mutates_arguments(node):
            return None
        return (node, signature_of((receiver, args, kwargs)), unknown_rest, in_property, frame.resume.loop_depth > 0,
                self.heap.flags.key(), self.options)  # roots of one file may compile under different settings

    # ----------------------------------------------------------- module state

    def module_attrs(self, module: UserModule) -> dict[str, Value]:
        """The module's attributes, by interpreting its class's `__init__` (once per instance)."""
        return self.state.init_attributes(self, module)

    def store_module_attribute(self, module: Value, name: str, value: Value) -> None:
        """`self.name = value` in forward: later reads in this graph see it."""
        self.heap.flags.forget(module, name)
        self.heap.record(self.heap.written)
        self.heap.written.values[(id(module), name)] = value

    def written_attribute(self, module: Value, name: str) -> Value | None:
        return self.heap.written.values.get((id(module), name))

    def get_attr(self, target: str, expr: nodes.NodeNG | None, frame: Frame, needs_grad: bool = True) -> Tensor:
        """A parameter or buffer (`needs_grad` False): one get_attr node per target."""
        node = self._attr_nodes.get(target)
        if node is None:
            node = self._attr_nodes[target] = self.graph.get_attr(
                target, meta=self.meta(expr, frame) if expr is not None else {})
        return Tensor(node, needs_grad=needs_grad)

    def tensor_constant(self, node: Node) -> Node:
        """The `_tensor_constantN` of this graph for a tensor made outside it."""
        constant = self._constants.get(node)
        if constant is None:
            constant = self._constants[node] = self.graph.get_attr(f"_tensor_constant{len(self._constants)}")
        return constant

    def new_object(self, cls: nodes.ClassDef) -> Obj:
        obj = Obj(cls)
        self.heap.objects[id(obj)] = obj
        self.heap.local_objects.add(id(obj))
        return obj

    # ----------------------------------------------------------------- globals

    def global_value(self, module: SourceModule, name: str) -> Value:
        key = (module.path, name)
        if key in self.state.globals:
            return self.state.globals[key]
        self.state.globals[key] = UNKNOWN  # cuts cycles between module-level assignments
        binding = self.resolver.global_binding(module, name)
        if binding is None:
            from .. import tables

            value = external(name) if name in tables.BUILTINS else UNKNOWN
        else:
            value = self.value_of(binding, None)
        self.state.globals[key] = value
        return value

    def value_of(self, binding: Binding, frame: Frame | None) -> Value:
        if binding.kind == "external" or binding.kind == "module":
            return external(binding.qname)
        if binding.kind == "class":
            return ClassRef(binding.node)
        if binding.kind == "function":
            return Function(binding.node)
        if binding.kind == "assign":
            return self.eval_static_expr(binding.node, None, binding.module)
        return UNKNOWN

    def eval_static_expr(self, expr: nodes.NodeNG, frame: Frame | None, module: SourceModule | None = None) -> Value:
        """Evaluate a default, class attribute or module-level value outside any graph:
        whatever it computes goes to a scratch graph (module-level tensors are constants to
        the graph, not traced operations)."""
        if isinstance(expr, nodes.Const):
            return Static(expr.value)
        module = module or self.resolver.source_of(expr)
        scratch = type(self)(self.resolver, self.options, self.state, Graph("<static>", module.path), self.heap)
        value = scratch.eval(expr, Frame(expr.root(), module, {}, caller=frame))
        return self.static_result(value)

    def static_result(self, value: Value) -> Value:
        """A static expression's tensors are not this graph's."""
        return UNKNOWN if isinstance(value, Tensor) else value

    # ------------------------------------------------------------------ breaks

    def branch(self, value: Value, expr: nodes.NodeNG, frame: Frame) -> Node:
        """Python tests a tensor (or an array traced as one) for truth: data-dependent control
        flow (GB0170)."""
        node = self.graph.call_function("bool", (value.as_arg(),), meta=self.meta(expr, frame))
        self.graph_break(rules.DATA_DEPENDENT_BRANCH, node, expr, frame)
        return node

    def cover(self, branch: Node | None, start: int) -> None:
        """The nodes since `start` are under the branch `branch` breaks on."""
        if branch is not None:
            branch.meta["covers"] = self.graph.nodes[start:]

    def breaking_call(self, qname: str, args: list[Value]) -> BreakingCall | None:
        """The entry of breaks.BREAKING_CALLS a call of `qname` is in the torch version linted for,
        if any. The values ask it here: the table's predicates read the kinds of values, so the
        values cannot import it."""
        return breaking_call(qname, args, self.options.torch_version)

    def graph_break(self, rule: Rule, node: Node, expr: nodes.NodeNG, frame: Frame,
                    gb_ids: tuple[str, ...] = (), qname: str = "", eagerly: Eagerness = None,
                    versions: str = "", advice: Advice | None = None) -> None:
        """Dynamo breaks the graph at `node` (rule `rule`), when this code runs (resume.Breaks)."""
        self.breaks.graph_break(rule, node, expr, frame, gb_ids, qname, eagerly, versions, advice)

    def call_not_followed(self, qname: str, expr: nodes.NodeNG, frame: Frame | None) -> None:
        """A call into a package whose source is on no library search path, or of a name no
        statement we follow binds, is opaque: say so
        (an SFX900 notice at the linted file's line), never a silent clean."""
        package = self.resolver.missing_package(qname)
        if package is not None:
            site = self.site_of(expr, frame)
            self.state.missing_libraries.setdefault((package, site.line, site.col), qname)
        elif self.resolver.unbound_name(qname):
            site = self.site_of(expr, frame)
            self.state.unbound_names.setdefault((site.line, site.col), qname)

    def site_of(self, expr: nodes.NodeNG, frame: Frame | None) -> SourceSpan:
        """Where the linted file reaches `expr` (an SFX900 notice's place)."""
        origin = self.meta(expr, frame)["origin"]
        return report_site(self.resolver.main.path, origin.span, origin.stack)

    def meta(self, expr: nodes.NodeNG | None, frame: Frame | None) -> dict:
        """A node's metadata: where it comes from (its span and the inlined calls leading there)."""
        if expr is None:
            return {}
        module = frame.module if frame is not None else self.resolver.main
        function = frame.name if frame is not None else ""
        span = SourceSpan(module.path, expr.lineno or 0, expr.col_offset or 0,
                          expr.end_lineno or expr.lineno or 0, expr.end_col_offset or 0, function)
        return {"origin": Origin(span, frame.call_stack() if frame is not None else CallStack())}


def _tested_flag(test: nodes.NodeNG, frame: Frame) -> tuple[Module, str] | None:
    """The module and attribute an `if self.<flag>:` tests, if it tests one."""
    if isinstance(test, nodes.Attribute) and isinstance(test.expr, nodes.Name):
        module = frame.lookup(test.expr.name)
        if isinstance(module, Module):
            return module, test.attrname
    return None


def _rest_needs(test: Value, stmt: nodes.If, flows: dict[bool, str | None]) -> tuple[Condition, ...]:
    """What the code after the `if` `stmt` needs when one outcome's path goes on to it and the
    other's returns or raises (`if self.training: return x` leaves the rest to eval mode, `if
    len(idx) == 0: return` to `idx` not empty): that outcome's conditions, for its breaks
    (exec_block). `flows` says how each path interpreted ended; a block the test's known
    outcome skipped ends as its last statement says (nothing is left to label when the path of
    that known outcome does not go on)."""
    if len(flows) == 1 and FALLS_THROUGH not in flows.values():
        return ()
    for outcome, block in ((True, stmt.body), (False, stmt.orelse)):
        if outcome not in flows:
            flows[outcome] = RETURNS if block and isinstance(block[-1], (nodes.Return, nodes.Raise)) else FALLS_THROUGH
    going_on = [outcome for outcome, flow in flows.items() if flow is FALLS_THROUGH]
    if len(going_on) == 1 and RETURNS in flows.values():
        return outcome_needs(test, going_on[0])
    return ()


def _returns_from(block: list[nodes.NodeNG], flow: str | None) -> bool:
    """Did this block end its function with a `return` (not only a `raise`, whose path fails
    and so is not a call that runs)?"""
    return flow == RETURNS and any(
        next(nodes_of_class(statement, nodes.Return, skip=(nodes.FunctionDef, nodes.Lambda)), None)
        is not None for statement in block)


def _view_raises(test: Value, block: list[nodes.NodeNG], options: Options) -> bool:
    """Does the instance view's own assumption (optional inputs at their defaults, training
    mode) take a block that raises? Then it is not the call a user compiles: BartModel's
    `if input_ids is None and inputs_embeds is None: raise ValueError(...)`."""
    return options.follow_defaults and isinstance(test, Static) and (test.varies or test.assumed) \
        and bool(block) and isinstance(block[-1], nodes.Raise)


def _paths(test: Value, by_mode: bool, default_path: bool | None) -> tuple[IfPath, IfPath]:
    """The two paths of an `if` on `test`, true first: what each needs, whether it is every call's."""
    return ((outcome_needs(test, True), by_mode or default_path is True),
            (outcome_needs(test, False), by_mode or default_path is False))


def merge_envs(env_a: dict[str, Value], flow_a: str | None, env_b: dict[str, Value],
               flow_b: str | None, paths: tuple[IfPath, IfPath] | None = None) -> dict[str, Value]:
    """Variables after two paths meet; a path that ended (return, break) does not flow on.
    `paths`: those of an `if`, whose tensor on one path only is a PathTensor."""
    if flow_a is not FALLS_THROUGH and flow_b is FALLS_THROUGH:
        return env_b
    if flow_b is not FALLS_THROUGH and flow_a is FALLS_THROUGH:
        return env_a
    merged = dict(env_a)
    for name, value in env_b.items():
        if name in merged:
            on_paths = joined_on_paths(merged[name], value, *paths) if paths else None
            merged[name] = on_paths or join(merged[name], value)
        else:
            merged[name] = value
    return merged
