"""The facts the kernel-file validator decides on, read from LLVM IR by LLVM itself.

validate.py reads clang's IR text with a reader of its own. A reader that disagrees with LLVM
about where an instruction ends, what a call calls or what a name is would let a construct
through that the compiler then builds, so ir_agreement.py compares that reader with this one and
refuses a file on any difference. This module parses the text with LLVM's own parser (the C API
of the libLLVM that clang itself links against, through ctypes: no package beyond clang's own)
and walks the module LLVM built, never the text.

The facts, as plain Python values so that the two readers' can be compared with ==:
  module_asm: whether the module has file-scope asm
  functions:  name -> {defined, linkage, section, bad_attrs, insts}
  globals:    name -> {kind, linkage, declaration, section, refs, size}
  types:      named struct -> (alloc size, field offsets)
  insts:      per instruction (calls to llvm.dbg.* left out, as the validator leaves them out):
              (lhs, opcode, call, refs, nosanitize, access size, pointer, alloca)
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import glob
import json
import marshal
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# llvm-c/Core.h's LLVMOpcode (stable by contract: "External users depend on these values").
OPCODES = {
    1: "ret", 2: "br", 3: "switch", 4: "indirectbr", 5: "invoke", 7: "unreachable", 67: "callbr", 66: "fneg",
    8: "add", 9: "fadd", 10: "sub", 11: "fsub", 12: "mul", 13: "fmul", 14: "udiv", 15: "sdiv", 16: "fdiv",
    17: "urem", 18: "srem", 19: "frem", 20: "shl", 21: "lshr", 22: "ashr", 23: "and", 24: "or", 25: "xor",
    26: "alloca", 27: "load", 28: "store", 29: "getelementptr", 30: "trunc", 31: "zext", 32: "sext",
    33: "fptoui", 34: "fptosi", 35: "uitofp", 36: "sitofp", 37: "fptrunc", 38: "fpext", 39: "ptrtoint",
    40: "inttoptr", 41: "bitcast", 60: "addrspacecast", 42: "icmp", 43: "fcmp", 44: "phi", 45: "call",
    46: "select", 49: "va_arg", 50: "extractelement", 51: "insertelement", 52: "shufflevector",
    53: "extractvalue", 54: "insertvalue", 68: "freeze", 55: "fence", 56: "cmpxchg", 57: "atomicrmw",
    58: "resume", 59: "landingpad", 61: "cleanupret", 62: "catchret", 63: "catchpad", 64: "cleanuppad",
    65: "catchswitch",
}
# llvm-c/Core.h's LLVMLinkage, as the IR text spells each.
LINKAGES = {0: "external", 1: "available_externally", 2: "linkonce", 3: "linkonce_odr", 5: "weak",
            6: "weak_odr", 7: "appending", 8: "internal", 9: "private", 12: "extern_weak", 14: "common"}
# The function attributes the validator refuses (validate._BAD_FN_ATTRIBUTES), by LLVM's name.
BAD_ATTRIBUTES = ("nosanitize_coverage", "disable_sanitizer_instrumentation", "naked", "optnone")
_FUNCTION_INDEX = 0xFFFFFFFF  # LLVMAttributeFunctionIndex
_VOID, _STRUCT = 0, 10        # LLVMTypeKind
_ACCESS_VALUE_OPERAND = {"store": 0, "atomicrmw": 1, "cmpxchg": 1}
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/
_UNAVAILABLE = 4  # the child's status for a module when there is no LLVM to load


class ReaderUnavailable(Exception):
    """No libLLVM matching the compiler could be loaded."""


# Where the compiler's version is kept between processes (tool_versions.py): the compile launcher
# names its build folder, where grade keeps clang++'s already; None asks every time. One
# `clang --version` was 30 ms of CPU of every kernel compile.
VERSIONS_FOLDER = None
_VERSION = r"version (\d+)\.(\d+)"


def _asked_version(cmd, pattern):
    try:
        out = subprocess.run([cmd, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(pattern, out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _clang_major(clang):
    from .tool_versions import Versions
    versions = Versions(_asked_version, VERSIONS_FOLDER)
    found = versions.version(clang, _VERSION)
    versions.save()
    return found[0] if found else None


def library_candidates(clang):
    """Where the libLLVM of this clang may be: beside the compiler (Debian's /usr/lib/llvm-14,
    Homebrew's llvm), then by the compiler's major version on the loader's path. Only the
    compiler's own version: IR of one version is not always valid in another."""
    real = os.path.realpath(clang)
    major = _clang_major(real)
    lib = os.path.join(os.path.dirname(os.path.dirname(real)), "lib")
    found = []
    if major is not None:
        found += sorted(glob.glob(os.path.join(lib, f"libLLVM-{major}*.so*")))
        found += sorted(glob.glob(os.path.join(lib, f"libLLVM.so.{major}*")))
        found += [f"libLLVM-{major}.so.1", f"libLLVM-{major}.so", f"libLLVM.so.{major}"]
    found += sorted(glob.glob(os.path.join(lib, "libLLVM.dylib")))
    return found


def _bind(lib):
    """Argument and result types of the C API functions used here."""
    P, U, S, I, B = ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t, ctypes.c_int, ctypes.c_bool
    sigs = {
        "LLVMContextCreate": ([], P), "LLVMContextDispose": ([P], None), "LLVMDisposeModule": ([P], None),
        "LLVMCreateMemoryBufferWithMemoryRangeCopy": ([ctypes.c_char_p, S, ctypes.c_char_p], P),
        "LLVMParseIRInContext": ([P, P, ctypes.POINTER(P), ctypes.POINTER(P)], I),
        "LLVMVerifyModule": ([P, I, ctypes.POINTER(P)], I), "LLVMDisposeMessage": ([P], None),
        "LLVMGetModuleInlineAsm": ([P, ctypes.POINTER(S)], P),
        "LLVMGetModuleDataLayout": ([P], P),
        "LLVMGetFirstFunction": ([P], P), "LLVMGetNextFunction": ([P], P),
        "LLVMGetFirstGlobal": ([P], P), "LLVMGetNextGlobal": ([P], P),
        "LLVMGetFirstGlobalAlias": ([P], P), "LLVMGetNextGlobalAlias": ([P], P),
        "LLVMGetFirstGlobalIFunc": ([P], P), "LLVMGetNextGlobalIFunc": ([P], P),
        "LLVMGetValueName2": ([P, ctypes.POINTER(S)], P), "LLVMTypeOf": ([P], P),
        "LLVMGetTypeKind": ([P], I), "LLVMIsDeclaration": ([P], I), "LLVMGetLinkage": ([P], I),
        "LLVMGetSection": ([P], ctypes.c_char_p), "LLVMIsGlobalConstant": ([P], I),
        "LLVMGetInitializer": ([P], P), "LLVMAliasGetAliasee": ([P], P), "LLVMGetGlobalIFuncResolver": ([P], P),
        "LLVMGlobalGetValueType": ([P], P),
        "LLVMGetEnumAttributeKindForName": ([ctypes.c_char_p, S], U),
        "LLVMGetEnumAttributeAtIndex": ([P, U, U], P),
        "LLVMCountParams": ([P], U), "LLVMGetParam": ([P, U], P),
        "LLVMGetFirstBasicBlock": ([P], P), "LLVMGetNextBasicBlock": ([P], P),
        "LLVMGetBasicBlockName": ([P], ctypes.c_char_p),
        "LLVMGetFirstInstruction": ([P], P), "LLVMGetNextInstruction": ([P], P),
        "LLVMGetInstructionOpcode": ([P], I), "LLVMGetNumOperands": ([P], I), "LLVMGetOperand": ([P, U], P),
        "LLVMGetNumArgOperands": ([P], U), "LLVMGetCalledValue": ([P], P), "LLVMGetConstOpcode": ([P], I),
        "LLVMGetMDKindIDInContext": ([P, ctypes.c_char_p, U], U), "LLVMGetMetadata": ([P, U], P),
        "LLVMGetAllocatedType": ([P], P), "LLVMConstIntGetSExtValue": ([P], ctypes.c_longlong),
        "LLVMStoreSizeOfType": ([P, P], ctypes.c_ulonglong), "LLVMABISizeOfType": ([P, P], ctypes.c_ulonglong),
        "LLVMOffsetOfElement": ([P, P, U], ctypes.c_ulonglong), "LLVMTypeIsSized": ([P], I),
        "LLVMGetTypeByName2": ([P, ctypes.c_char_p], P), "LLVMIsOpaqueStruct": ([P], I),
        "LLVMCountStructElementTypes": ([P], U), "LLVMGetIntrinsicID": ([P], U),
    }
    for kind in ("InlineAsm", "GlobalValue", "Function", "ConstantExpr", "ConstantInt", "Constant",
                 "Argument", "Instruction", "BasicBlock", "MDNode", "MDString"):
        sigs[f"LLVMIsA{kind}"] = ([P], P)
    for name, (args, res) in sigs.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    return lib


@functools.lru_cache(maxsize=None)
def libraries(clang=None) -> tuple:
    """The libLLVM candidates for `clang` (ir_agreement.py names the one validate.py compiles
    with; this module does not import validate.py, which imports its user), worked out once per
    process and handed to each child."""
    clang = clang or shutil.which("clang++")
    if not clang:
        raise ReaderUnavailable("clang++ was not found")
    return tuple(library_candidates(shutil.which(clang) or clang))


@functools.lru_cache(maxsize=None)
def load(candidates: tuple):
    """The first of `candidates` that loads, bound."""
    tried = []
    for candidate in candidates:
        try:
            return _bind(ctypes.CDLL(candidate))
        except (OSError, AttributeError) as e:
            tried.append(f"{candidate}: {e}")
    raise ReaderUnavailable("no libLLVM of the compiler's version could be loaded (" + "; ".join(tried) + ")")


class ParseError(Exception):
    """LLVM's parser or verifier rejected the text."""


def facts_in_this_process(ir_text: str, type_names=(), candidates=None) -> dict:
    """The validator's facts of a module, as LLVM reads `ir_text` (with the layout of each
    named struct in `type_names`, names without the %: LLVM's C API cannot list them). Raises ParseError when LLVM
    rejects it, ReaderUnavailable when there is no LLVM to ask. LLVM ends the process on some
    malformed text ("LLVM ERROR: ..."): call facts() unless that is what you want."""
    L = load(tuple(candidates) if candidates is not None else libraries())
    ctx = L.LLVMContextCreate()
    try:
        data = ir_text.encode("utf-8", "surrogateescape")
        buf = L.LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len(data), b"kernel.ll")
        mod, msg = ctypes.c_void_p(), ctypes.c_void_p()
        if L.LLVMParseIRInContext(ctx, buf, ctypes.byref(mod), ctypes.byref(msg)):  # takes the buffer
            raise ParseError(_message(L, msg))
        try:
            if L.LLVMVerifyModule(mod, 2, ctypes.byref(msg)):  # LLVMReturnStatusAction
                raise ParseError(_message(L, msg))
            if msg.value:
                L.LLVMDisposeMessage(msg)
            walk = _Walk(L, ctx, mod)
            out = walk.facts()
            out["types"] = {t: walk.struct_layout(t) for t in type_names}
            return out
        finally:
            L.LLVMDisposeModule(mod)
    finally:
        L.LLVMContextDispose(ctx)


_prestarting: list = []  # prestart()'s threads, joined before a module is asked for


def prestart(clang=None) -> None:
    """Starts, in the background, the child that facts() will ask for `clang`'s libLLVM: starting
    Python and loading libLLVM (a quarter of a second) then overlaps the compile that makes the IR
    rather than following it. The child reads nothing until facts() sends it a module."""
    def start():
        try:
            _Child.give_back(_Child(libraries(clang)))
        except (ReaderUnavailable, OSError):
            pass  # facts() finds the same and says so
    thread = threading.Thread(target=start, daemon=True)
    thread.start()
    _prestarting.append(thread)


def _prestarted() -> None:
    while _prestarting:
        _prestarting.pop().join()


def facts(ir_text: str, type_names=(), clang=None, timeout=300) -> dict:
    """facts_in_this_process, run in a child process: LLVM's parser ends the whole process on
    some malformed text (report_fatal_error), which must refuse one file, not stop the grader.
    Raises ParseError when LLVM rejects the text or stops, ReaderUnavailable as above.

    The child stays for the next module (starting Python and loading libLLVM is most of the
    time of a small module); one that stops or runs past `timeout` costs only the module it was
    reading, and the next call starts a new one. A kept child that stopped without an answer is
    asked again as a new one: it may have died idle (killed, out of memory), and a module that
    ends LLVM ends the new one too."""
    data = ir_text.encode("utf-8", "surrogateescape")
    _prestarted()
    child = _Child.take(libraries(clang))
    status, payload = child.ask(data, list(type_names), timeout)
    if child.kept and child.stopped and not child.timed_out:
        child = _Child(libraries(clang))
        status, payload = child.ask(data, list(type_names), timeout)
    if not child.stopped:
        _Child.give_back(child)
    if status == _UNAVAILABLE:
        raise ReaderUnavailable(payload.decode("utf-8", "replace").strip())
    if status != 0:
        said = payload.decode("utf-8", "replace").strip()
        raise ParseError(said.splitlines()[-1] if said else f"LLVM's reader stopped (status {status})")
    return marshal.loads(payload)


class _Child:
    """A `python3 -m halo.core.llvm_reader --serve` child: modules in, facts out, one at a time
    (serve() says how). Idle children wait in a pool, one for each thread that asked at once."""
    _idle: list = []
    _all: list = []
    _lock = threading.Lock()

    @classmethod
    def take(cls, libs: tuple) -> "_Child":
        with cls._lock:
            for k, child in enumerate(cls._idle):
                if child.libs == libs and child.proc.poll() is None:
                    child.kept = True
                    return cls._idle.pop(k)
        return cls(libs)

    @classmethod
    def give_back(cls, child: "_Child") -> None:
        with cls._lock:
            cls._idle.append(child)

    def __init__(self, libs: tuple):
        self.libs = libs
        self.kept = False  # whether it has read a module before this one
        self.asked = False  # whether it was ever sent a module (prestart's may never be)
        self.stopped = self.timed_out = False
        self._buffer = bytearray()  # what the child wrote and was not read yet
        self.errors = tempfile.TemporaryFile()  # what LLVM says as it stops, read only then
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([_PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")]))
        # -S: the standard library is all it needs (site and .pth files cost a start-up here).
        self.proc = subprocess.Popen([sys.executable, "-S", "-m", "halo.core.llvm_reader", "--serve",
                                      *(a for lib in libs for a in ("--lib", lib))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=env)
        with _Child._lock:
            _Child._all.append(self)

    def ask(self, data: bytes, type_names, timeout) -> tuple:
        """(status, payload) of one module; a child that stops or runs past `timeout` is ended and
        answers (its status or 1, the last of what it said)."""
        deadline = time.monotonic() + timeout
        self.asked = True
        try:
            header = json.dumps({"bytes": len(data), "types": type_names}) + "\n"
            self.proc.stdin.write(header.encode() + data)
            self.proc.stdin.flush()
            header = self._read_until(b"\n", deadline)
            status, size = (int(x) for x in header.split())
            return status, self._read(size, deadline)
        except (OSError, ValueError, _Stopped) as e:
            self.stopped, self.timed_out = True, isinstance(e, _Stopped) and e.timed_out
            self.end(kill=self.timed_out)
            if self.timed_out:
                return 1, f"LLVM did not read the module within {timeout} s".encode()
            self.errors.seek(0)
            said = self.errors.read().decode("utf-8", "replace").strip()
            status = self.proc.returncode if self.proc.returncode not in (0, _UNAVAILABLE) else 1
            return status, (said or f"LLVM's reader stopped (status {self.proc.returncode})").encode()

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
            raise _Stopped(timed_out=True)
        chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
        if not chunk:
            raise _Stopped(timed_out=False)
        self._buffer += chunk

    def _read_until(self, end: bytes, deadline) -> bytes:
        while end not in self._buffer:
            self._fill(deadline)
        k = self._buffer.index(end)
        line = bytes(self._buffer[:k])
        del self._buffer[:k + len(end)]
        return line

    def _read(self, size: int, deadline) -> bytes:
        while len(self._buffer) < size:
            self._fill(deadline)
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out

    def end(self, kill=False):
        """Stops the child: it ends on its own when its stdin closes; a stuck one is killed."""
        with _Child._lock:
            for pool in (_Child._idle, _Child._all):
                if self in pool:
                    pool.remove(self)
        if kill:
            self.proc.kill()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class _Stopped(Exception):
    def __init__(self, timed_out: bool):
        super().__init__("timed out" if timed_out else "the child stopped")
        self.timed_out = timed_out


@atexit.register
def _end_children():
    _prestarted()  # none is started after this
    for child in list(_Child._all):
        if child.proc.poll() is None:
            # One never sent a module holds nothing: killed rather than waited for while it may
            # still be loading libLLVM (a file that did not compile must not wait on it).
            child.end(kill=not child.asked)


def _message(L, msg):
    text = ctypes.string_at(msg.value).decode("utf-8", "replace") if msg.value else "(no message)"
    if msg.value:
        L.LLVMDisposeMessage(msg)
    return text.strip()


def _chain(first, nxt):
    v = first
    while v:
        yield v
        v = nxt(v)


class _Walk:
    def __init__(self, L, ctx, mod):
        self.L, self.ctx, self.mod = L, ctx, mod
        self.td = L.LLVMGetModuleDataLayout(mod)
        self.nosanitize = L.LLVMGetMDKindIDInContext(ctx, b"nosanitize", len(b"nosanitize"))
        self.attr_kinds = {a: L.LLVMGetEnumAttributeKindForName(a.encode(), len(a)) for a in BAD_ATTRIBUTES}
        self.slots = {}  # this function's unnamed values -> their number, as LLVM's printer numbers them
        self.names = {}  # value -> its name (name())
        self.global_slots = self.number_globals()

    def name(self, v):
        # Each value's name asked of LLVM once: a module names the same values tens of thousands
        # of times (43,000 asks, 0.2 s, for 7.9's), and nothing renames them during the walk.
        known = self.names.get(v)
        if known is None:
            n = ctypes.c_size_t()
            p = self.L.LLVMGetValueName2(v, ctypes.byref(n))
            known = self.names[v] = ctypes.string_at(p, n.value).decode("utf-8", "surrogateescape") if p else ""
        return known

    def gname(self, g):
        """A global value as the IR text names it: its name, or N of @N for an unnamed one."""
        return self.name(g) or str(self.global_slots.get(g, "?"))

    def number_globals(self):
        """LLVM's printer numbers unnamed global variables, then aliases, ifuncs and functions."""
        L, mod, slots = self.L, self.mod, {}
        for first, nxt in ((L.LLVMGetFirstGlobal, L.LLVMGetNextGlobal),
                           (L.LLVMGetFirstGlobalAlias, L.LLVMGetNextGlobalAlias),
                           (L.LLVMGetFirstGlobalIFunc, L.LLVMGetNextGlobalIFunc),
                           (L.LLVMGetFirstFunction, L.LLVMGetNextFunction)):
            for g in _chain(first(mod), nxt):
                if not self.name(g):
                    slots[g] = len(slots)
        return slots

    def local(self, v):
        """A local value as the IR text names it: %name, or %N for an unnamed one."""
        name = self.name(v)
        return "%" + (name if name else str(self.slots.get(v, "?")))

    def section(self, g):
        s = self.L.LLVMGetSection(g)
        return s.decode("utf-8", "surrogateescape") if s else None

    def facts(self):
        L, mod = self.L, self.mod
        n = ctypes.c_size_t()
        L.LLVMGetModuleInlineAsm(mod, ctypes.byref(n))
        out = {"module_asm": n.value > 0, "functions": {}, "globals": {}, "types": {}}
        for f in _chain(L.LLVMGetFirstFunction(mod), L.LLVMGetNextFunction):
            defined = not L.LLVMIsDeclaration(f)
            out["functions"][self.gname(f)] = {
                "defined": defined, "linkage": LINKAGES.get(L.LLVMGetLinkage(f), "?"),
                "section": self.section(f) if defined else None,
                "bad_attrs": sorted(a for a, k in self.attr_kinds.items()
                                    if k and defined and L.LLVMGetEnumAttributeAtIndex(f, _FUNCTION_INDEX, k)),
                "insts": self.instructions(f) if defined else [],
            }
        for g in _chain(L.LLVMGetFirstGlobal(mod), L.LLVMGetNextGlobal):
            declaration = bool(L.LLVMIsDeclaration(g))
            init = None if declaration else L.LLVMGetInitializer(g)
            constant = bool(L.LLVMIsGlobalConstant(g))
            vt = L.LLVMGlobalGetValueType(g)
            out["globals"][self.gname(g)] = {
                "kind": "constant" if constant else "global", "linkage": LINKAGES.get(L.LLVMGetLinkage(g), "?"),
                "declaration": declaration, "section": self.section(g),
                "refs": sorted(self.refs(init)) if init else [],
                "size": L.LLVMABISizeOfType(self.td, vt) if constant and not declaration
                and L.LLVMTypeIsSized(vt) else None}
        for kind, first, nxt, target in (("alias", L.LLVMGetFirstGlobalAlias, L.LLVMGetNextGlobalAlias,
                                          L.LLVMAliasGetAliasee),
                                         ("ifunc", L.LLVMGetFirstGlobalIFunc, L.LLVMGetNextGlobalIFunc,
                                          L.LLVMGetGlobalIFuncResolver)):
            for a in _chain(first(mod), nxt):
                t = target(a)
                out["globals"][self.gname(a)] = {
                    "kind": kind, "linkage": LINKAGES.get(L.LLVMGetLinkage(a), "?"), "declaration": False,
                    "section": None, "refs": sorted(self.refs(t)) if t else [], "size": None}
        return out

    def struct_layout(self, name):
        """(alloc size, field offsets) of a named struct, None where it has no size."""
        L = self.L
        t = L.LLVMGetTypeByName2(self.ctx, name.encode("utf-8", "surrogateescape"))
        if not t or L.LLVMGetTypeKind(t) != _STRUCT or L.LLVMIsOpaqueStruct(t) or not L.LLVMTypeIsSized(t):
            return None
        return (L.LLVMABISizeOfType(self.td, t),
                tuple(L.LLVMOffsetOfElement(self.td, t, k) for k in range(L.LLVMCountStructElementTypes(t))))

    def refs(self, v, seen=None):
        """Names of the global values a value refers to, through constant expressions and
        aggregates (as `@name` in its text)."""
        L = self.L
        seen = set() if seen is None else seen
        if not v or v in seen:
            return set()
        seen.add(v)
        if L.LLVMIsAGlobalValue(v):
            return {self.gname(v)}
        if not L.LLVMIsAConstant(v):
            return set()
        out = set()
        for k in range(L.LLVMGetNumOperands(v)):
            out |= self.refs(L.LLVMGetOperand(v, k), seen)
        return out

    def operand(self, v):
        """An operand as the validator's reader names it: %local, @global, an integer literal,
        or "const" for any other constant."""
        L = self.L
        if L.LLVMIsAGlobalValue(v):
            return "@" + self.gname(v)
        if L.LLVMIsAMDNode(v) or L.LLVMIsAMDString(v):
            return "metadata"
        if L.LLVMIsAConstantInt(v):
            return str(L.LLVMConstIntGetSExtValue(v))
        if L.LLVMIsAConstant(v):
            return "const"
        return self.local(v)

    def number(self, f):
        """LLVM's printer numbers a function's unnamed arguments, then its unnamed blocks and
        unnamed non-void instructions, in order: the %N of the text."""
        L, k = self.L, 0
        self.slots = {}
        for i in range(L.LLVMCountParams(f)):
            p = L.LLVMGetParam(f, i)
            if not self.name(p):
                self.slots[p], k = k, k + 1
        for bb in _chain(L.LLVMGetFirstBasicBlock(f), L.LLVMGetNextBasicBlock):
            if not L.LLVMGetBasicBlockName(bb):
                k += 1
            for inst in _chain(L.LLVMGetFirstInstruction(bb), L.LLVMGetNextInstruction):
                if L.LLVMGetTypeKind(L.LLVMTypeOf(inst)) != _VOID and not self.name(inst):
                    self.slots[inst], k = k, k + 1

    def instructions(self, f):
        L = self.L
        self.number(f)
        out = []
        for bb in _chain(L.LLVMGetFirstBasicBlock(f), L.LLVMGetNextBasicBlock):
            for inst in _chain(L.LLVMGetFirstInstruction(bb), L.LLVMGetNextInstruction):
                op = OPCODES.get(L.LLVMGetInstructionOpcode(inst), "?")
                call = None
                if op in ("call", "invoke", "callbr"):
                    call = self.call(inst)
                    if call[0] == "direct" and call[1].startswith("llvm.dbg."):
                        continue  # the validator leaves debug intrinsics out
                out.append(self.instruction(inst, op, call))
        return out

    def call(self, inst):
        """(kind, callee name, argument operands): kind is direct, cast (a bitcast of a global),
        asm or indirect."""
        L = self.L
        callee = L.LLVMGetCalledValue(inst)
        if L.LLVMIsAInlineAsm(callee):
            return ("asm", "", ())
        if L.LLVMIsAGlobalValue(callee):
            name = self.gname(callee)
            if name.startswith("llvm.dbg."):  # left out by instructions(): its arguments are never read
                return ("direct", name, ())
            return ("direct", name,
                    tuple(self.operand(L.LLVMGetOperand(inst, k)) for k in range(L.LLVMGetNumArgOperands(inst))))
        if L.LLVMIsAConstantExpr(callee) and L.LLVMGetConstOpcode(callee) == 41:  # bitcast
            inner = L.LLVMGetOperand(callee, 0)
            if L.LLVMIsAGlobalValue(inner):
                return ("cast", self.gname(inner), ())
        return ("indirect", "", ())

    def instruction(self, inst, op, call):
        L = self.L
        lhs = self.local(inst) if L.LLVMGetTypeKind(L.LLVMTypeOf(inst)) != _VOID else None
        refs = set()
        for k in range(L.LLVMGetNumOperands(inst)):
            refs |= self.refs(L.LLVMGetOperand(inst, k))
        size = pointer = alloca = None
        if op in ("load", "store", "atomicrmw", "cmpxchg"):
            value = inst if op == "load" else L.LLVMGetOperand(inst, _ACCESS_VALUE_OPERAND[op])
            size = L.LLVMStoreSizeOfType(self.td, L.LLVMTypeOf(value))
            pointer = self.operand(L.LLVMGetOperand(inst, 1 if op == "store" else 0))
        if op == "alloca":
            count = L.LLVMGetOperand(inst, 0)
            alloca = (L.LLVMABISizeOfType(self.td, L.LLVMGetAllocatedType(inst))
                      * L.LLVMConstIntGetSExtValue(count)) if L.LLVMIsAConstantInt(count) else "variable"
        return (lhs, op, call, tuple(sorted(refs)), bool(L.LLVMGetMetadata(inst, self.nosanitize)),
                size, pointer, alloca)


def _answer(text: str, type_names, candidates) -> tuple:
    """(status, payload) of one module: 0 and its facts, marshalled (plain dicts, lists, tuples,
    strings and numbers; a large module's facts as a Python literal took longer to read back with
    ast.literal_eval than LLVM took to read the module), or the status and message of
    ReaderUnavailable or ParseError."""
    try:
        out = facts_in_this_process(text, type_names, candidates)
    except ReaderUnavailable as e:
        return _UNAVAILABLE, str(e).encode("utf-8", "replace")
    except ParseError as e:
        return 3, str(e).encode("utf-8", "replace")
    return 0, marshal.dumps(out)


def serve(candidates) -> int:
    """The child of facts(), for as long as its stdin is open: a JSON line {"bytes": N, "types":
    [type name, ...]} and N bytes of IR in; a line "<status> <bytes>" and that many bytes of
    answer out (_answer). LLVM may end this process on a module: the parent sees the pipe close."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:  # loaded now, while a prestarted child waits for its first module (prestart)
        load(tuple(candidates) if candidates is not None else libraries())
    except ReaderUnavailable:
        pass  # each module is answered with why (_answer)
    while True:
        header = stdin.readline()
        if not header:
            return 0
        asked = json.loads(header)
        text = stdin.read(asked["bytes"]).decode("utf-8", "surrogateescape")
        status, payload = _answer(text, asked["types"], candidates)
        stdout.write(f"{status} {len(payload)}\n".encode() + payload)
        stdout.flush()


def main(argv) -> int:
    """`--serve [--lib L]...`: the child of facts() (serve)."""
    if "--serve" not in argv:
        print("usage: python3 -m halo.core.llvm_reader --serve [--lib LIBLLVM]...", file=sys.stderr)
        return 2
    return serve([argv[k + 1] for k, a in enumerate(argv) if a == "--lib" and k + 1 < len(argv)] or None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
