"""What one call of a compiled forward leaves for the next call, read from its source: the shape
of the tensor it returns (a sampler feeds it back: `x = model(x, t)`) and the module attributes it
rebinds (a key cache it concatenates onto, the longest length it has seen). Measured with torch
2.13 (tests/recompile_cases/tuned/fed_back.py, cache_growth.py): dynamo guards the next call on
what these became.

Only what follows from the inputs' shapes is known: shape-preserving layers, `nn.Linear`,
elementwise arithmetic and functions (with broadcasting), reductions over one dimension,
transposes, matmul, concatenation, `view`/`expand` to given sizes, `x.shape[i]`. Anything else
is UNKNOWN, and so is an attribute written where the replay cannot tell whether or what: the
next call that depends on it claims nothing.
"""
from __future__ import annotations

import ast
import math

from .arithmetic import ARITHMETIC, COMPARE, MATH_CONSTANTS, math_constant
from .declarations import pure
from .grads import function_result, inherited_parameter, layer_result, method_result
from .named_calls import library_tensor
from .shapes import (ShapeUnknown, broadcast, index_items, indexed, layer_output, matmul, requires_grad,
                     tensor_method, torch_function)
from .syntax import dotted, forward_of, is_self_attribute
from .values import UNKNOWN, Const, DictValue, Instance, Lambda, Layer, ListValue, ModuleDict, TensorValue

MAX_DEPTH = 4  # project submodules followed into
MAX_UNROLL = 64  # iterations of a loop over a known range
BUILTINS = {"min": min, "max": max, "int": int, "float": float, "abs": abs, "len": len, "range": range}
MATH = frozenset({"cos", "sin", "sqrt", "exp", "log", "floor", "ceil", "tanh"})
_COMPARE = {op: f for op, f in COMPARE.items() if op not in (ast.Is, ast.IsNot)}  # identity: `is None` only, apart


def call_effects(frame: ast.FunctionDef, instance: Instance | None, args: list, grad_enabled: bool,
                 functions: dict[str, ast.FunctionDef] | None = None,
                 imports: dict[str, str] | None = None) -> tuple[object, dict]:
    """The value the frame returns for these arguments (a TensorValue, possibly of unknown
    shape, or UNKNOWN) and the attributes of `instance` it rebinds (name -> value).
    `functions`: the file's functions; `imports`: its names for library functions
    (declarations.library_imports)."""
    reader = _Reader(grad_enabled, functions or {}, imports or {})
    return reader.run(frame, instance, args, 0)


class _Reader:
    def __init__(self, grad_enabled: bool, functions: dict[str, ast.FunctionDef], imports: dict[str, str]):
        self.grad_enabled = grad_enabled
        self.functions = functions
        self.imports = imports

    def run(self, frame: ast.FunctionDef, instance: Instance | None, args: list, depth: int):
        params = [a.arg for a in frame.args.args][1 if instance is not None else 0:]
        env: dict = {name: args[i] if i < len(args) else UNKNOWN for i, name in enumerate(params)}
        for default, name in zip(reversed(frame.args.defaults), reversed(params)):
            if params.index(name) >= len(args) and isinstance(default, ast.Constant):
                env[name] = Const(default.value)
        writes: dict = {}
        result = self.block(frame.body, _Scope(env, instance, writes, depth))
        return (UNKNOWN if result is None else result), writes

    # -- statements: the value returned, None while none was -----------------------------

    def block(self, statements: list[ast.stmt], scope: _Scope):
        for statement in statements:
            result = self.statement(statement, scope)
            if result is not None:
                return result
        return None

    def statement(self, node: ast.stmt, scope: _Scope):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            return ListValue([self.value(item, scope) for item in node.value.elts])  # known item by item
        if isinstance(node, ast.Return):
            return self.value(node.value, scope) if node.value is not None else Const(None)
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            self.assign(node.targets[0], self.value(node.value, scope), scope)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, self.value(node.value, scope), scope)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            combined = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
            self.assign(node.target, self.value(combined, scope), scope)
        elif isinstance(node, ast.AugAssign) and is_self_attribute(node.target):
            pass  # `self.step += 1`: frames.COUNTER counts it per call
        elif isinstance(node, ast.If):
            test = self.truth(node.test, scope)
            if isinstance(test, Const):
                return self.block(node.body if test.value else node.orelse, scope)
            self.forget(node, scope)
        elif isinstance(node, ast.For) and not node.orelse and _unrolled(self.value(node.iter, scope)) is not None:
            for item in _unrolled(self.value(node.iter, scope)):
                self.assign(node.target, item, scope)
                if self.block(node.body, scope) is not None:
                    return UNKNOWN  # a return inside a loop: not followed
        elif isinstance(node, ast.Expr):
            self.mutation(node.value, scope)
        elif not isinstance(node, (ast.Pass, ast.Assert)):
            self.forget(node, scope)
            if any(isinstance(n, ast.Return) for n in ast.walk(node)):
                return UNKNOWN
        return None

    def assign(self, target: ast.expr, value, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            scope.env[target.id] = value
        elif is_self_attribute(target) and scope.instance is not None:
            scope.writes[target.attr] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Const) and isinstance(value.value, tuple):  # B, T, C = x.size()
                value = ListValue([Const(item) for item in value.value])
            items = value.items if isinstance(value, ListValue) and len(value.items) == len(target.elts) else None
            for index, element in enumerate(target.elts):
                self.assign(element, items[index] if items else UNKNOWN, scope)
        elif isinstance(target, ast.Subscript):
            owner = target.value
            if is_self_attribute(owner) and not isinstance(scope.read(owner.attr), TensorValue):
                scope.writes[owner.attr] = UNKNOWN  # an item of a list or dict attribute
        # other targets write into tensors or objects the guards do not see here

    def forget(self, node: ast.stmt, scope: _Scope) -> None:
        """A statement not followed: what it may assign is no longer known."""
        for inner in ast.walk(node):
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target] if isinstance(
                inner, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        scope.env[name.id] = UNKNOWN
                    elif is_self_attribute(name) and not isinstance(inner, ast.AugAssign):
                        scope.writes[name.attr] = UNKNOWN
            if isinstance(inner, ast.Call):
                self.mutation(inner, scope)

    def mutation(self, node: ast.expr, scope: _Scope) -> None:
        """`self.history.append(x)`: a list or dict attribute changed in place; a list appended to
        is one item longer (its length is guarded: tuned/list_shapes.py)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_self_attribute(node.func.value):
            held = scope.read(node.func.value.attr)
            if isinstance(held, ListValue) and node.func.attr == "append" and len(node.args) == 1:
                scope.writes[node.func.value.attr] = ListValue([*held.items, UNKNOWN])
            elif isinstance(held, (ListValue, DictValue)):
                scope.writes[node.func.value.attr] = UNKNOWN

    # -- expressions ----------------------------------------------------------------------

    def truth(self, test: ast.expr, scope: _Scope):
        """An `if` test: `and`/`or` decided by one known operand where the others only read
        (DCGAN's `if (input.is_cuda or input.is_xpu) and self.ngpu > 1:` with ngpu 1)."""
        if not (isinstance(test, ast.BoolOp) and pure(test)):
            return self.value(test, scope)
        known = [self.value(operand, scope) for operand in test.values]
        deciding = isinstance(test.op, ast.Or)  # the truth one operand decides the whole by
        if any(isinstance(v, Const) and bool(v.value) == deciding for v in known):
            return Const(deciding)
        return Const(not deciding) if all(isinstance(v, Const) for v in known) else UNKNOWN

    def value(self, node: ast.expr, scope: _Scope):
        try:
            return self.expr(node, scope)
        except (ShapeUnknown, ArithmeticError, TypeError, ValueError, IndexError, KeyError, RecursionError):
            return UNKNOWN

    def expr(self, node: ast.expr, scope: _Scope):
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            found = scope.env.get(node.id, UNKNOWN)
            if found is UNKNOWN:
                raise ShapeUnknown(node.id)
            return found
        if is_self_attribute(node) and scope.instance is not None:
            found = scope.read(node.attr)
            if found is UNKNOWN:
                raise ShapeUnknown(node.attr)
            return found
        if dotted(node) in MATH_CONSTANTS:
            return math_constant(dotted(node))  # math.pi
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "ndim") and not _named(node.value):
            owner = self.expr(node.value, scope)
            if isinstance(owner, TensorValue) and owner.shape is not None and all(
                    isinstance(size, int) for size in owner.shape):
                return Const(tuple(owner.shape) if node.attr == "shape" else len(owner.shape))
            raise ShapeUnknown("shape")
        if isinstance(node, ast.Attribute) and not _named(node.value):
            owner = self.expr(node.value, scope)
            if isinstance(owner, ModuleDict) and node.attr in owner.items:
                return owner.items[node.attr]  # self.transformer.h
            if isinstance(owner, TensorValue) and node.attr == "T":  # `self.weight.T`: its dimensions reversed
                return TensorValue(owner.shape[::-1] if owner.shape is not None else None,
                                   self.grad_enabled and owner.requires_grad, view=True)
            raise ShapeUnknown(node.attr)
        if isinstance(node, ast.Tuple):
            items = [self.expr(e, scope) for e in node.elts]
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            return ListValue(items)
        if isinstance(node, ast.List):
            return ListValue([self.expr(e, scope) for e in node.elts])
        if isinstance(node, ast.BinOp):
            return self.binary(node, scope)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            operand = self.expr(node.operand, scope)
            if isinstance(operand, TensorValue):
                return operand
            return Const(-operand.value if isinstance(node.op, ast.USub) else not operand.value) \
                if isinstance(operand, Const) else _fail()
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            left = self.expr(node.left, scope)  # `targets is not None`
            if not isinstance(left, (Const, TensorValue, Layer, Instance)):
                raise ShapeUnknown("identity")
            return Const((isinstance(left, Const) and left.value is None) == isinstance(node.ops[0], ast.Is))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            left, right = self.expr(node.left, scope), self.expr(node.comparators[0], scope)
            if isinstance(left, Const) and isinstance(right, Const):
                return Const(_COMPARE[type(node.ops[0])](left.value, right.value))
            return self.tensor(broadcast(left, right), False)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, scope)
        if isinstance(node, ast.IfExp):  # `torch.randn_like(x) if t > 0 else 0.`: the branch t picks
            test = self.expr(node.test, scope)
            return self.expr(node.body if test.value else node.orelse, scope) if isinstance(test, Const) else _fail()
        if isinstance(node, ast.ListComp) and len(node.generators) == 1 and not node.generators[0].ifs:
            generator, items = node.generators[0], []
            source = self.expr(generator.iter, scope)
            for item in source.items if isinstance(source, ListValue) else _fail():
                inner = _Scope(dict(scope.env), scope.instance, scope.writes, scope.depth)
                self.assign(generator.target, item, inner)
                items.append(self.expr(node.elt, inner))
            return ListValue(items)
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        raise ShapeUnknown(type(node).__name__)

    def tensor(self, shape: tuple | None, grad: bool | None) -> TensorValue:
        return TensorValue(shape, self.grad_enabled and grad)

    def binary(self, node: ast.BinOp, scope: _Scope):
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        if isinstance(left, Const) and isinstance(right, Const) and type(node.op) in ARITHMETIC:
            return Const(ARITHMETIC[type(node.op)](left.value, right.value))
        grad = requires_grad(left, right)
        if isinstance(node.op, ast.MatMult):
            return self.tensor(matmul(left, right), grad)
        return self.tensor(broadcast(left, right), grad)

    def subscript(self, node: ast.Subscript, scope: _Scope):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            owner, index = self.expr(node.value.value, scope), self.expr(node.slice, scope)
            if isinstance(owner, TensorValue) and owner.shape is not None and isinstance(index, Const) \
                    and isinstance(index.value, int) and isinstance(owner.shape[index.value], int):
                return Const(owner.shape[index.value])
            raise ShapeUnknown("size")
        owner = self.expr(node.value, scope)
        if isinstance(owner, TensorValue):
            return self.tensor(indexed(owner.shape, index_items(node.slice, lambda n: self.value(n, scope))),
                               owner.requires_grad)
        index = self.expr(node.slice, scope)
        if isinstance(owner, ListValue) and isinstance(index, Const) and isinstance(index.value, int):
            return owner.items[index.value]
        if isinstance(owner, Const) and isinstance(index, Const):
            return Const(owner.value[index.value])
        raise ShapeUnknown("subscript")

    def module(self, func: ast.expr, scope: _Scope):
        """The module a call calls: `self.mlp`, `self.transformer.wte` (in a ModuleDict), or a
        name bound to one (`for block in self.blocks: x = block(x)`); None for anything else."""
        if isinstance(func, ast.Name):
            found = scope.env.get(func.id)
        elif is_self_attribute(func) and scope.instance is not None:
            found = scope.read(func.attr)
        elif isinstance(func, ast.Attribute) and not _named(func.value):
            owner = self.module(func.value, scope)
            found = owner.items.get(func.attr) if isinstance(owner, ModuleDict) else None
        else:
            found = None
        return found if isinstance(found, (Layer, Instance, ModuleDict, ListValue, Lambda)) else None

    def module_output(self, module: Layer | Instance | ListValue | Lambda, args: list, scope: _Scope):
        if isinstance(module, Lambda):  # minGPT's `self.mlpf = lambda x: m.dropout(...)`: its body on the args
            if module.node is None or module.node.args.vararg or len(module.node.args.args) != len(args):
                raise ShapeUnknown("lambda")
            env = {**(module.env or {}), **{a.arg: value for a, value in zip(module.node.args.args, args)}}
            return self.expr(module.node.body, _Scope(env, None, scope.writes, scope.depth + 1))
        if isinstance(module, ListValue):  # an nn.Sequential: each module on the last one's output
            for item in module.items:
                args = [self.module_output(item, args, scope)] if isinstance(item, (Layer, Instance)) else _fail()
            return args[0]
        if isinstance(module, Layer):
            try:
                return layer_output(module, args, self.grad_enabled)
            except ShapeUnknown:
                return layer_result(module.name, args, self.grad_enabled) or _fail()
        forward = forward_of(module.cls)
        if forward is None or scope.depth >= MAX_DEPTH:
            raise ShapeUnknown("module call")
        result, writes = self.run(forward, module, args, scope.depth + 1)
        if writes:
            raise ShapeUnknown("a submodule's own state")
        return result

    def call(self, node: ast.Call, scope: _Scope):
        func = node.func
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ShapeUnknown("starred")
        args = [self.value(a, scope) for a in node.args]  # one not known (`.to(t.device)`) may not matter
        kwargs = {k.arg: self.value(k.value, scope) for k in node.keywords if k.arg}
        module = self.module(func, scope)
        if isinstance(module, (Layer, Instance, ListValue, Lambda)):
            return self.module_output(module, args, scope)
        if isinstance(func, ast.Attribute) and is_self_attribute(func) and scope.instance is not None:
            method = next((n for n in scope.instance.cls.body
                           if isinstance(n, ast.FunctionDef) and n.name == func.attr and _plain_or_static(n)), None)
            if scope.read(func.attr) is UNKNOWN and method is not None and scope.depth < MAX_DEPTH:
                # self.get_scalings(sigma); a @staticmethod takes no self
                instance = scope.instance if not method.decorator_list else None
                result, writes = self.run(method, instance, args, scope.depth + 1)
                if writes:
                    raise ShapeUnknown("a method's writes")
                return result
            raise ShapeUnknown("module call")
        if isinstance(func, ast.Attribute) and not _named(func.value):
            owner = self.expr(func.value, scope)
            if isinstance(owner, TensorValue):
                try:
                    return tensor_method(owner, func.attr, args, kwargs, self.grad_enabled)
                except ShapeUnknown:
                    return method_result(owner, func.attr, args, self.grad_enabled) or _fail()
            raise ShapeUnknown("method")
        name = dotted(func)
        short = name.rsplit(".", 1)[-1]
        if name in self.functions and scope.depth < MAX_DEPTH:
            return self.run(self.functions[name], None, args, scope.depth + 1)[0]
        if name.startswith(("torch.", "F.", "nn.functional.")):
            try:
                return torch_function(short, args, kwargs, self.grad_enabled)
            except ShapeUnknown:
                return function_result(short, args, kwargs, self.grad_enabled) or _fail()
        library = self.imports.get(name.split(".")[0])
        if library is not None:  # einops' rearrange
            return library_tensor(library + name[len(name.split(".")[0]):], args, kwargs, self.grad_enabled)
        if name in BUILTINS and all(isinstance(a, Const) for a in args):
            return Const(BUILTINS[name](*(a.value for a in args)))
        if name.startswith("math.") and short in MATH and all(isinstance(a, Const) for a in args):
            return Const(getattr(math, short)(*(a.value for a in args)))
        raise ShapeUnknown(name or "call")

class _Scope:
    """One frame's names, the module it runs on, and the attributes it has rebound so far."""

    def __init__(self, env: dict, instance: Instance | None, writes: dict, depth: int):
        self.env, self.instance, self.writes, self.depth = env, instance, writes, depth

    def read(self, name: str):
        if name in self.writes:
            return self.writes[name]
        if self.instance is None:
            return UNKNOWN
        return self.instance.attributes.get(name, inherited_parameter(self.instance.cls, name) or UNKNOWN)


def _unrolled(value) -> list | None:
    """The items of a loop the reader unrolls: over a range it knows, of at most MAX_UNROLL
    steps, or over a list of modules (`for block in self.h`); None for any other loop."""
    if isinstance(value, Const) and isinstance(value.value, range) and len(value.value) <= MAX_UNROLL:
        return [Const(item) for item in value.value]
    if isinstance(value, ListValue) and 0 < len(value.items) <= MAX_UNROLL and all(
            isinstance(item, (Layer, Instance)) for item in value.items):
        return list(value.items)
    return None


def _plain_or_static(method: ast.FunctionDef) -> bool:
    """A method without decorators, or a @staticmethod."""
    return not method.decorator_list or [dotted(d) for d in method.decorator_list] == ["staticmethod"]


def _fail():
    raise ShapeUnknown("operand")


def _named(node: ast.expr) -> bool:
    """`torch`, `F`, `nn.functional`: a module name, not a value of the frame."""
    return isinstance(node, ast.Name) and node.id in ("torch", "F", "nn", "math") or isinstance(
        node, ast.Attribute) and _named(node.value)

