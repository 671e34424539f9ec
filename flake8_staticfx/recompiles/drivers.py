"""Replay a project's driver functions on value descriptions: the compiled calls they make.

A driver is a function of the linted file that compiles something (`torch.compile(model)`,
`block.compile()` for each block, a call of an `@torch.compile` function) and calls it. Its
statements run here in order, loops unrolled (MAX_STEPS in all), on the descriptions of
values.py; each call of something compiled becomes a `Call` with its arguments, the module's
attributes at that moment and the global state (grad mode, autocast). Anything not followed
stops the driver's replay where it is (stops.py): what was recorded before stays true. The
project functions it calls and the classes it constructs are replayed by project_calls.py.
"""
from __future__ import annotations

import ast
import copy
import operator
from dataclasses import dataclass, replace

from .arithmetic import ARITHMETIC, COMPARE, MATH_CONSTANTS, fold, math_constant
from .coarse import StateChanges, either_branch, forget, pass_over
from .control_flow import both_branches, loop, with_block
from .declarations import (STATE_SETTERS, compile_setting, is_compile, library_imports, method_of,
                           module_constants, namedtuples, pure, torch_aliases)
from .effects import call_effects
from .in_place import write_in_place
from .keywords import followed
from .method_calls import TEXT_METHODS, Closure, DriverMethod, method_call
from .module_calls import layer_call, module_call, run_eagerly, sequential_call
from .module_driver import MODULE_DRIVER, module_driver
from .named_calls import LIBRARIES, MARKS_DYNAMIC, RESOLVED_IMPORTS, named_value
from .open_loops import signature
from .project_calls import construct, inline
from .shapes import broadcast, index_items, indexed, requires_grad, row_window, view_strides
from .stops import LoopExit, Returned, StateChange, StopInside, StopReplay
from .syntax import dotted, forward_of
from .unfollowed import forget_read, forgotten_names, item_not_followed
from .values import (UNKNOWN, Batches, Categorical, Compiled, Const, DictValue, Function, Instance, Lambda, Layer,
                     ListValue, ModuleDict, Number, Optimizer, Record, SizesNotFollowed, TensorValue, Unfollowed,
                     Unknown, numeric)

MAX_STEPS = 2_000
COARSE_STEPS = 1_000  # the coarse replay's steps per stopped driver (coarse.py)
# What a replay not following its code raises: its own stop, or Python's on values it computed.
NOT_FOLLOWED = (StopReplay, RecursionError, ArithmeticError, TypeError, ValueError, IndexError, KeyError)


@dataclass
class Call:
    """One call of a compiled frame from the driver."""

    frame: ast.FunctionDef  # the compiled function or the class's forward
    instance: Instance | None  # the module the frame runs on
    attributes: dict  # the instance's attributes at the call
    training: bool
    args: list  # descriptions of the arguments bound to the frame's parameters after self
    grad_mode: str  # "grad", "no_grad" or "inference_mode"
    autocast: bool
    dynamic: bool | None
    line: int  # the call in the driver
    compile_line: int
    regional: bool  # one block of a model, compiled on its own
    driver: str  # the driver function: each runs in a process of its own
    skipped: bool = False  # dynamo gives up on the frame at its first compile: compiled once
    followed: bool = True  # False: recorded by the coarse replay (coarse.py), its inputs partly known


class Replay:
    """Runs the drivers of one file."""

    def __init__(self, tree: ast.Module, skipped_classes: frozenset[str] = frozenset()):
        # Classes whose forward dynamo gives up on (a break in a loop, per the interpreter): the
        # forward runs eagerly and each project module it calls is a frame of its own.
        self.skipped_classes = skipped_classes
        self.classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        self.functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        self.constants: dict = {}
        self.namedtuples = namedtuples(tree)
        self.imports = library_imports(tree, LIBRARIES)
        self.resolved = {**library_imports(tree, RESOLVED_IMPORTS), **torch_aliases(tree)}  # the names calls resolve
        self.compiled_functions = {name: Compiled(node, compile_setting(decorator), node.lineno)
                                   for name, node in self.functions.items()
                                   for decorator in node.decorator_list if is_compile(decorator)}
        self.calls: list[Call] = []
        self.steps = 0
        self.depth = 0  # project functions being inlined
        self.grad_mode = "grad"
        self.autocast = False
        self.device_scope = False  # under `with torch.device(...)`: a torch function mode dynamo guards on
        self.driver = ""
        # Module-level names a driver rebinds under `global` (gpt-fast's `decode_one_token =
        # torch.compile(decode_one_token)`): the functions of the file calling them see the new value.
        self.rebound: dict = {}
        self.eager_call: ast.Call | None = None  # the compiled call whose skipped forward runs
        # Drivers whose replay stopped: the calls after the stop are not known, so neither is
        # how often their frames compile in all (the recompiles seen before it stay true).
        self.stopped: set[str] = set()
        self.open_loops, self.signatures = 0, {}  # loops a test on data ends, what their calls present (open_loops.py)
        self.lenient = False  # the coarse replay (coarse.py): goes on past what it does not follow
        self.state_changes: StateChanges | None = None  # what may change dynamo's state: run_coarsely's
        # The coarse replay passed over a `break` (`return`) it could not decide: the calls after
        # it, to the end of the loop (function), may not be made and are not recorded.
        self.may_have_broken = self.may_have_returned = False
        self.constants = module_constants(tree, self.derived)
        self.module_driver = module_driver(tree, self.compiled_functions)  # [] or [(MODULE_DRIVER, statements)]

    def derived(self, node: ast.expr, found: dict) -> Const | None:
        """A module-level number computed from the constants before it (`nz = int(opt.nz)`)."""
        self.constants = found
        try:
            value = self.expr(node, {})
        except NOT_FOLLOWED:
            return None
        return value if isinstance(value, Const) else None

    def run_drivers(self) -> list[Call]:
        for name, body in self.drivers():
            self.grad_mode, self.autocast, self.driver = "grad", False, name
            self.rebound = {}
            try:
                self.block(body, self.driver_names())
            except Returned:
                pass
            except NOT_FOLLOWED:
                self.stopped.add(name)
        return self.calls

    def drivers(self) -> list[tuple[str, list[ast.stmt]]]:
        """Each driver's name and statements: the functions without parameters, then the module's own code."""
        return [(function.name, function.body) for function in self.functions.values() if not function.args.args
                and function.name not in self.compiled_functions] + self.module_driver

    def driver_names(self) -> dict:
        """The module driver's names are the module's globals, read by the functions it calls."""
        return self.rebound if self.driver == MODULE_DRIVER else {}

    def run_coarsely(self) -> list[Call]:
        """The stopped drivers replayed again, going on past what they do not follow (coarse.py):
        the calls they make, each marked not followed."""
        exact, self.calls, self.lenient = self.calls, [], True
        self.state_changes = self.state_changes or StateChanges(self.resolve, self.functions, self.classes)
        for name, body in self.drivers():
            if name in self.stopped:
                self.grad_mode, self.autocast, self.driver, self.rebound = "grad", False, name, {}
                self.steps = MAX_STEPS - COARSE_STEPS  # its own budget: loops run in full where they are counted
                self.may_have_broken = self.may_have_returned = False
                try:
                    self.block(body, self.driver_names())
                except (Returned, *NOT_FOLLOWED):
                    pass  # a change of dynamo's state ends it: the calls before it stand
        coarse, self.calls, self.lenient = self.calls, exact, False
        return coarse

    # -- statements ------------------------------------------------------------------------

    def block(self, statements: list[ast.stmt], env: dict) -> None:
        for statement in statements:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise StopReplay("too many steps")
            calls = len(self.calls)
            try:
                self.statement(statement, env)
            except StateChange:
                raise
            except NOT_FOLLOWED as stop:
                if self.lenient:
                    pass_over(self, statement, env, calls)
                    continue
                if isinstance(stop, StopInside) or not isinstance(stop, StopReplay):
                    raise
                names = forgotten_names(statement, lambda name: self.name_value(name, env))
                if names is None or len(self.calls) != calls:
                    raise
                forget_read(statement, lambda name: self.name_value(name, env))
                forget(self, set(names), env)
                if isinstance(statement, ast.Return):
                    raise Returned(Unfollowed()) from None

    def name_value(self, name: str, env: dict):
        """A name's value, a function of the project as its definition (code the replay follows)."""
        value = self.expr(ast.Name(name, ast.Load()), env)
        return self.functions[name] if isinstance(value, Function) and value.name in self.functions else value

    def statement(self, node: ast.stmt, env: dict) -> None:
        if isinstance(node, ast.Expr):
            self.expr(node.value, env)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            self.assign(node.targets[0], self.expr(node.value, env), env)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            combined = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
            env[node.target.id] = self.expr(combined, env)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            write_in_place(self, node.target, self.expr(node.value, env), env)  # `x_[:, :classes] *= 0.0`
        elif isinstance(node, ast.Return):
            raise Returned(self.expr(node.value, env) if node.value is not None else Const(None))
        elif isinstance(node, ast.FunctionDef):
            env[node.name] = Closure(node, env)
        elif isinstance(node, ast.Global):
            env.update((name, _GLOBAL) for name in node.names)
        elif isinstance(node, (ast.For, ast.While)) and not node.orelse:
            broken = self.may_have_broken
            try:
                loop(self, node, env)
            finally:
                self.may_have_broken = broken
        elif isinstance(node, ast.Try) and self.lenient:
            for body in (node.body, node.orelse, node.finalbody):  # taken to raise nothing
                self.block(body, env)
        elif isinstance(node, (ast.Break, ast.Continue)):
            raise LoopExit(isinstance(node, ast.Break))  # `if step >= max_steps: break`, the test known
        elif isinstance(node, ast.With):
            with_block(self, node, env)
        elif isinstance(node, ast.If):
            test = self.argument(node.test, env)
            if self.lenient and not isinstance(test, Const):
                either_branch(self, node, env)
                return
            if isinstance(test, (Number, TensorValue)):
                both_branches(self, node, env)
                return
            self.block(node.body if self.known_test(node.test, env, test) else node.orelse, env)
        elif isinstance(node, ast.Assert) and not any(isinstance(n, ast.Call) for n in ast.walk(node)):
            pass  # `assert t <= self.block_size`: checks, changes nothing
        elif not isinstance(node, ast.Pass):
            raise StopReplay(type(node).__name__)

    def library_calls_only(self, node: ast.expr, env: dict) -> bool:
        """An expression whose calls are all of a library's functions other than torch's
        (`os.path.join(out, "x.json")`): it changes nothing the replay keeps."""
        return all(not isinstance(n, ast.Call) or self.library_function(n.func, env) for n in ast.walk(node))

    def library_function(self, func: ast.expr, env: dict) -> bool:
        """`os.path.join`: a function of a module the file imports, torch's left out."""
        root = dotted(func).split(".")[0] if isinstance(func, ast.Attribute) else ""
        if not root or root in env or self.resolve(root).startswith("torch"):
            return False
        value = self.name_value(root, env)
        return isinstance(value, Function) and value.name == root

    def loop_body(self, body: list[ast.stmt], env: dict) -> bool:
        """One pass of a loop's body; False when it took a `break`."""
        try:
            self.block(body, env)
        except LoopExit as exit_:
            return not exit_.broke
        return True

    def known_test(self, node: ast.expr, env: dict, value=None) -> bool:
        """The truth of a test the replay knows (`value`: already evaluated), else a stop."""
        value = self.expr(node, env) if value is None else value
        if not isinstance(value, Const):
            raise StopReplay("branch")
        return bool(value.value)

    def assign(self, target: ast.expr, value, env: dict) -> None:
        if isinstance(target, ast.Name) and env.get(target.id) is _GLOBAL:
            self.rebound[target.id] = value
        elif isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple):
            unknown = isinstance(value, TensorValue) and value.shape is None and not any(
                isinstance(e, ast.Starred) for e in target.elts)  # `v, _ = torch.topk(...)`: nothing known of either
            items = [TensorValue(None, None) for _ in target.elts] if unknown else [Number() for _ in target.elts] \
                if isinstance(value, SizesNotFollowed) else [Unfollowed() for _ in target.elts] if isinstance(
                    value, Unfollowed) else self.iterate(value)
            starred = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            if starred and len(starred) == 1 and len(items) >= len(target.elts) - 1:
                at, after = starred[0], len(target.elts) - starred[0] - 1
                rest = items[at:len(items) - after]
                items = [*items[:at], ListValue(rest), *items[len(items) - after:]]
                target = ast.Tuple([*target.elts[:at], target.elts[at].value, *target.elts[at + 1:]], ast.Store())
            if len(items) != len(target.elts):
                raise StopReplay("unpacking")
            for element, item in zip(target.elts, items):
                self.assign(element, item, env)
        elif isinstance(target, ast.Attribute):
            owner = self.expr(target.value, env)
            if isinstance(owner, Layer) and target.attr in ("weight", "bias"):
                return  # weights tied (`wte.weight = lm_head.weight`): the layer's sizes stay
            if isinstance(owner, Unfollowed):
                owner.attributes[target.attr] = value  # `config.n_layer = 2`: read back as written
                return
            if isinstance(owner, Record) and isinstance(target.value, ast.Name):  # `args.top_k = 5`, seen from then on
                name, record = target.value.id, Record({**owner.fields, target.attr: value})
                return self.assign(target.value, record, env) if name in env else self.rebound.update({name: record})
            if isinstance(owner, TensorValue) and target.attr == "requires_grad" and isinstance(value, Const):
                owner.requires_grad = bool(value.value)  # `data.requires_grad = True` (FGSM): from then on
                return
            if not isinstance(owner, Instance):
                raise StopReplay("attribute of an unknown object")
            owner.attributes[target.attr] = value
        elif isinstance(target, ast.Subscript):
            owner = self.expr(target.value, env)
            if isinstance(owner, (TensorValue, Optimizer)):  # a tensor written in place, an optimizer's setting
                return write_in_place(self, target, value, env) if isinstance(owner, TensorValue) else None
            key = self.expr(target.slice, env)
            if isinstance(owner, DictValue) and isinstance(key, Const):
                owner.items[key.value] = value
                return
            if not (isinstance(owner, ListValue) and isinstance(key, Const)):
                raise StopReplay("item")
            if isinstance(value, Compiled) and isinstance(value.target, Instance):
                value.target.compiled = True  # blocks[i] = torch.compile(block): regional
                value.target.dynamic, value.target.compile_line = value.dynamic, value.line
                value = value.target
            owner.items[key.value] = value
        else:
            raise StopReplay("assignment target")

    def iterate(self, value) -> list:
        if isinstance(value, ListValue):
            return list(value.items)
        if isinstance(value, Batches):
            return value.items()
        if isinstance(value, TensorValue) and value.shape and isinstance(value.shape[0], int) and not value.view:
            return [TensorValue(value.shape[1:], value.requires_grad, inference=value.inference, below=value.below)
                    for _ in range(value.shape[0])]  # its rows
        if isinstance(value, Const) and isinstance(value.value, (tuple, list, range, str)):  # a str: its characters
            return [Const(item) for item in value.value]
        raise StopReplay("iteration")

    # -- expressions -----------------------------------------------------------------------

    def expr(self, node: ast.expr, env: dict):
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            if node.id in env and env[node.id] is not _GLOBAL:
                return env[node.id]
            if node.id in self.rebound:
                return self.rebound[node.id]
            if node.id in self.compiled_functions:
                return self.compiled_functions[node.id]
            if node.id in self.classes:
                return self.classes[node.id]
            if node.id in self.constants:
                return self.constants[node.id]
            return Function(node.id)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = []
            for element in node.elts:
                if isinstance(element, ast.Starred):  # (*x.shape, device): spliced
                    items.extend(self.iterate(self.expr(element.value, env)))
                else:
                    items.append(self.expr(element, env))
            if all(isinstance(i, Const) for i in items) and isinstance(node, ast.Tuple):
                return Const(tuple(i.value for i in items))
            return ListValue(items)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str):
            return self.formatted([node.right], env)  # `'[%d/%d]' % (epoch, n)`
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            left, right = self.expr(node.left, env), self.expr(node.right, env)
            if isinstance(node.op, ast.Mult) and isinstance(left, ListValue) and isinstance(right, Const) \
                    and type(right.value) is int:
                return ListValue(left.items * right.value)  # `[dt] * b`: the list repeated
            if isinstance(node.op, ast.Add) and isinstance(left, ListValue) and isinstance(right, ListValue):
                return ListValue(left.items + right.items)  # `self.layers = self.layers + [Layer(...)]`
            tensors = [o for o in (left, right) if isinstance(o, TensorValue)]
            if tensors and all(isinstance(o, (TensorValue, Const, Number)) for o in (left, right)):
                same = len({t.shape for t in tensors}) == 1
                shape = tensors[0].shape if same else broadcast(left, right)
                return TensorValue(shape, requires_grad(*tensors), inference=self.inference)
            if numeric(left) and numeric(right) and Number() in (left, right):
                return Number()
            return _fold(ARITHMETIC[type(node.op)], left, right)
        if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
            return DictValue({k.value: self.expr(v, env) for k, v in zip(node.keys, node.values)})
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.expr(node.operand, env)
            return operand if isinstance(operand, Number) else _fold(operator.neg, operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return _fold(operator.not_, self.expr(node.operand, env))  # `if not is_transformer:`
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            return self.membership(node, env)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            left = self.expr(node.left, env)
            if not isinstance(left, (Const, Function, Unknown)):  # a dict, a model, a tensor: not None
                return Const(isinstance(node.ops[0], ast.IsNot))
        if isinstance(node, ast.Compare) and any(
                isinstance(self.expr(o, env), TensorValue) for o in (node.left, *node.comparators)):
            return TensorValue(None)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE:
            left, right = self.expr(node.left, env), self.expr(node.comparators[0], env)
            if numeric(left) and numeric(right) and Number() in (left, right):
                return Number()  # `if gamma > 0:` on a number a branch on data picked
            return _fold(COMPARE[type(node.ops[0])], self.expr(node.left, env),
                         self.expr(node.comparators[0], env))
        if isinstance(node, ast.Slice):
            bounds = [self.expr(n, env) if n is not None else Const(None) for n in (node.lower, node.upper, node.step)]
            if all(isinstance(b, Const) for b in bounds):
                return Const(slice(*(b.value for b in bounds)))  # `x.shape[1:]` of a known shape
        if isinstance(node, ast.Lambda):
            return Lambda(node.lineno, node.col_offset, node, env)
        if isinstance(node, ast.IfExp):
            return self.conditional(node, env)
        if isinstance(node, ast.BoolOp):
            return self.boolean(node, env)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, env)
        if isinstance(node, ast.Subscript):
            owner = self.expr(node.value, env)
            if isinstance(owner, Optimizer):
                return owner
            if isinstance(owner, TensorValue):
                window = row_window(owner, node.slice, lambda item: self.known(item, env))
                if window is not None:
                    return self.made_here(window)
                sliced = any(isinstance(n, ast.Slice) for n in ast.walk(node.slice))
                key = None if sliced else self.expr(node.slice, env)
                if isinstance(key, TensorValue) and key.data_sized and owner.shape:
                    # as many rows as the data picks
                    return TensorValue((object(), *owner.shape[1:]), owner.requires_grad)
                items = index_items(node.slice, lambda item: self.known(item, env))
                shape = indexed(owner.shape, items)
                if shape is None:  # `logits[:, -1]`: a view, followed for what is computed from it
                    strides = None if owner.view else view_strides(owner.shape, items)
                    return TensorValue(indexed(owner.shape, items, views=True), owner.requires_grad, view=True,
                                       strides=strides)
                return self.made_here(TensorValue(shape, owner.requires_grad))
            key = self.expr(node.slice, env)
            if isinstance(owner, ListValue) and isinstance(key, Const) and isinstance(key.value, (int, slice)):
                return owner.items[key.value] if isinstance(key.value, int) else ListValue(owner.items[key.value])
            if isinstance(owner, Const) and isinstance(owner.value, tuple) and isinstance(key, Const):
                return Const(owner.value[key.value])
            if isinstance(owner, SizesNotFollowed):
                return Number() if isinstance(key, Const) and isinstance(key.value, int) else owner
            if isinstance(owner, DictValue) and isinstance(key, Const) and key.value in owner.items:
                return owner.items[key.value]  # `conds["c_seq"]`
            return item_not_followed(owner, key, self.functions)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 \
                and not node.generators[0].ifs:
            generator, items = node.generators[0], []
            for item in self.iterate(self.expr(generator.iter, env)):
                inner = dict(env)
                self.assign(generator.target, item, inner)
                items.append(self.expr(node.elt, inner))
            return ListValue(items)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.JoinedStr):
            return self.formatted([v.value for v in node.values if isinstance(v, ast.FormattedValue)], env)
        raise StopReplay(type(node).__name__)

    def argument(self, node: ast.expr, env: dict):
        """An argument's value; for the coarse replay, an unknown one where it is not followed
        (the call itself, of a compiled frame among others, is still made)."""
        try:
            return self.expr(node, env)
        except StateChange:
            raise
        except NOT_FOLLOWED:
            if not self.lenient:
                raise
            return Unfollowed()

    def formatted(self, parts: list[ast.expr], env: dict) -> Unknown:
        """A string formatted from values (an f-string, `'...'.format(...)`, `'...' % (...)`): the
        values evaluated (a call among them followed), the text not (what a log line says)."""
        for part in parts:
            self.expr(part, env)
        return UNKNOWN

    def conditional(self, node: ast.IfExp, env: dict):
        """`a if test else b`: the branch the test picks, or, where the test depends on data, the
        value both branches give (`min(churn, ...) if ... else 0.` with churn 0)."""
        test = self.expr(node.test, env)
        if isinstance(test, Const):
            return self.expr(node.body if test.value else node.orelse, env)
        if pure(node.body) and pure(node.orelse):
            body, orelse = self.expr(node.body, env), self.expr(node.orelse, env)
            if isinstance(body, Const) and isinstance(orelse, Const) and body.value == orelse.value:
                return body
            if numeric(body) and numeric(orelse):
                return Number()  # k-diffusion's churn: `min(s_churn / n, ...) if s_tmin <= sigma <= s_tmax else 0.`
            if all(isinstance(value, Const) and isinstance(value.value, str) for value in (body, orelse)):
                return UNKNOWN  # `"cuda" if torch.cuda.is_available() else "cpu"`: a text not known
        raise StopReplay("a branch on data")

    def boolean(self, node: ast.BoolOp, env: dict):
        """`a and b`, `a or b`: the operand Python's short circuit picks, each known value tested."""
        for operand in node.values[:-1]:
            value = self.expr(operand, env)
            if not isinstance(value, Const):
                raise StopReplay("a condition on a value not followed")
            if bool(value.value) == isinstance(node.op, ast.Or):
                return value
        return self.expr(node.values[-1], env)

    def membership(self, node: ast.Compare, env: dict):
        """`rnn_type in ['LSTM', 'GRU']`: a known value in a list or tuple of known values."""
        left, right = self.expr(node.left, env), self.expr(node.comparators[0], env)
        if isinstance(right, ListValue) and all(isinstance(item, Const) for item in right.items):
            right = Const(tuple(item.value for item in right.items))
        if not (isinstance(left, Const) and isinstance(right, Const) and isinstance(right.value, (tuple, str))):
            raise StopReplay("membership")
        return Const((left.value in right.value) == isinstance(node.ops[0], ast.In))

    def known(self, node: ast.expr, env: dict):
        """The value of `node`, or UNKNOWN where the replay does not follow it."""
        try:
            return self.expr(node, env)
        except StopReplay:
            return UNKNOWN

    def attribute(self, node: ast.Attribute, env: dict):
        name = dotted(node)
        if name in MATH_CONSTANTS and "math" not in env:
            return math_constant(name)
        if name and name.split(".")[0] not in env and name.split(".")[0] not in self.rebound and not isinstance(
                self.constants.get(name.split(".")[0]), Record):
            return Function(name)  # F.relu, torch.float32: named objects
        owner = self.expr(node.value, env)
        if isinstance(owner, Compiled) and isinstance(owner.target, Instance) and node.attr in owner.target.attributes:
            return owner.target.attributes[node.attr]  # `model.block_size`: the compiled wrapper reads its module's
        if isinstance(owner, Instance) and node.attr in owner.attributes:
            return owner.attributes[node.attr]
        if isinstance(owner, Unfollowed):
            return owner.attributes.setdefault(node.attr, Unfollowed())  # one object at each read
        if isinstance(owner, ModuleDict) and node.attr in owner.items:
            return owner.items[node.attr]
        if isinstance(owner, Record) and node.attr in owner.fields:
            return owner.fields[node.attr]
        if isinstance(owner, Batches) and node.attr == "dataset":
            return owner.dataset
        if isinstance(owner, TensorValue) and node.attr in ("shape", "ndim") and owner.shape is not None \
                and all(isinstance(size, int) for size in owner.shape):
            return Const(tuple(owner.shape) if node.attr == "shape" else len(owner.shape))
        if isinstance(owner, Layer) and node.attr in ("weight", "bias"):
            return TensorValue(None, True)  # `self.output.weight.dtype`
        if isinstance(owner, TensorValue) and node.attr == "shape":
            return SizesNotFollowed()
        if isinstance(owner, TensorValue) and node.attr in ("data", "grad"):
            return TensorValue(owner.shape)  # its values, or its gradient's: the same shape
        if isinstance(owner, TensorValue) and node.attr in ("dtype", "device"):
            return UNKNOWN  # passed on to factories, whose results' shapes are what guards read here
        if isinstance(owner, Optimizer):
            return DriverMethod(owner, node.attr) if node.attr in ("step", "zero_grad") else owner
        if isinstance(owner, Const) and isinstance(owner.value, str) and node.attr in TEXT_METHODS:
            return DriverMethod(owner, node.attr)
        if isinstance(owner, (Instance, Compiled, TensorValue, Layer, Categorical)) or isinstance(owner, (
                ListValue, ModuleDict)) and node.attr in ("append", "children", "named_children"):
            return DriverMethod(owner, node.attr)
        raise StopReplay("attribute")

    def call(self, node: ast.Call, env: dict):
        func = self.expr(node.func, env)
        args = []
        for arg in node.args:  # `out.reshape(b, *((1,) * n))`: spliced
            args.extend(self.iterate(self.expr(arg.value, env)) if isinstance(arg, ast.Starred) else [
                self.argument(arg, env)])
        kwargs = {}
        for keyword in node.keywords:
            value = self.expr(keyword.value, env) if keyword.arg is None else self.argument(keyword.value, env)
            if keyword.arg is None and not isinstance(value, DictValue):
                raise StopReplay("**kwargs")
            kwargs.update(value.items if keyword.arg is None else {keyword.arg: value})  # `**sampling_kwargs` spliced
        if isinstance(func, DriverMethod) and isinstance(func.owner, Const) and func.name in TEXT_METHODS:
            return UNKNOWN  # `'Epoch: {}'.format(epoch)`: its arguments evaluated above, the text not followed
        if isinstance(func, DriverMethod):
            return method_call(self, func, args, kwargs, node)
        if isinstance(func, Compiled):
            return self.compiled_call(func, args, node, kwargs)
        if isinstance(func, Instance):
            return module_call(self, func, args, node, kwargs)
        if isinstance(func, ast.ClassDef):
            return construct(self, func, args, kwargs)
        if isinstance(func, Closure):
            return inline(self, func.node, args, kwargs, func.env)
        if isinstance(func, Lambda) and func.node is not None:
            body = ast.Return(func.node.body, lineno=func.node.lineno, col_offset=func.node.col_offset)
            return inline(self, ast.FunctionDef(name="<lambda>", args=func.node.args, body=[body], decorator_list=[]),
                          args, kwargs, func.env)
        if isinstance(func, Function) and func.name in self.namedtuples and not kwargs:
            if len(args) != len(self.namedtuples[func.name]):
                raise StopReplay("namedtuple fields")
            return Record(dict(zip(self.namedtuples[func.name], args)))
        if isinstance(func, Function) and func.name in self.functions and func.name not in self.compiled_functions:
            return inline(self, self.functions[func.name], args, kwargs, {})
        if isinstance(func, Function):
            return self.named_call(func.name, args, kwargs, node)
        if isinstance(func, Layer):
            return layer_call(self, func, args)
        if isinstance(func, ListValue):
            return sequential_call(self, func, args, node, kwargs)
        raise StopReplay("call")

    def named_call(self, name: str, args: list, kwargs: dict, node: ast.Call):
        name = self.resolve(name)
        if name.startswith(STATE_SETTERS) and name not in MARKS_DYNAMIC:
            raise StateChange(f"{name} changes what dynamo compiles")
        value = named_value(name, args, kwargs, node.lineno, self.grad_mode)
        if value is None:
            raise StopReplay(f"call of {name}")
        return value

    def resolve(self, name: str) -> str:
        """A dotted name as the library spells it (`th.no_grad` -> `torch.no_grad`)."""
        root = name.split(".")[0]
        return self.resolved[root] + name[len(root):] if root in self.resolved else name

    def compiled_call(self, compiled: Compiled, args: list, node: ast.Call, kwargs: dict | None = None,
                      regional: bool = False):
        target = compiled.target
        if isinstance(target, Instance) and target.cls.name in self.skipped_classes:
            self.record(target, forward_of(target.cls), args, compiled.dynamic, compiled.line, node, skipped=True)
            return run_eagerly(self, target, args, node)
        if isinstance(target, Instance):
            frame, instance = forward_of(target.cls), target
        elif isinstance(target, ast.FunctionDef):
            frame, instance = target, None
        elif isinstance(target, Function) and target.name in self.functions:  # torch.compile(decode_one_token)
            frame, instance = self.functions[target.name], None
        elif isinstance(target, DriverMethod) and isinstance(target.owner, Instance) and method_of(
                target.owner.cls, target.name) is not None:  # torch.compile(diffusion.p_sample)
            frame, instance = method_of(target.owner.cls, target.name), target.owner
        else:
            raise StopReplay("compiled object")
        args = _positional(frame, instance is not None, args, kwargs or {}, self.functions)
        self.record(instance, frame, args, compiled.dynamic, compiled.line, node, regional)
        return self.after_call(frame, instance, args)

    def after_call(self, frame: ast.FunctionDef, instance: Instance | None, args: list):
        """What the call returns and the attributes it rebinds (a cache it grows), for the calls
        after it; a tensor attribute of a shape not followed is no longer known."""
        result, writes = call_effects(frame, instance, args, self.grad_mode == "grad", self.functions, self.imports)
        for name, value in writes.items():
            unknown_shape = isinstance(value, TensorValue) and value.shape is None
            instance.attributes[name] = UNKNOWN if unknown_shape else self.made_here(value)
        if self.grad_mode == "grad" and instance is not None and instance.has_opaque() \
                and not instance.has_parameters():
            return TensorValue(None, None)  # whether the output requires grad is not known
        if isinstance(result, ListValue):  # a tuple returned: each item, a tensor where not known
            return ListValue([self.made_here(item) if item is not UNKNOWN else TensorValue(None, None)
                              for item in result.items])
        if isinstance(result, TensorValue):
            return self.made_here(result)
        return TensorValue(None, None)

    @property
    def inference(self) -> bool:
        return self.grad_mode == "inference_mode"

    def made_here(self, value):
        """A tensor the call made: an inference tensor under inference_mode (measured: fed back
        after a normal tensor, it recompiles once; tuned/inference_tensors.py)."""
        return replace(value, inference=self.inference) if isinstance(value, TensorValue) else value

    def record(self, instance: Instance | None, frame: ast.FunctionDef | None, args: list,
               dynamic: bool | None, compile_line: int, node: ast.Call, regional: bool = False,
               skipped: bool = False) -> None:
        if frame is None:
            raise StopReplay("no forward")
        if self.device_scope:
            raise StopReplay("a compiled call under torch.device")
        if self.may_have_broken or self.may_have_returned:
            return  # the coarse replay's call that may not be made
        self.calls.append(Call(frame, instance, copy.copy(instance.attributes) if instance else {},
                               instance.training if instance else True, [_as_passed(a) for a in args], self.grad_mode,
                               self.autocast, dynamic, node.lineno, compile_line, regional, self.driver, skipped,
                               followed=not self.lenient))
        if self.open_loops:
            self.signatures[len(self.calls) - 1] = signature(self.calls[-1])


_GLOBAL = object()  # a name the function declares `global`: it reads and binds the module's


def _as_passed(value):
    """An argument as the call saw it: a tensor written in place later (TensorValue.write) is
    another description from then on."""
    return replace(value, dynamic_dims=set(value.dynamic_dims)) if isinstance(value, TensorValue) else value


def _fold(op, *operands) -> Const:
    folded = fold(op, *operands)
    if folded is None:
        raise StopReplay("arithmetic")
    return folded


def _positional(frame: ast.FunctionDef, is_method: bool, args: list, kwargs: dict,
                functions: dict[str, ast.FunctionDef]) -> list:
    """The frame's arguments by position (its guards read parameters by position): keywords put
    in their parameter's place, a constant default in a gap before them. Keywords its `**kwargs`
    takes and the frame never reads are guarded on nothing (measured: minRF's blocks,
    tuned/eager_forward_compiled_parts.py); where it reads them they follow the named
    parameters, as a dict where it only spreads them into functions of the file whose
    parameters they bind (keywords.py: gpt-fast's `**sampling_kwargs`), else not followed."""
    params = frame.args.args[1 if is_method else 0:]
    names = [p.arg for p in params]
    extra = {key: value for key, value in kwargs.items() if key not in names[len(args):]}
    if extra and not frame.args.kwarg:
        raise StopReplay("keywords the frame's named parameters do not take")
    kwargs = {key: value for key, value in kwargs.items() if key not in extra}
    read = frame.args.kwarg is not None and _reads(frame, frame.args.kwarg.arg)
    if not kwargs and not read:
        return args
    defaults = dict(zip(names[len(names) - len(frame.args.defaults):], frame.args.defaults))
    filled = list(args)
    last = len(names) if read else max(names.index(key) for key in kwargs) + 1
    for name in names[len(args):last]:
        default = defaults.get(name)
        filled.append(kwargs[name] if name in kwargs else Const(default.value) if isinstance(
            default, ast.Constant) else UNKNOWN)
    if not read:
        return filled
    plain = not extra or followed(frame, functions, extra) and not any(isinstance(v, TensorValue)
                                                                       for v in extra.values())
    return [*filled, DictValue(extra) if plain else UNKNOWN]


def _reads(frame: ast.FunctionDef, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(frame))
