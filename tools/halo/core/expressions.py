"""The workbook's expression language: check, evaluate, print numbers, translate to C++.

Expressions come from chapters/*/questions.toml. They are parsed with Python's `ast` and every
node is checked against a whitelist before anything is evaluated, so an expression can reach
nothing but numbers, the names it is given and the functions it is given.

Language: int/float literals, names, list literals, unary + and -, binary + - * /, parentheses,
calls of plain names, and subscripts `xs[i]` with a non-negative integer index. `/` is true
division. All numbers are evaluated as floats, like the `double`s of the generated C++.
"""
from __future__ import annotations

import ast
import functools
import math
from typing import Callable, Iterable, Mapping, Optional, Union

Value = Union[float, list]


class ExpressionError(ValueError):
    """An expression that is malformed, uses a construct outside the language, or fails."""


# ---------------------------------------------------------------- builtins

def _numbers(fname: str, *args) -> None:
    for a in args:
        if isinstance(a, list):
            raise ExpressionError(f"{fname}() takes numbers, not a list")


def _extreme(pick, fname: str, args: tuple) -> float:
    # min(xs) with one list is allowed too, as in Python.
    if len(args) == 1 and isinstance(args[0], list):
        args = tuple(args[0])
    if not args:
        raise ExpressionError(f"{fname}() needs at least one number")
    _numbers(fname, *args)
    return pick(args)


def _min(*args) -> float:
    return _extreme(min, "min", args)


def _max(*args) -> float:
    return _extreme(max, "max", args)


def floor_div(a: float, b: float) -> float:
    """floor(a / b): the book's integer division, also for negative a (floor_div(-7, 2) = -4)."""
    _numbers("floor_div", a, b)
    if b == 0:
        raise ExpressionError("floor_div(): division by zero")
    return float(math.floor(a / b))


def ceil_div(a: float, b: float) -> float:
    """ceil(a / b), e.g. the number of blocks of b threads that cover a elements."""
    _numbers("ceil_div", a, b)
    if b == 0:
        raise ExpressionError("ceil_div(): division by zero")
    return float(math.ceil(a / b))


def conv1d(N: list, M: list) -> list:
    """The book's 1D convolution (no mask flip): P[i] = sum_j N[i - n + j] * M[j], n = len(M)//2.

    Elements of N outside the array (ghost cells) count as 0. P has the length of N.
    """
    if not isinstance(N, list) or not isinstance(M, list):
        raise ExpressionError("conv1d() takes two lists: conv1d(N, M)")
    if not M:
        raise ExpressionError("conv1d(): the mask M is empty")
    n = len(M) // 2
    return [float(sum(N[i - n + j] * M[j] for j in range(len(M)) if 0 <= i - n + j < len(N)))
            for i in range(len(N))]


BUILTIN_FUNCTIONS: dict[str, Callable] = {
    "min": _min, "max": _max, "floor_div": floor_div, "ceil_div": ceil_div, "conv1d": conv1d,
}
BUILTINS = frozenset(BUILTIN_FUNCTIONS)
# Argument counts the builtins need; None means "one or more".
BUILTIN_ARITY: dict[str, Optional[int]] = {
    "min": None, "max": None, "floor_div": 2, "ceil_div": 2, "conv1d": 2,
}

# ---------------------------------------------------------------- checking

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}

# How rejected constructs are named in error messages.
_DESCRIPTIONS = {
    ast.Attribute: "attribute access ('.')",
    ast.Pow: "'**' (power)",
    ast.FloorDiv: "'//' (write floor_div(a, b) for integer division)",
    ast.Mod: "'%' (remainder)",
    ast.MatMult: "'@'",
    ast.LShift: "'<<'", ast.RShift: "'>>'",
    ast.BitAnd: "'&'", ast.BitOr: "'|'", ast.BitXor: "'^'",
    ast.Not: "'not'", ast.Invert: "'~'",
    ast.Compare: "a comparison",
    ast.BoolOp: "'and'/'or'",
    ast.keyword: "a keyword argument",
    ast.Starred: "'*' unpacking",
    ast.Lambda: "a lambda",
    ast.IfExp: "a conditional expression (x if c else y)",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension", ast.GeneratorExp: "a comprehension",
    ast.Tuple: "a tuple", ast.Set: "a set", ast.Dict: "a dict",
    ast.Slice: "a slice",
    ast.NamedExpr: "':=' assignment",
    ast.JoinedStr: "an f-string", ast.FormattedValue: "an f-string",
    ast.Await: "'await'", ast.Yield: "'yield'", ast.YieldFrom: "'yield'",
}
_CONSTANT_DESCRIPTIONS = {
    str: "a string", bytes: "a bytes literal", bool: "a boolean", type(None): "None",
    complex: "a complex number", type(Ellipsis): "'...'",
}


def _not_allowed(node: ast.AST, src: str, what: Optional[str] = None) -> ExpressionError:
    if what is None:
        what = _DESCRIPTIONS.get(type(node), f"'{type(node).__name__}'")
    segment = ast.get_source_segment(src, node) if hasattr(node, "lineno") else None
    at = f" (at {segment!r})" if segment and segment != src else ""
    return ExpressionError(f"{what} is not allowed in expression {src!r}{at}; expressions use "
                           "numbers, names, + - * /, parentheses, f(x) calls, lists and [index]")


def _check(node: ast.AST, src: str) -> None:
    """Raise ExpressionError at the first node outside the whitelist."""
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise _not_allowed(node, src, _CONSTANT_DESCRIPTIONS.get(type(node.value)))
    elif isinstance(node, ast.Name):
        pass
    elif isinstance(node, ast.List):
        for element in node.elts:
            _check(element, src)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.UAdd, ast.USub)):
            raise _not_allowed(node, src, _DESCRIPTIONS.get(type(node.op)))
        _check(node.operand, src)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _OPS:
            raise _not_allowed(node, src, _DESCRIPTIONS.get(type(node.op)))
        _check(node.left, src)
        _check(node.right, src)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):
            if isinstance(node.func, ast.Attribute):
                raise _not_allowed(node.func, src)
            raise _not_allowed(node, src, "calling something other than a plain function name")
        for kw in node.keywords:
            raise _not_allowed(kw, src, f"a keyword argument ({kw.arg or '**'}=...)")
        for arg in node.args:
            _check(arg, src)
    elif isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(index, getattr(ast, "Index", ())):  # Python < 3.9 wraps the index
            index = index.value
        if isinstance(index, ast.Constant) and (type(index.value) is not int or index.value < 0):
            raise _not_allowed(index, src, f"the index {index.value!r} (indexes are integers >= 0)")
        _check(node.value, src)
        _check(index, src)
    else:
        raise _not_allowed(node, src)


@functools.lru_cache(maxsize=4096)
def parse(expr: str) -> ast.expr:
    """The checked AST of `expr`; ExpressionError if it is not in the language."""
    if not isinstance(expr, str):
        raise ExpressionError(f"an expression must be a string, not {type(expr).__name__}")
    src = expr.strip()  # leading blanks would be an "unexpected indent"
    if not src:
        raise ExpressionError("the expression is empty")
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise ExpressionError(f"syntax error in expression {src!r}: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError) as e:
        raise ExpressionError(f"cannot parse expression {src!r}: {e}") from None
    _check(tree.body, src)
    return tree.body


def _index_node(node: ast.Subscript) -> ast.expr:
    index = node.slice
    return index.value if isinstance(index, getattr(ast, "Index", ())) else index


def names_used(expr: str) -> set[str]:
    """Names an expression reads as values (not the names of functions it calls)."""
    node = parse(expr)
    callees = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in callees}


def calls_used(expr: str) -> set[str]:
    """Names of the functions an expression calls."""
    return {name for name, _ in call_sites(expr)}


def call_sites(expr: str) -> list[tuple[str, int]]:
    """(function name, number of arguments) of every call, to check arities before evaluating."""
    return [(n.func.id, len(n.args)) for n in ast.walk(parse(expr)) if isinstance(n, ast.Call)]


# ---------------------------------------------------------------- evaluating

def _as_value(v, what: str) -> Value:
    """A number or list given from outside, as the evaluator's float or list of floats."""
    if isinstance(v, bool):
        raise ExpressionError(f"{what} is a boolean, not a number")
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, (list, tuple)):
        out = []
        for k, item in enumerate(v):
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                raise ExpressionError(f"{what}[{k}] is {type(item).__name__}, not a number")
            out.append(float(item))
        return out
    raise ExpressionError(f"{what} is {type(v).__name__}, not a number or a list of numbers")


def _number(v: Value, what: str, src: str) -> float:
    if isinstance(v, list):
        raise ExpressionError(f"{what} needs a number, got a list, in expression {src!r}")
    return v


# An expression is turned into nested Python closures once (_compiled, cached by its text), each
# doing what its node says with the same checks and messages as a walk of the tree would: the
# chapter's formulas are evaluated some 650,000 times by the load-count tests of one section
# (tests/test_keys_7_5.py), where walking the tree each time took most of their 7 s.

def _compile(node: ast.expr, src: str) -> Callable:
    """fn(env, functions) -> Value for the checked node."""
    if isinstance(node, ast.Constant):
        value = float(node.value)
        return lambda env, functions: value
    if isinstance(node, ast.Name):
        name = node.id

        def read(env, functions):
            if name not in env:
                raise ExpressionError(f"unknown name {name!r} in expression {src!r}")
            v = env[name]
            return v if type(v) is float else _as_value(v, name)
        return read
    if isinstance(node, ast.List):
        elements = [_compile(e, src) for e in node.elts]
        return lambda env, functions: [_number(e(env, functions), "a list element", src) for e in elements]
    if isinstance(node, ast.UnaryOp):
        operand, negate = _compile(node.operand, src), isinstance(node.op, ast.USub)

        def unary(env, functions):
            v = _number(operand(env, functions), "unary minus/plus", src)
            return -v if negate else v
        return unary
    if isinstance(node, ast.BinOp):
        op = _OPS[type(node.op)]
        left, right, what = _compile(node.left, src), _compile(node.right, src), f"'{op}'"

        def binary(env, functions):
            a, b = left(env, functions), right(env, functions)
            if type(a) is not float or type(b) is not float:  # a list: the message _number gives
                a, b = _number(a, what, src), _number(b, what, src)
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if b == 0:
                raise ExpressionError(f"division by zero in expression {src!r}")
            return a / b
        return binary
    if isinstance(node, ast.Call):
        name, arguments = node.func.id, [_compile(a, src) for a in node.args]
        arity = BUILTIN_ARITY.get(name)  # formulas check their own argument counts
        builtin = BUILTIN_FUNCTIONS.get(name)

        def call(env, functions):
            function = builtin or functions.get(name)  # a builtin keeps its meaning whatever `functions` holds
            if function is None:
                raise ExpressionError(f"unknown function {name!r} in expression {src!r}")
            args = [a(env, functions) for a in arguments]
            if arity is not None and len(args) != arity:
                raise ExpressionError(f"{name}() takes {arity} arguments, got {len(args)}, "
                                      f"in expression {src!r}")
            v = function(*args)
            return v if type(v) is float else _as_value(v, f"the result of {name}()")
        return call
    if isinstance(node, ast.Subscript):
        sequence, index = _compile(node.value, src), _compile(_index_node(node), src)

        def subscript(env, functions):
            seq = sequence(env, functions)
            if not isinstance(seq, list):
                raise ExpressionError(f"indexing a number, not a list, in expression {src!r}")
            i = _number(index(env, functions), "an index", src)
            if not i.is_integer() or not 0 <= i < len(seq):
                raise ExpressionError(f"index {format_number(i)} is not in 0..{len(seq) - 1}, "
                                      f"in expression {src!r}")
            return seq[int(i)]
        return subscript
    raise _not_allowed(node, src)  # unreachable: parse() checked the tree


@functools.lru_cache(maxsize=4096)
def _compiled(expr: str) -> Callable:
    return _compile(parse(expr), expr.strip())


def evaluate(expr: str, env: Optional[Mapping] = None,
             functions: Optional[Mapping[str, Callable]] = None) -> Value:
    """The value of `expr`: a float or a list of floats.

    `env` maps names to numbers or lists of numbers; `functions` adds callables (the chapter's
    formulas) to the builtins, which keep their meaning whatever `functions` holds.
    """
    run = _compiled(expr) if isinstance(expr, str) else parse(expr)  # parse() names a non-string's type
    return run(env or {}, functions or {})


# ---------------------------------------------------------------- printing numbers

def format_number(x) -> str:
    """`22` for integral values, otherwise at most 6 decimals with trailing zeros trimmed."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return repr(x)
    if x.is_integer():
        return str(int(x))
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    if text in ("0", "-0"):  # a tiny value: keep 6 significant digits rather than print 0
        text = f"{x:.6g}"
    return text


def format_value(v) -> str:
    """A number via format_number, a list as `[8, 21, 13]`."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_number(x) for x in v) + "]"
    return format_number(v)


# ---------------------------------------------------------------- C++ translation

# Names that cannot be C++ parameter or variable names.
CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq
""".split())

_CPP_BUILTINS = {"min": "std::min", "max": "std::max", "floor_div": "floor_div",
                 "ceil_div": "ceil_div"}
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}
_UNARY, _ATOM = 3, 4


def _cpp_literal(v) -> str:
    text = repr(float(v))  # '2.0', '0.1', '1e+20': all valid C++ double literals
    if text in ("inf", "nan"):
        raise ExpressionError(f"the number {text} has no C++ literal")
    return text


def _cpp(node: ast.expr, known: Iterable[str], src: str) -> tuple[str, int]:
    """C++ text of `node` and its precedence, to parenthesize only where C++ needs it."""
    if isinstance(node, ast.Constant):
        return _cpp_literal(node.value), _ATOM
    if isinstance(node, ast.Name):
        if node.id in CPP_KEYWORDS:
            raise ExpressionError(f"the name {node.id!r} is a C++ keyword, in expression {src!r}")
        return node.id, _ATOM
    if isinstance(node, ast.UnaryOp):
        text, prec = _cpp(node.operand, known, src)
        if prec <= _UNARY:  # also keeps "- -x" from becoming the decrement "--x"
            text = f"({text})"
        return ("-" if isinstance(node.op, ast.USub) else "+") + text, _UNARY
    if isinstance(node, ast.BinOp):
        op = _OPS[type(node.op)]
        (lt, lp), (rt, rp) = _cpp(node.left, known, src), _cpp(node.right, known, src)
        p = _PREC[op]
        lt = f"({lt})" if lp < p else lt
        rt = f"({rt})" if rp <= p else rt  # left-associative: a - (b - c) keeps its parentheses
        return f"{lt} {op} {rt}", p
    if isinstance(node, ast.Call):
        name = node.func.id
        args = [_cpp(a, known, src)[0] for a in node.args]
        if name in ("min", "max"):
            if len(args) < 2:
                raise ExpressionError(f"{name}() needs at least 2 numbers in C++, "
                                      f"in expression {src!r}")
            text = args[-1]
            for a in reversed(args[:-1]):  # std::min takes two: nest min(a, b, c)
                text = f"{_CPP_BUILTINS[name]}({a}, {text})"
            return text, _ATOM
        if name in _CPP_BUILTINS or name in known:
            return f"{_CPP_BUILTINS.get(name, name)}({', '.join(args)})", _ATOM
        if name in BUILTINS:
            raise ExpressionError(f"{name}() is not available in C++ (it works on lists), "
                                  f"in expression {src!r}")
        raise ExpressionError(f"unknown function {name!r} in expression {src!r}")
    if isinstance(node, (ast.List, ast.Subscript)):
        raise ExpressionError(f"lists and indexing are not available in C++, in expression {src!r}")
    raise _not_allowed(node, src)


def to_cpp(expr: str, known_functions: Iterable[str] = ()) -> str:
    """A C++ expression over `double` for the scalar expression `expr`.

    Calls of `known_functions` are kept by name; min/max become std::min/std::max; floor_div and
    ceil_div stay calls of the helpers the generated header defines.
    """
    return _cpp(parse(expr), frozenset(known_functions), expr.strip())[0]
