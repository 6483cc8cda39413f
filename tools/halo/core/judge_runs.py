"""A grade's kernel tests, run in a few judge processes instead of one process per test.

Run by CTest, every test is a judge process of its own, which tries bubblewrap once and starts a
sandboxed worker: most of a small test's time went to starting processes (the measurements are in
docs/results/check-times.md, "The kernel tests a few to a judge"). Here a section's tests are dealt out over as many lanes as
CTest would run jobs, and each lane runs its share in one judge (one trial, one worker for all of
them, as the learner and known-wrong kernels' runs always have).

Which test passed is read from the judge's case records (grader/testing/case_records.hpp): a pipe
only the judge holds; the worker it starts keeps no descriptor it was not given, and the kernel's
own printing reaches the judge's output, never the records (red-team attack case-records-in-output). A test's output is the judge's output
from where that test started to where the next one did, after the lines printed before the first
test (the seed), as CTest would have shown it for a run of that test alone.

A test that never ends (the judge stopped, or past the time limit that CTest would give it) fails
with what it printed and why; the lane's other tests then run in a new judge, as they would have
each in its own under CTest.
"""
from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from .results import failure_message, parse_name

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_timeout_s():
    """HALO_TEST_TIMEOUT of grader/cmake/HaloSections.cmake, CTest's limit for each kernel test
    (read from there: the one value)."""
    text = (REPO_ROOT / "grader" / "cmake" / "HaloSections.cmake").read_text()
    return int(re.search(r"^set\(HALO_TEST_TIMEOUT (\d+)\)$", text, re.M).group(1))


def filter_of(names):
    """doctest's --test-case value naming exactly `names` (a comma inside a name is escaped, as
    HaloSections.cmake does for a test of its own)."""
    return ",".join(n.replace(",", "\\,") for n in names)


def lanes(programs, jobs):
    """[(program, [names])] per lane: the tests dealt out one by one over `jobs` lanes in order, a
    lane's consecutive tests of one program kept together as one judge run."""
    out = [[] for _ in range(max(1, jobs))]
    k = 0
    for program, names in programs:
        for name in names:
            lane = out[k % len(out)]
            if lane and lane[-1][0] == program:
                lane[-1][1].append(name)
            else:
                lane.append((program, [name]))
            k += 1
    return [lane for lane in out if lane]


def _describe_exit(code):
    if code is None:
        return "was stopped"
    if code < 0:
        try:
            return f"was ended by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was ended by signal {-code}"
    return f"exited with status {code}"


class _Records:
    """The case records of one judge process, read as they come."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def lines(self, wait_s):
        """The complete lines that arrive within `wait_s` seconds (none if nothing does)."""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, wait_s))
        if not ready:
            return []
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.closed = True
            return []
        self.buffer += chunk
        *done, self.buffer = self.buffer.split(b"\n")
        return [line.decode("utf-8", "replace") for line in done]


class Runner:
    """Runs the lanes side by side. `progress(done, total)` and `on_failed(name, output)` are called
    as each test ends (from the lanes' threads, one call at a time), like build.run_ctest's: a first
    failure can be shown while the other tests still run."""

    def __init__(self, env, cwd, output_dir, timeout_s=None, progress=None, on_failed=None, between_s=None,
                 tracker=None):
        """`timeout_s`: how long one test may run (CTest's limit); `between_s`: how long the judge may
        take to start its first test or the next one (the same limit unless given). `tracker`: told of
        each judge process as it starts and ends (track/untrack), so that its owner can stop them all
        (grade-class's interrupt, class_submission.Processes)."""
        self.env, self.cwd, self.output_dir = env, cwd, Path(output_dir)
        self.tracker = tracker
        self.timeout_s = timeout_s if timeout_s is not None else test_timeout_s()
        self.between_s = between_s if between_s is not None else self.timeout_s
        self.progress, self.on_failed = progress, on_failed
        self.lock = threading.Lock()
        self.done = self.total = 0
        self.tests = {}

    def run(self, programs, jobs):
        """Runs every (program, [names]); returns one result per name, in the order given. A program
        is a path, or a command (a list) to which the judge's own options are added: grade-class runs
        its harness's judge with the submission's worker, `[judge, "--halo-worker=WORKER"]`."""
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.total = sum(len(names) for _, names in programs)
        threads = [threading.Thread(target=self._lane, args=(lane,)) for lane in lanes(programs, jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # A test without a result (a lane that broke) is left out: grade then reports it as "no
        # result arrived for this test", a failure (results.assemble).
        return [self.tests[name] for _, names in programs for name in names if name in self.tests]

    def _lane(self, lane):
        for program, names in lane:
            left = list(names)
            while left:
                left = self._judge(program, left)

    def _announce(self, name, passed, output):
        with self.lock:
            self.done += 1
            if self.on_failed and not passed:
                self.on_failed(name, output)
            if self.progress:
                self.progress(self.done, self.total)

    def _store(self, name, passed, output, seconds):
        info = parse_name(name)
        # The shape of results.read_junit's tests: what grade reads from CTest's JUnit file on the GPU.
        self.tests[name] = {"name": name, "section": info["section"], "kind": info["kind"],
                            "status": "passed" if passed else "failed",
                            "message": "" if passed else failure_message(output), "seconds": seconds}

    def _judge(self, program, names):
        """One judge process over `names`; returns the names it did not reach, for a new one."""
        read_fd, write_fd = os.pipe()
        with tempfile.TemporaryFile(dir=self.output_dir, prefix="judge-output-") as out:
            try:
                command = [str(a) for a in program] if isinstance(program, (list, tuple)) else [str(program)]
                proc = subprocess.Popen([*command, f"--halo-case-records={write_fd}", "--test-case=" + filter_of(names)],
                                        stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                        pass_fds=(write_fd,), env=self.env, cwd=self.cwd, start_new_session=True)
            except OSError as e:
                os.close(read_fd)
                os.close(write_fd)
                for name in names:
                    self._announce(name, False, "")
                    self._store(name, False, f"ERROR: the tests of this section could not start: {e}\n", 0.0)
                return []
            os.close(write_fd)
            if self.tracker:
                self.tracker.track(proc)
            records = _Records(read_fd)
            starts, ended, began = [], {}, {}
            current, since, stopped = None, time.monotonic(), None
            try:
                while not records.closed:
                    wait = (self.timeout_s if current else self.between_s) - (time.monotonic() - since)
                    if wait <= 0:
                        stopped = f"did not finish within {self.timeout_s} s (the limit CTest gives each test)"
                        try:
                            os.killpg(proc.pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass  # it ended meanwhile
                        break
                    for line in records.lines(wait):
                        kind, offset, rest = (line.split(" ", 2) + ["", ""])[:3]
                        since = time.monotonic()
                        if not offset.lstrip("-").isdigit():
                            continue  # not a record (the judge writes none such): read as nothing
                        if kind == "start" and rest in names and rest not in began:
                            starts.append((rest, int(offset)))
                            current, began[rest] = rest, since
                        elif kind == "end" and current is not None and rest.partition(" ")[2] == current:
                            passed = rest.partition(" ")[0] == "passed"
                            ended[current] = (passed, since - began[current])
                            self._announce(current, passed, "" if passed else
                                           self._so_far(out, starts, int(offset)))
                            current = None
            finally:
                os.close(read_fd)
                code = proc.wait()
                if self.tracker:
                    self.tracker.untrack(proc)
            out.seek(0)
            text = out.read()
        return self._results(names, starts, ended, began, text, code, stopped)

    @staticmethod
    def _so_far(out, starts, end):
        """The last started test's output up to its end record (its assertions print as they fail),
        with the lines before the first test: what a first failure shows while the lane goes on."""
        out.flush()
        first, begin = starts[0][1], starts[-1][1]
        data = os.pread(out.fileno(), first, 0) + os.pread(out.fileno(), max(0, end - begin), begin)
        return data.decode("utf-8", "replace")

    def _results(self, names, starts, ended, began, text, code, stopped):
        preamble = text[:starts[0][1]] if starts else text
        bounds = [offset for _, offset in starts[1:]] + [len(text)]
        for (name, begin), end in zip(starts, bounds):
            output = (preamble + text[begin:end]).decode("utf-8", "replace")
            if name in ended:
                self._store(name, ended[name][0], output, ended[name][1])
            else:
                why = f"this test {stopped}" if stopped else f"the judge {_describe_exit(code)} during this test"
                output += f"\nERROR: {why}\n"
                self._announce(name, False, output)
                self._store(name, False, output, time.monotonic() - began[name])
        left = [n for n in names if n not in began]
        if not left:
            return []
        if starts and (stopped or code not in (0, 1)):
            return left  # the judge stopped after it began: the rest get a judge of their own
        if stopped:
            why = f"the judge did not start this test within {self.between_s} s"
        elif code in (0, 1):
            why = "no test of this program matches the name: the test list and the program disagree"
        else:
            why = f"the judge {_describe_exit(code)} before this test started"
        for name in left:
            output = preamble.decode("utf-8", "replace") + f"\nERROR: {why}\n"
            self._announce(name, False, output)
            self._store(name, False, output, 0.0)
        return []
