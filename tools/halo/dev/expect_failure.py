"""Runs a test binary that must fail, and fails unless it fails the right way.

Two uses in `./workbook check`:
  --every-test: each test case of a stub build on its own; every one must fail (exit 1 from
                doctest, not a crash or a time-out) and print the expected text (the pointer
                to the TODO).
  --wrong-kernel SECTION NAME: the whole binary of a known-wrong kernel; it must fail and its
                output must match the regular expression listed for it in grader/wrong/.
(and `internal learner-kernel`: a kernel of the learner corpus, grader/learners/, must get its
verdict, a failing one with its message key first.)"""
import os
import re
import subprocess

from . import verdict_records

# HALO_TIMEOUT_SCALE: `./workbook check --arch` runs the target's programs under qemu-user, several
# times slower than natively; the limit grows with it so that a slow run is not told as a hang.
TIMEOUT_S = 120 * max(1.0, float(os.environ.get("HALO_TIMEOUT_SCALE") or 1))
SKIP = 77  # CTest's skip code, as every Halo test binary uses it


def _run(cmd, extra_env=None):
    # A stub or a wrong kernel must not leave measurements where the answers of the real run
    # look for them (a wrong kernel's tagged loads would pass for the solution's).
    env = {k: v for k, v in os.environ.items() if k != "HALO_REPORT_DIR"}
    env.update(extra_env or {})
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out


def _describe_exit(code):
    if code is None:
        return f"did not finish within {TIMEOUT_S:.0f} s"
    if code < 0:
        return f"crashed (signal {-code})"
    return f"exited with {code}"


def list_tests(binary):
    code, out = _run([binary, "--list-test-cases"])
    if code != 0:
        raise SystemExit(f"cannot list the tests of {binary}: {_describe_exit(code)}\n{out}")
    return [line for line in out.splitlines()
            if line.strip() and not line.startswith("[doctest]") and not line.startswith("====")]


def every_test_fails(binary, expect):
    names = list_tests(binary)
    if not names:
        print(f"{binary} has no tests")
        return 1
    bad = skipped = 0
    for name in names:
        code, out = _run([binary, "--test-case=" + name.replace(",", "\\,")])
        if code == SKIP:  # a GPU binary on a machine without a device
            skipped += 1
            continue
        if code == 1 and expect in out:
            print(f"ok    fails cleanly: {name}")
            continue
        bad += 1
        why = "passed" if code == 0 else _describe_exit(code)
        if code == 1:
            why = f"failed without saying {expect!r}"
        print(f"FAIL  {name}: {why}\n{_indent(out)}")
    if skipped == len(names):
        print("skipped: no CUDA device here")
        return SKIP
    if skipped:
        print(f"FAIL  {skipped} of {len(names)} tests were skipped rather than failed (a GPU binary without the "
              "load counter preloaded?)")
    print(f"{len(names) - bad - skipped} of {len(names)} stub tests fail cleanly")
    return 1 if bad or skipped else 0


def _run_recorded(binary, env=None, args=()):
    """One run of a whole test binary (but the tests `args` filter out), on the base
    architecture's inputs when there is one to compare with, and its verdict recorded
    (verdict_records.py)."""
    label = os.path.basename(binary)
    seed = verdict_records.base_seed(label)
    code, out = _run([binary, *args], {**(env or {}), **({"HALO_SEED": seed} if seed else {})})
    verdict_records.record(label, code, out)
    return code, out


def wrong_kernel_caught(binary, expect, name, env=None, args=()):
    code, out = _run_recorded(binary, env, args)
    if code == 1:
        m = re.search(expect, out, re.MULTILINE)
        if m:
            print(f"caught '{name}'; the grader said:\n{_indent(_around(out, m))}")
            return 0
        print(f"'{name}' failed the tests, but without the expected diagnostic /{expect}/. Output:\n{_indent(out)}")
        return 1
    if code == 0:
        print(f"'{name}' PASSED every test: the suite cannot tell it from the solution.\n{_indent(out)}")
    else:
        print(f"'{name}': the test binary {_describe_exit(code)} instead of failing cleanly.\n{_indent(out)}")
    return 1


def learner_kernel(binary, entry, args=()):
    """A kernel of the learner corpus: the verdict and first message its entry names."""
    from .learner_kernels import check
    code, out = _run_recorded(binary, None, args)
    problems = check(entry, code, out)
    for p in problems:
        print(f"'{entry.name}' ({entry.style}): {p}")
    if problems:
        print(f"Output:\n{_indent(out)}")
        return 1
    print(f"'{entry.name}' ({entry.style}): {'passes' if entry.verdict == 'pass' else 'fails with ' + entry.key}")
    return 0


def _around(text, match, lines=3):
    start = text.rfind("\n", 0, match.start())
    before = text[:max(start, 0)].splitlines()[-lines:]
    after = text[match.start():].splitlines()[:lines + 1]
    return "\n".join(before + after)


def _indent(text, limit=60):
    lines = text.rstrip().splitlines()
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join("    " + line for line in lines)


def replay_reproduces(binaries, seed="4242"):
    """Runs each (failing) binary twice with one HALO_SEED: the outputs, first diagnostics
    included, must be identical although blocks run in parallel on several cores."""
    bad = 0
    for binary in binaries:
        runs = [_run([binary], {"HALO_SEED": seed}) for _ in range(2)]
        (code_a, out_a), (code_b, out_b) = runs
        first = next((line.strip() for line in out_a.splitlines() if "at block" in line), "(no diagnostic)")
        if code_a == code_b == 1 and out_a == out_b:
            print(f"ok    HALO_SEED={seed} replays {binary}: first diagnostic {first}")
            continue
        bad += 1
        print(f"FAIL  HALO_SEED={seed} gave two different runs of {binary} (exit {code_a} and {code_b})")
    return 1 if bad else 0
