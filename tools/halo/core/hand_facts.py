"""The facts the kernel-file validator decides on, as its own IR reader (validate.py) reads them.

The same facts, in the same shape, as llvm_reader.py gets from LLVM (see its docstring), worked
out with validate.py's own functions and expressions: what this module says is what the
validator saw, so that ir_agreement.py can hold it against what the compiler will build. Where
validate.py works a fact out inline, the expression is repeated here word for word; keep them
the same.
"""
from __future__ import annotations

import re
from types import SimpleNamespace

# The validator module (validate.py), handed in by facts(): validate.py asks ir_agreement.py, which
# asks this module, so importing it here would close a circle.
v = None

_ACCESS = ("load", "store", "atomicrmw", "cmpxchg")


def _local(name):
    """%name or @name with quotes taken off, as LLVM holds the name."""
    return name[0] + v._unquote(name[1:])


def operand(text):
    """An operand's value as llvm_reader.operand names it."""
    if text.startswith(("%", "@")):
        return _local(text)
    if re.fullmatch(r"-?\d+", text):
        return str(int(text))
    if text in ("true", "false"):
        return "-1" if text == "true" else "0"  # i1, sign-extended as LLVM reads it back
    if text.startswith("!"):
        return "metadata"
    return "const"


def _guard(f, *args):
    """A fact the hand reader cannot work out is a fact of its own ("unreadable"), which never
    equals LLVM's, rather than an exception that would hide the other facts."""
    try:
        return f(*args)
    except (ValueError, IndexError, KeyError, AttributeError, TypeError, RecursionError) as e:
        return ("unreadable", type(e).__name__)


def _bad_attrs(m, header):
    rest = v._after_params(header)  # as _IrCheck.check_definitions
    attrs = " ".join(m.attr_groups.get(int(g), "") for g in re.findall(r"#(\d+)", rest)) + " " + rest
    return sorted(attr for attr in v._BAD_FN_ATTRIBUTES
                  if re.search(r"(?<![\w\"-])" + attr + r"(?![\w\"-])", attrs))


def _function(m, name, header, fn):
    word = header.split()[1]
    section = re.search(r'section "([^"]*)"', v._after_params(header)) if fn else None
    return {"defined": fn is not None,
            "linkage": (word if word in v._LINKAGES else "external") if fn else
                       ("extern_weak" if word == "extern_weak" else "external"),
            "section": section.group(1) if section else None,
            "bad_attrs": _guard(_bad_attrs, m, header) if fn else [],
            "insts": [_instruction(m, fn, text) for text, _ in fn.insts] if fn else []}


def _call_args(body, callee):
    open_ = body.find("(", body.find(callee) + len(callee))  # as _IrCheck.check_call
    args = v._split_list(body[open_ + 1:body.rfind(")")]) if open_ >= 0 else []
    return tuple(operand(v._value(a)) for a in args if a != "")


def _alloca(m, body):
    if re.search(r", i\d+ %", body):  # as _IrCheck.check_function's variable-length array
        return "variable"
    t, end = v._parse_type(body, len("alloca "))  # as _IrCheck.extent
    count = re.match(r", i\d+ (\d+)", body[end:])
    return m.types.alloc(t) * (int(count.group(1)) if count else 1)


def _instruction(m, fn, text):
    d = v._LOCAL_DEF.match(text)
    refs = tuple(sorted({v._unquote(r) for r in v._GREF.findall(text)}))
    nosanitize = "!nosanitize" in text
    lhs = _local(d.group(1)) if d else None
    if "asm" in text and v._ASM.search(text):  # the validator stops reading an asm line here
        return (lhs, "asm", ("asm", "", ()), refs, nosanitize, None, None, None)
    body, op, callee, through_cast = v._read_instruction(text)
    call = None
    if callee is not None:
        if through_cast:
            call = ("cast", v._unquote(callee[1:]), ())
        elif callee.startswith("@"):
            args = _guard(_call_args, body, callee)
            call = ("direct", v._unquote(callee[1:]), args)
        else:
            call = ("indirect", "", ())
    size = pointer = alloca = None
    if op in _ACCESS:
        size, pointer = v._IrCheck.access(SimpleNamespace(m=m), body, op)
        pointer = operand(pointer) if pointer else None
    if op == "alloca":
        alloca = _guard(_alloca, m, body)
    return (lhs, op, call, refs, nosanitize, size, pointer, alloca)


def _global(m, name, kind, linkage, line, declaration):
    refs = sorted({v._unquote(r) for r in v._GREF.findall(v._CSTRING.sub("", line.split(" = ", 1)[1]))})
    section = re.search(r'section "([^"]*)"', line)  # as _IrCheck.check_globals
    size = None
    if kind == "constant" and not declaration:  # as _IrCheck.extent
        size = _guard(lambda: m.types.alloc(v._parse_type(line.split(" constant ", 1)[1])[0]))
    return {"kind": kind, "linkage": linkage, "declaration": declaration,
            "section": section.group(1) if section and kind not in ("alias", "ifunc") else None,
            "refs": refs, "size": size}


def _struct(m, name):
    t = m.types.resolve(("named", name))
    if t[0] != "struct":
        return None
    offsets = m.types.field_offsets(t)
    return (offsets[-1], tuple(offsets[:-1]))


def facts(ir_text: str, reader):
    """(facts, the bare names of the named types) of `ir_text` as validate.py reads it."""
    global v
    v = reader  # the same module on every call: threads may share it
    m = v._module(ir_text)  # the checks' own reading of the same text
    by_name = {fn.name: fn for fn in m.functions}
    functions = {name: _function(m, name, header, by_name[name]) for name, header in m.defined.items()}
    functions.update({name: _function(m, name, header, None) for name, header in m.declared.items()})
    return {"module_asm": bool(m.module_asm), "functions": functions,
            "globals": {name: _global(m, name, *g) for name, g in m.globals.items()},
            "types": {_local(t)[1:]: _guard(_struct, m, t) for t in m.named_types}}
