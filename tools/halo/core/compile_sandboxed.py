"""CMake's compiler launcher for the objects built from a submission's kernel files
(CXX_COMPILER_LAUNCHER of each tree's kernel library, grader/cmake/HaloSections.cmake):

    python3 compile_sandboxed.py [--kernel-file FILE]... [--pch-dir DIR] [--validated-record DIR] -- \
        /usr/bin/clang++ ... -o OBJ -c SRC

--pch-dir: where the grader's headers before the kernel file are kept precompiled (kernel_pch.py).
--validated-record: the check build's record of the files that passed validation (validated_record.py).

Compiling is the first thing a submission's text reaches, and `#include "/etc/passwd"` or a
template bomb is compile-time code. So the compiler runs in the sandbox (tools/halo/core/sandbox.py)
seeing only the toolchain, its include folders and source read-only and the folder of its
outputs writable; and each kernel file is validated first (tools/halo/core/validate.py), its text and
its compiled form, so a construct that the instrumentation cannot see never reaches a worker.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from halo.core import (alignment_checks, kernel_overlay, kernel_pch, llvm_reader, own_names, sandbox,  # noqa: E402
                       validate, validated_record)  # (needs the path above)


_PATH_OPTIONS = ("-o", "-MF", "-I", "-isystem", "-iquote", "-include", "-c")


def _absolute(compiler_args):
    """The command line with every path option made absolute: inside the sandbox the compiler
    runs in its output folder, not in the build folder CMake gave relative paths from."""
    args = list(compiler_args)
    for k, a in enumerate(args):
        if a in _PATH_OPTIONS and k + 1 < len(args):
            args[k + 1] = os.path.abspath(args[k + 1])
        elif a.startswith("-I") and len(a) > 2:
            args[k] = "-I" + os.path.abspath(a[2:])
    return args


def _include_dirs(args):
    """The -I folders of an absolute compiler command line."""
    return [args[k + 1] if a == "-I" else a[2:] for k, a in enumerate(args)
            if (a == "-I" and k + 1 < len(args)) or (a.startswith("-I") and len(a) > 2)]


def _paths(args):
    """(read-only inputs, writable output folders) of one absolute compiler command line."""
    read_only, writable = set(), set()
    for k, a in enumerate(args):
        nxt = args[k + 1] if k + 1 < len(args) else ""
        if a in ("-o", "-MF") and nxt:
            writable.add(os.path.dirname(nxt))
        elif a in ("-I", "-isystem", "-iquote", "-include", "-c") and nxt:
            read_only.add(nxt)
        elif a.startswith("-I") and len(a) > 2:
            read_only.add(a[2:])
    read_only = {p for p in read_only if os.path.exists(p) and not p.startswith("/usr/")}
    return read_only, writable


def _ir_command(args, ir_path):
    """The same compile stopped at LLVM IR (instrumentation applied, debug info and dependency
    file as asked) and written to `ir_path` in place of the object."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            continue
        out.append(a)
    return out + ["-S", "-emit-llvm", "-o", ir_path]


def _preprocess_args(args, source):
    """The compiler and its options without the source, -c and the output (pasted_names.py adds its own)."""
    out, k = [], 0
    while k < len(args):
        if args[k] == "-o":
            k += 2
            continue
        if args[k] not in ("-c", source):
            out.append(args[k])
        k += 1
    return out


def _wrapper_includes(wrapper_text, kernels):
    """The build wrapper's own #include lines, without those of the kernel files."""
    return [line for line in wrapper_text.splitlines()
            if line.lstrip().startswith("#include") and not any(k in line for k in kernels)]


# Options that choose the machine code made from IR: the target (a cross build's kernel object must
# be for the target, not for the machine that builds), its CPU and ABI, the relocation model and
# section layout. Everything else (language, warnings, include paths, instrumentation) was used up
# making the IR.
_CODEGEN_PREFIXES = ("--target=", "--sysroot", "--gcc-toolchain=", "-march=", "-mcpu=", "-mtune=", "-mabi=",
                     "-mcmodel=", "-mfloat-abi=", "-mfpu=")
_CODEGEN_FLAGS = ("-fPIC", "-fpic", "-fPIE", "-fpie", "-fno-pic", "-fno-pie", "-fno-PIC", "-fno-PIE",
                  "-ffunction-sections", "-fdata-sections", "-fsigned-char", "-funsigned-char")
_CODEGEN_WITH_VALUE = ("-target", "--sysroot", "-isysroot", "-mllvm", "--gcc-toolchain")


def _codegen_options(args):
    """The options of `args` that matter to code generation, in their order."""
    kept, k = [], 1  # args[0] is the compiler
    while k < len(args):
        a = args[k]
        if a in _CODEGEN_WITH_VALUE and k + 1 < len(args):
            kept += [a, args[k + 1]]
            k += 2
            continue
        if a in _CODEGEN_FLAGS or a.startswith(_CODEGEN_PREFIXES):
            kept.append(a)
        k += 1
    return kept


def _codegen_command(args, ir_path):
    """The object from validated IR: code generation only, at the compile's optimisation level,
    for the compile's target. Every IR pass (the instrumentation among them) ran once, before the
    validator read the IR; running none again makes the object exactly what was validated, with
    the alignment checks' calls (alignment_checks.py) added and nothing else."""
    obj = args[args.index("-o") + 1]
    levels = [a for a in args if a.startswith("-O")]
    return [args[0], *_codegen_options(args), *levels[-1:], "-Xclang", "-disable-llvm-passes", "-c", ir_path,
            "-o", obj]


def _report(status, output):
    """Prints what the compiler said and why a step was stopped; the launcher's exit status."""
    sys.stdout.write(output)
    if status == 124:
        print(f"halo: the compiler did not finish within {sandbox.COMPILE_SECONDS} s and was stopped "
              "(an #include of a device, or a template that never ends?)", file=sys.stderr)
    elif status < 0 or status > 128:
        print("halo: the compiler was stopped by a resource limit (memory or output size)", file=sys.stderr)
    return 0 if status == 0 else 1


def main(argv):
    if "--" not in argv:
        print("usage: compile_sandboxed.py [--kernel-file FILE]... [--pch-dir DIR] [--validated-record DIR] -- "
              "COMPILER ARGS...", file=sys.stderr)
        return 2
    split = argv.index("--")
    own, compiler = argv[:split], argv[split + 1:]
    kernel_files = [own[k + 1] for k, a in enumerate(own) if a == "--kernel-file" and k + 1 < len(own)]
    pch_dirs = [own[k + 1] for k, a in enumerate(own) if a == "--pch-dir" and k + 1 < len(own)]
    records = [own[k + 1] for k, a in enumerate(own) if a == validated_record.OPTION and k + 1 < len(own)]
    compiler = _absolute(compiler)
    read_only, writable = _paths(compiler)
    read_only |= {os.path.abspath(f) for f in kernel_files if os.path.exists(f)}
    if sandbox.announce("compiling your kernel file") is None:
        return 2
    cwd = next(iter(writable), "/tmp")
    source = compiler[compiler.index("-c") + 1] if "-c" in compiler else ""
    wrapper_text = Path(source).read_text(errors="replace") if source and os.path.exists(source) else ""
    # Kernel files of this section that other wrappers compile are not this compile's business.
    mine = [os.path.abspath(k) for k in kernel_files if os.path.abspath(k) in wrapper_text]
    if mine:  # LLVM's reader of the IR (validate_ir) starts while the IR is compiled
        llvm_reader.VERSIONS_FOLDER = os.getcwd()  # Ninja runs this in the build folder
        llvm_reader.prestart(compiler[0])
    # A book name the file declares itself (`constexpr int TILE_SIZE = 4;`) loses the grader's macro.
    compiler = compiler[:1] + own_names.flags_for_files(mine, own_names.header_in(_include_dirs(compiler))) + compiler[1:]
    scratch = tempfile.mkdtemp(prefix="halo-compile-")
    try:
        os.chmod(scratch, 0o755)  # read by the compiler, which may run as another user
        overlay = kernel_overlay.overlay(mine, scratch)
        if overlay:
            compiler = compiler[:1] + ["-ivfsoverlay", overlay] + compiler[1:]
            read_only.add(scratch)
        for kernel in mine:  # the text first: a refused construct is named before clang parses it
            text = Path(kernel).read_text(errors="replace")
            found = validate.validate_source(Path(kernel), text) or validate.pasted_name_findings(
                Path(kernel), text, _preprocess_args(compiler, source), _wrapper_includes(wrapper_text, mine),
                lambda cmd: sandbox.run(cmd, read_only=read_only | {scratch}, writable=writable, cwd=cwd), scratch)
            if found:
                return _refuse(kernel, found)
        # One compile to IR, which the validator reads and the object is generated from: the
        # front end and the IR passes run once (a kernel edit's compile costs half what two full
        # compiles did), and what runs is what was validated.
        obj = compiler[compiler.index("-o") + 1] if "-o" in compiler else ""
        ir_path = os.path.join(os.path.dirname(obj) or cwd, Path(obj).name + ".validate.ll")
        try:
            status, output = 1, ""
            pch = None
            if mine and pch_dirs:
                kernel_dirs = {os.path.dirname(k) for k in mine}
                pch = kernel_pch.precompiled(compiler, source, read_only, pch_dirs[-1], kernel_dirs)
            if pch:  # the grader's headers read once per build (kernel_pch.py)
                status, output = sandbox.run(_ir_command(compiler[:1] + ["-include-pch", pch] + compiler[1:], ir_path),
                                             read_only=read_only | {pch, pch[:-len(".pch")] + ".hpp"},
                                             writable=writable, cwd=cwd)
            if status != 0 or not os.path.exists(ir_path):  # as text: a compile error is told in its own words
                status, output = sandbox.run(_ir_command(compiler, ir_path), read_only=read_only, writable=writable,
                                             cwd=cwd)
                if pch and status == 0:
                    kernel_pch.drop(pch)
            if status != 0 or not os.path.exists(ir_path):
                return _report(status or 1, output)
            ir = os.path.join(scratch, "kernel.ll")  # out of reach of the next step's writable folder
            shutil.move(ir_path, ir)
        finally:
            if os.path.exists(ir_path):
                os.unlink(ir_path)
        os.chmod(ir, 0o644)
        ir_text = Path(ir).read_text(errors="replace")
        # A misaligned float4 is named alike on x86-64 and aarch64 (alignment_checks.py): the
        # checks go into the validated text, and call only the runtime.
        try:
            checked, _ = alignment_checks.add_checks(ir_text)
            not_checkable = None
        except alignment_checks.AlreadyNamed as e:
            checked, not_checkable = None, e
        # The object is generated while the IR is validated (the first failure's message comes
        # that much sooner after an edit); a file the validator refuses loses it before this
        # step ends, so the build never sees an object of unvalidated code.
        codegen = None
        if checked is not None:
            Path(ir).write_text(checked)
            codegen = sandbox.start(_codegen_command(compiler, ir), read_only=read_only | {scratch},
                                    writable=writable, cwd=cwd)
        for kernel in mine:
            found = validate.validate_ir(Path(kernel), ir_text, clang=compiler[0])
            if found:
                if codegen:
                    codegen.finish()
                    if obj and os.path.lexists(obj):
                        os.unlink(obj)
                sys.stdout.write(output)
                return _refuse(kernel, found)
        if not_checkable:
            sys.stdout.write(output)
            print(f"halo: {not_checkable}: not compiled", file=sys.stderr)
            return 1
        status, more = codegen.finish()
        if status == 0 and records:
            validated_record.write(records[-1], mine)
        return _report(status, output + more)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _refuse(kernel, found):
    for f in found:
        print(f"{f.file}:{f.line}: error: {f.message}")
    print(f"halo: {Path(kernel).name} was not compiled: the grader cannot vouch for what it would measure",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
