"""core/judge_runs.py: several kernel tests in one judge process, each test's verdict read from the
case records only, each test's output its own part of the judge's output, and a judge that stops
inside a test costing that test alone. A small Python program stands in for the judge
(grader/testing/case_records.hpp is the real writer; every grade of ./workbook check runs it)."""
import os
import stat
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

from halo.core import judge_runs
from halo.core.message_keys import key_and_line

# The stand-in: runs the tests named by --test-case= in order. A test called "... pass" passes,
# "... fail" prints an error and fails, "... crash" dies, "... hang" sleeps, "... forge" prints
# record-shaped lines to its output and fails; "... forge-records" writes "passed" to the records
# itself (the control: what the channel says is believed).
FAKE_JUDGE = textwrap.dedent(r"""
    #!{python}
    import os, sys, time
    fd = int(next(a for a in sys.argv if a.startswith("--halo-case-records=")).split("=")[1])
    names = next(a for a in sys.argv if a.startswith("--test-case=")).split("=", 1)[1].replace("\\,", "\0").split(",")
    names = [n.replace("\0", ",") for n in names]
    print("backend: fake; inputs from HALO_SEED=1", flush=True)
    def record(line):
        sys.stdout.flush()
        os.write(fd, (line.replace("@", str(os.lseek(1, 0, os.SEEK_CUR))) + "\n").encode())
    failed = 0
    for name in names:
        if "unknown" in name:
            continue
        if "garbled" in name:
            record("start not-a-number " + name)
        record("start @ " + name)
        print("running " + name, flush=True)
        if name.endswith("crash"):
            os._exit(134)
        if name.endswith("hang"):
            open("hanging", "w").close()  # in the runner's cwd: a test may act once the hang began
            time.sleep(60)
        ok = name.endswith("pass") or name.endswith("forge-records")
        if name.endswith("forge"):
            print("end 0 passed " + name)
        if not ok:
            print("x.cpp:1: ERROR: " + name + " went wrong")
            failed += 1
        record(("end @ passed " if ok else "end @ failed ") + name)
    print("[doctest] test cases: done")
    sys.exit(1 if failed else 0)
""").lstrip()


class JudgeRuns(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        self.judge = self.dir / "judge"
        self.judge.write_text(FAKE_JUDGE.replace("{python}", sys.executable))
        self.judge.chmod(self.judge.stat().st_mode | stat.S_IXUSR)

    def tearDown(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_tests(self, names, jobs=2, timeout_s=60):
        failed = []
        # A judge's start is given a minute whatever the test's limit: a busy machine may start Python slowly.
        runner = judge_runs.Runner(dict(os.environ), self.dir, self.dir / "out", timeout_s=timeout_s, between_s=60,
                                   on_failed=lambda name, out: failed.append((name, out)))
        tests = runner.run([(self.judge, names)], jobs)
        self.assertEqual([t["name"] for t in tests], names)
        return {t["name"]: t for t in tests}, dict(failed)

    def test_verdicts_and_each_tests_own_message(self):
        names = ["7.2 basic-1d / correct / a pass", "7.2 basic-1d / correct / b fail",
                 "7.2 basic-1d / correct / c, with a comma pass", "7.2 basic-1d / loads / d fail"]
        tests, streamed = self.run_tests(names)
        self.assertEqual([tests[n]["status"] for n in names], ["passed", "failed", "passed", "failed"])
        self.assertEqual(tests[names[1]]["message"], "7.2 basic-1d / correct / b fail went wrong")
        self.assertEqual(tests[names[3]]["message"], "7.2 basic-1d / loads / d fail went wrong")
        self.assertEqual(tests[names[1]]["section"], "7.2")
        self.assertEqual(tests[names[3]]["kind"], "loads")
        # Shown as each failed, with the seed line the judge printed first.
        self.assertEqual(sorted(streamed), sorted([names[1], names[3]]))
        self.assertIn("HALO_SEED=1", streamed[names[1]])
        self.assertNotIn("d fail", streamed[names[1]])

    def test_a_judge_that_stops_inside_a_test_costs_that_test_alone(self):
        names = ["7.4 tiled-1d / correct / a pass", "7.4 tiled-1d / correct / b crash",
                 "7.4 tiled-1d / correct / c pass", "7.4 tiled-1d / correct / d pass"]
        tests, _ = self.run_tests(names, jobs=1)
        self.assertEqual([tests[n]["status"] for n in names], ["passed", "failed", "passed", "passed"])
        self.assertIn("exited with status 134 during this test", tests[names[1]]["message"])

    def test_a_test_past_the_time_limit_fails_and_the_rest_still_run(self):
        names = ["7.4 tiled-1d / correct / a hang", "7.4 tiled-1d / correct / b pass"]
        # The limit runs from the test's start record: a pass's few printed lines fit 2 s on any load.
        tests, _ = self.run_tests(names, jobs=1, timeout_s=2)
        self.assertEqual(tests[names[0]]["status"], "failed")
        self.assertIn("did not finish within 2 s", tests[names[0]]["message"])
        # Read as a time-out where statuses and the class report name mistakes (grade-class's
        # gradebook says "7.4 timed out"); the control: a failed assertion is no time-out.
        self.assertEqual(key_and_line(tests[names[0]]["message"])[0], "timeout")
        self.assertNotEqual(key_and_line("7.4 tiled-1d / correct / b fail went wrong")[0], "timeout")
        self.assertEqual(tests[names[1]]["status"], "passed")

    def test_a_command_runs_with_the_judge_s_options_after_its_own(self):
        """grade-class's program: the harness's judge and the submission's worker (a list)."""
        names = ["7.2 basic-1d / correct / a pass", "7.2 basic-1d / correct / b fail"]
        runner = judge_runs.Runner(dict(os.environ), self.dir, self.dir / "out", between_s=60)
        tests = runner.run([([sys.executable, self.judge, "--halo-worker=/nowhere"], names)], 1)
        self.assertEqual([t["status"] for t in tests], ["passed", "failed"])

    def test_the_tracker_sees_every_judge_and_can_stop_it(self):
        """grade-class's interrupt stops the judges it was told of (class_submission.Processes):
        a hanging test ends at once, not after its limit, and nothing is left tracked."""
        import signal
        import threading

        hanging = self.dir / "hanging"

        class Tracker:
            def __init__(self):
                self.started, self.running = [], set()

            def track(self, proc):
                self.started.append(proc)
                self.running.add(proc)
                threading.Thread(target=self.stop_once_hanging, args=(proc,)).start()

            @staticmethod
            def stop_once_hanging(proc):  # the interrupt, once the judge is inside the hanging test
                deadline = time.monotonic() + 50
                while not hanging.exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
                os.killpg(proc.pid, signal.SIGKILL)

            def untrack(self, proc):
                self.running.discard(proc)

        tracker = Tracker()
        names = ["7.4 tiled-1d / correct / a pass", "7.4 tiled-1d / correct / b hang"]
        runner = judge_runs.Runner(dict(os.environ), self.dir, self.dir / "out", timeout_s=60, between_s=60,
                                   tracker=tracker)
        tests = {t["name"]: t for t in runner.run([(self.judge, names)], 1)}
        self.assertEqual(len(tracker.started), 1)
        self.assertEqual(tracker.running, set())
        self.assertEqual(tests[names[0]]["status"], "passed")
        self.assertEqual(tests[names[1]]["status"], "failed")
        self.assertIn("ended by signal SIGKILL", tests[names[1]]["message"])

    def test_a_name_the_program_does_not_run_fails(self):
        names = ["7.2 basic-1d / correct / a pass", "7.2 basic-1d / correct / unknown pass"]
        tests, _ = self.run_tests(names, jobs=1)
        self.assertEqual(tests[names[0]]["status"], "passed")
        self.assertEqual(tests[names[1]]["status"], "failed")
        self.assertIn("no test of this program matches the name", tests[names[1]]["message"])

    def test_record_lines_in_the_output_are_not_believed(self):
        """The attack (a kernel printing what a record looks like) and its control (the same words
        on the records channel pass): only the channel the judge alone holds decides."""
        names = ["7.2 basic-1d / correct / a forge", "7.2 basic-1d / correct / b forge-records"]
        tests, _ = self.run_tests(names, jobs=1)
        self.assertEqual(tests[names[0]]["status"], "failed")
        self.assertEqual(tests[names[1]]["status"], "passed")

    def test_a_line_that_is_not_a_record_is_read_as_nothing(self):
        names = ["7.2 basic-1d / correct / a garbled pass", "7.2 basic-1d / correct / b fail"]
        tests, _ = self.run_tests(names, jobs=1)
        self.assertEqual([tests[n]["status"] for n in names], ["passed", "failed"])

    def test_lanes_deal_the_tests_out_and_keep_a_programs_run_together(self):
        lanes = judge_runs.lanes([("a", ["1", "2", "3"]), ("b", ["4", "5"])], 2)
        self.assertEqual(lanes, [[("a", ["1", "3"]), ("b", ["5"])], [("a", ["2"]), ("b", ["4"])]])
        self.assertEqual(judge_runs.lanes([("a", ["1"])], 4), [[("a", ["1"])]])

    def test_the_time_limit_is_ctests(self):
        self.assertGreater(judge_runs.test_timeout_s(), 0)
        self.assertEqual(judge_runs.filter_of(["a, b", "c"]), "a\\, b,c")


if __name__ == "__main__":
    unittest.main()
