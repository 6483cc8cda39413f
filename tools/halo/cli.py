"""The `./workbook` command line."""
import argparse
import functools
import os
import sys
from pathlib import Path


class _Unbuilt:
    """Stands in for the parser of a command this run did not name: every set-up call on it (an
    option, a group, its own subcommands) returns it again, and nothing is built."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: self


_UNBUILT = _Unbuilt()


class _Commands:
    """add_subparsers' action, building only the parser of the command a run named (all of them
    when it named none). The whole tree is some seventy parsers and two hundred options, about
    10 ms of every start, and the check starts some fourteen hundred (docs/results/check-times.md)."""

    def __init__(self, action, wanted):
        self.action, self.wanted, self.built = action, wanted, False

    def add_parser(self, name, **kwargs):
        if self.wanted is not None and name != self.wanted:
            return _UNBUILT
        self.built = True
        return self.action.add_parser(name, **kwargs)


def _parse(argv):
    """The arguments, read by a parser of the named command alone; by the whole tree when the
    run names none, or one no parser has (then argparse's message lists every command)."""
    command = argv[0] if argv and not argv[0].startswith("-") else None
    inner = argv[1] if command == "internal" and len(argv) > 1 and not argv[1].startswith("-") else None
    parser = _parser(command, inner) if command else None
    if parser is None:
        return _parser().parse_args(argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the whole tree's usage heads that message
        _parser().parse_args(argv)
    return args


@functools.lru_cache(maxsize=None)  # the autograder's one process runs main three times
def _parser(command=None, internal=None):
    """The command line's parser: every command's, or with `command` (and for `internal` its
    subcommand) only that one's, None when there is no such command."""
    p = argparse.ArgumentParser(prog="workbook", description="Halo: the CUDA convolution workbook (PMPP chapter 7).")
    sub = _Commands(p.add_subparsers(dest="command", required=True), command)

    g = sub.add_parser("grade", help="build and grade your exercises (all sections, or the ones named)")
    g.add_argument("sections", nargs="*", metavar="SECTION", help="e.g. 7.2 (default: every section)")
    g.add_argument("--student", metavar="ID",
                   help="who submitted (an instructor grading a submission): answers files must be this student's variant")
    g.add_argument("--exercises", metavar="DIR", help="grade another tree shaped like exercises/ (a submission)")
    g.add_argument("--build-dir", metavar="DIR", help="where to build (default: build/grade)")
    g.add_argument("--gpu", action="store_true", help="also run the tests on an NVIDIA GPU (needs nvcc and a device)")
    g.add_argument("--assignment", metavar="NAME",
                   help="score out of this assignment of course.toml (default: its only one, or the whole chapter)")

    gc = sub.add_parser("grade-class", help="grade a whole class: gradebook CSV, feedback per student, class report",
                        description="Grade every submission of SUBMISSIONS (a folder of student folders, a Gradescope "
                                    "export or a GitHub Classroom clone set; or a .zip of one) in parallel, with the "
                                    "grading harness built once. Interrupted, it resumes where it stopped.")
    gc.add_argument("submissions", metavar="SUBMISSIONS", help="one folder per student (or a zip of them)")
    gc.add_argument("--out", metavar="DIR", help="where the gradebook, feedback and report go "
                                                 "(default: build/class/<assignment>)")
    gc.add_argument("--assignment", metavar="NAME", help="the assignment of course.toml to grade (default: its only "
                                                         "one; without a course file, every section)")
    gc.add_argument("--course", metavar="FILE", help="the course file (default: course.toml here)")
    gc.add_argument("--jobs", type=int, metavar="N",
                    help="submissions graded at once (default: one per CPU this process may use: the affinity "
                         "mask, the cgroup quota, SLURM_CPUS_PER_TASK)")
    gc.add_argument("--fresh", action="store_true", help="grade every submission again, even those already graded")
    gc.add_argument("--shard", metavar="K/N", help="grade only part K of N of the class (the same part every run); "
                                                   "writes per-student results, no gradebook (see --collect)")
    gc.add_argument("--collect", action="store_true", help="write the gradebook, feedback and report from the "
                                                           "results every shard stored; names who has none")
    gc.add_argument("--harness", action="store_true", help="only build the grading harness (a cluster's first job)")
    gc.add_argument("--gpu", action="store_true", help="the GPU step: grade again, on this machine's NVIDIA GPU, the "
                                                       "submissions that passed on the CPU (with --shard: of that part)")
    gc.add_argument("--hand-back", action="store_true",
                    help="also commit each student's feedback into their Classroom clone as FEEDBACK-<assignment>.md "
                         "(not pushed; a file already there is kept aside)")
    gc.add_argument("--adjustments", metavar="CSV", help="manual adjustments (student,section,points,comment) "
                                                        "merged into the gradebook and each student's feedback")
    gc.add_argument("--roster", metavar="CSV", help="the class roster (ID, name, email, GitHub username): name each "
                                                   "submission by its roster ID (matched by ID, email or GitHub "
                                                   "username), the ID its variant is keyed by; also write canvas.csv "
                                                   "and moodle.csv, the LMS gradebook imports")
    gc.add_argument("--slurm", action="store_true", help="write Slurm job scripts: the harness, an array of shards, "
                                                         "the collect step (into OUT/slurm)")
    gc.add_argument("--submit", action="store_true", help="with --slurm: submit them (sbatch) and print the job IDs")
    gc.add_argument("--k8s", action="store_true", help="write Kubernetes manifests instead: an Indexed Job of shards "
                                                       "and the collect Job (into OUT/k8s; not run here)")
    gc.add_argument("--image", help="with --k8s: the image holding this checkout at /workbook "
                                    "(default: halo-workbook:<commit>)")
    gc.add_argument("--claim", help="with --k8s: the PersistentVolumeClaim mounted at /class (default: halo-class)")
    for name, kind, what in (("shards", int, "the array's size (default: one per 25 submissions)"),
                             ("throttle", int, "shards running at once (the array's %%; default: all)"),
                             ("cpus", int, "CPUs per job (default: 2)"), ("partition", str, "the partition"),
                             ("account", str, "the account to charge"), ("time", str, "each job's time limit"),
                             ("gpu-tasks", int, "also a GPU array of this many tasks (--gres=gpu:1 each), after "
                                                "the shards and before collect"),
                             ("gpu-partition", str, "the GPU array's partition"),
                             ("gpu-account", str, "the GPU array's account (default: --account)"),
                             ("gpu-time", str, "each GPU task's time limit (default: --time)")):
        gc.add_argument(f"--{name}", type=kind, metavar=name.upper().replace("-", "_"),
                        help=f"with --slurm: {what}; else [slurm] {name.replace('-', '_')} of the course file")

    sub.add_parser("setup", help="install what grade and check build with (clang, CMake, Ninja, Boost.Context, "
                   "doctest, bubblewrap); as root, also the grader's libraries once for the machine, which "
                   "a first grade then imports; the Dev Container's image runs it")
    c = sub.add_parser("check", help="the project's own test suite (what CI runs)")
    c.add_argument("--build-dir", metavar="DIR", help="where to build (default: build/check, or build/ARCH)")
    c.add_argument("--arch", choices=["arm64", "aarch64"],
                   help="cross-build the CPU backend and section tests for this architecture and run them under "
                        "qemu-user (installs what it needs: Debian multiarch, qemu-user-static)")
    c.add_argument("--container", action="store_true",
                   help="build the Dev Container's image (.devcontainer/) with podman from a Debian base made by "
                        "mmdebstrap, for linux/amd64 or, with --arch arm64, linux/arm64 under qemu, and grade 7.2 "
                        "inside it (needs root; the plain check runs the linux/amd64 one as a test)")
    c.add_argument("--sections", nargs="+", metavar="SECTION",
                   help="with --arch: only these sections' tests (CI runs 7.2 7.4)")

    rt = sub.add_parser("redteam", add_help=False,
                        help="grade the hostile submissions of grader/redteam/ (./workbook redteam --help)")
    rt.add_argument("options", nargs=argparse.REMAINDER)

    s = sub.add_parser("sync", help="write exercises/ from solutions/ (stubs and blank answers)")
    s.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    s.add_argument("--force", action="store_true", help="replace edited exercise files (a backup is kept)")
    s.add_argument("--committed", action="store_true", help="with --check: check the last commit, not the working "
                                                             "tree (what ./workbook check does: a student's edits "
                                                             "are not the project's)")

    b = sub.add_parser(
        "bench", help="measurements that inform (never tests): GPU benchmarks of the kernels, or --checks",
        description="Without SECTION: time every reference kernel on the GPU (2^26 floats in 1D, 8192 x 8192 in 2D, "
                    "masks 3, 5, 7, 9) against a device-to-device copy of the same bytes and, in 2D, cuDNN and "
                    "NPP. With SECTION (e.g. 7.6): your kernel from exercises/ beside the reference. Every kernel is "
                    "validated before it is timed. Writes gpu-bench*.json, .md and .log to --output-dir.",
        epilog="Exit status: 0 measured; 77 (skipped) when this machine has no CUDA device: it prints "
               "'no CUDA device: nothing to time' and times nothing; 3 a reference kernel failed validation; "
               "2 a build or usage error. HALO_SEED replays a run's inputs.")
    b.add_argument("sections", nargs="*", metavar="SECTION",
                   help="bench your kernel of this section beside the reference (e.g. 7.6)")
    b.add_argument("--exercises", metavar="DIR", help="your kernels from another tree shaped like exercises/")
    b.add_argument("--output-dir", metavar="DIR", help="where the JSON, Markdown and log go (default: build/bench)")
    b.add_argument("--build-dir", metavar="DIR", help="where the benchmark is compiled (default: build/bench-gpu)")
    b.add_argument("--runs", type=int, default=30, help="timed runs per kernel and mask; the median is reported")
    b.add_argument("--warmup", type=int, default=5, help="untimed runs first")
    b.add_argument("--build-only", action="store_true", help="compile the GPU benchmark (no device needed), run nothing")
    b.add_argument("--from-json", metavar="FILE", help="only turn a results JSON into its Markdown table")
    b.add_argument("--checks", action="store_true", help="what the CPU backend's diagnostics cost (needs a check build)")
    b.add_argument("--repeats", type=int, default=3, help="with --checks: runs of each binary")
    b.add_argument("--output", metavar="FILE", help="with --checks: also write the table there (Markdown)")
    b.add_argument("--cpu", action="store_true",
                   help="Halo's CPU backend (full instrumentation) beside Numba's CUDA simulator on the 7.2 and 7.4 "
                        "kernels (installs Numba into build/.venv-numba); writes cpu-vs-numba-sim.json and .md")
    b.add_argument("--isolation", action="store_true",
                   help="what the sandbox costs: the reference tree graded with and without it, cold and warm")
    b.add_argument("--class", dest="class_", action="store_true",
                   help="grade-class on a generated class of 20 (7.2 and 7.4) and on copies of the reference (every "
                        "section), cold and warm: seconds per submission and the projection for 200; then, on a "
                        "machine with an NVIDIA GPU, the GPU step (grade-class --gpu) per submission")
    b.add_argument("--gpu-only", action="store_true",
                   help="with --class: only the GPU step (on a GPU machine; fails when it has none)")
    b.add_argument("--collect", action="store_true",
                   help="grade-class --collect over 10,000 synthetic students made from the graded class of 20: "
                        "wall time and peak memory (writes --output when given)")
    b.add_argument("--loop", action="store_true",
                   help="time the student loop (one-line edit to verdict, warm full grade, fresh clone) in a "
                        "temporary copy; writes grade-loop-times.md")
    b.add_argument("--busy", type=int, default=0, metavar="N",
                   help="with --loop: N processes keep a core busy each while it measures (a student's browser and "
                        "editor beside the grader; the issue's load 2 is --busy 2)")

    ho = sub.add_parser("handout", help="printable handouts (Markdown, HTML, PDF): student or instructor edition",
                        description="Render a handout per section and, without SECTION, one for the whole chapter, "
                                    "from chapters/ and solutions/, into OUTPUT/<edition>/.")
    ho.add_argument("sections", nargs="*", metavar="SECTION", help="e.g. 7.4 (default: every section and the chapter)")
    ho.add_argument("--edition", choices=["student", "instructor"], default="student",
                    help="instructor adds the answer key with its working, reference kernels, expected load counts, "
                         "common mistakes and the book's errata (default: student)")
    ho.add_argument("--format", default="md,html,pdf", metavar="LIST", help="comma-separated: md, html, pdf (default: all)")
    ho.add_argument("--output", metavar="DIR", help="where the handouts go (default: build/handouts); never exercises/")
    ho.add_argument("--student", action="append", default=[], metavar="ID",
                    help="a student's own variant: their numbers in the questions, in OUTPUT/<edition>/<ID>/, with "
                         "their answers files (may repeat)")
    ho.add_argument("--roster", metavar="FILE", help="every student of a CSV roster (column student_id, id, sis_id or email)")
    ho.add_argument("--course", metavar="FILE", help="course.toml with the course secret the variants derive from "
                                                     "(default: $HALO_COURSE_SECRET, else course.toml here)")

    ex = sub.add_parser("export", help="for course platforms: Gradescope results and autograder, GitHub Classroom")
    exsub = ex.add_subparsers(dest="target", required=True, metavar="TARGET")
    eg = exsub.add_parser("gradescope", help="Gradescope's results.json from a grade run's results.json")
    eg.add_argument("--results", metavar="FILE", help="a grade run's results (default: build/grade/results.json)")
    eg.add_argument("--out", metavar="FILE", help="default: build/grade/gradescope/results.json")
    eg.add_argument("--execution-time", type=float, metavar="SECONDS", help="what grading took (default: the tests' time)")
    eg.add_argument("--preamble", metavar="FILE", help="text put before the summary the student reads")
    eg.add_argument("--assignment", metavar="NAME", help="score out of this assignment of course.toml "
                                                         "(default: its only one, or the whole chapter)")
    ea = exsub.add_parser("gradescope-autograder", help="the autograder zip to upload to Gradescope")
    ea.add_argument("--out", metavar="FILE", help="default: build/gradescope-autograder.zip")
    ea.add_argument("--allow-dirty", action="store_true",
                    help="export even with uncommitted changes to the stubs (the zip holds the committed version)")
    ea.add_argument("--assignment", metavar="NAME", help="the assignment of course.toml the zip grades (default: its "
                                                         "only one); the zip carries it and the course secret")
    ea.add_argument("--course", metavar="FILE", help="the course file (default: course.toml here)")
    ea.add_argument("--roster", metavar="FILE", help="the class roster (CSV) the zip carries, so that a submitter "
                                                     "is matched to their roster ID by sid, email or GitHub username")
    ec = exsub.add_parser("classroom", help="GitHub Classroom's autograding workflow (one step per section)")
    ec.add_argument("--out", metavar="FILE", help="default: build/classroom/classroom.yml")
    ec.add_argument("--assignment", metavar="NAME", help="the assignment of course.toml the workflow grades "
                                                         "(default: its only one, or the whole chapter)")
    ecr = exsub.add_parser("classroom-result",
                           help="a grade run's results as GitHub Classroom's reporter reads them (the workflow's "
                                "steps run it): result=BASE64 to $GITHUB_OUTPUT when set, else BASE64 on stdout")
    ecr.add_argument("--results", metavar="FILE", help="a grade run's results (default: build/grade/results.json)")
    ecr.add_argument("--section", metavar="ID", help="this section only (default: every section of the assignment)")
    ecr.add_argument("--assignment", metavar="NAME", help="score out of this assignment of course.toml or "
                                                          "assignment.toml (default: its only one, or the whole chapter)")

    rl = sub.add_parser("release", help="write a student repository of some sections (a GitHub Classroom template)",
                        description="Write, from the last commit, a student repository of the sections named: their "
                                    "stubs, lessons and questions, the grader and the tools; no solutions, no answer "
                                    "keys. An assignment of course.toml can name the sections instead.")
    rl.add_argument("--sections", metavar="LIST", help="the sections handed out, e.g. 7.2,7.4")
    rl.add_argument("--out", metavar="DIR", help="where the release goes (outside this repository)")
    rl.add_argument("--mode", choices=["formative", "summative"],
                    help="formative (default): students check their answers locally; summative: answers are "
                         "checked by the course's autograder only")
    rl.add_argument("--assignment", metavar="NAME", help="hand out this assignment of the course file (its sections, "
                                                         "points, visibility, due date and mode)")
    rl.add_argument("--course", metavar="FILE", help="the course file (default: course.toml here)")
    rl.add_argument("--force", action="store_true", help="DIR is not empty: keep it as DIR.backup-<time> and write "
                                                         "the release in its place")

    va = sub.add_parser("variants", help="give each GitHub Classroom clone its student's own answers files "
                                         "(committed, ready to push)")
    va.add_argument("--into-clones", required=True, metavar="DIR", help="the folder of the class's clones")
    va.add_argument("--roster", required=True, metavar="FILE",
                    help="the CSV roster: a student ID column and github_username (whose clone is whose)")
    va.add_argument("--assignment", metavar="NAME", help="the assignment of course.toml (default: its only one)")
    va.add_argument("--course", metavar="FILE", help="the course file with the secret (default: course.toml here)")
    d = sub.add_parser("docs", help="build the self-study site (MkDocs, Material theme) from docs/ and chapters/")
    d.add_argument("--instructor", action="store_true", help="also the answer keys and reference kernels")
    d.add_argument("--output", metavar="DIR", help="where the site goes (default: build/site, or "
                                                    "build/site-instructor with --instructor)")
    d.add_argument("--serve", action="store_true", help="then serve it at http://127.0.0.1:8000/")

    le = sub.add_parser("lesson", help="print a section's lesson, with its numbers filled in")
    le.add_argument("section", metavar="SECTION", help="e.g. 7.2")

    st = sub.add_parser("status", help="your progress per section, from the last grade run, and what to do next")
    st.add_argument("--build-dir", metavar="DIR", help="show only this grade build's last run (results.json); "
                                                       "default: every section's latest result, whichever run graded it")

    su = sub.add_parser("submit", help="check your exercises and hand them in: the Gradescope zip, or what to "
                                       "commit and push for GitHub Classroom")
    su.add_argument("sections", nargs="*", metavar="SECTION", help="e.g. 7.2 (default: every section in exercises/)")
    su.add_argument("--to", choices=("gradescope", "classroom"), required=True,
                    help="where your course collects work (the course page says)")

    hi = sub.add_parser("hint", help="the next hint of a section (hints unfold one at a time)")
    hi.add_argument("section", metavar="SECTION", nargs="?",
                    help="e.g. 7.4 (default: the section you are on, as status sees it)")
    hi.add_argument("--all", action="store_true", help="show every hint of the section")
    hi.add_argument("--reset", action="store_true", help="forget which hints of the section you have seen")

    wa = sub.add_parser("watch", help="grade again every time you save a file of the section(s)")
    wa.add_argument("sections", nargs="*", metavar="SECTION", help="e.g. 7.2 (default: every section)")
    wa.add_argument("--grade-command", metavar="CMD",
                    help="for tests: run CMD SECTION... instead of ./workbook grade SECTION...")

    rs = sub.add_parser("reset", help="start a section again from its stub and blank answers (your files are backed up)")
    rs.add_argument("section", metavar="SECTION", help="e.g. 7.2")
    rs.add_argument("--dry-run", action="store_true", help="only show what would change")

    i = sub.add_parser("internal", help="commands the build and the tests call")
    isub = _Commands(i.add_subparsers(dest="internal", required=True), internal)
    se = isub.add_parser("sections", help="sections and questions, one per line, for CMake")
    se.add_argument("--tests", action="append", choices=["cpu", "cuda"], default=[], metavar="BACKEND",
                    help="also every kernel section's test names for this backend (cpu or cuda; repeatable)")
    lt = isub.add_parser("list-tests", help="the test names a section's sources compile for a backend, for CMake")
    lt.add_argument("--backend", choices=["cpu", "cuda"], required=True)
    lt.add_argument("sources", nargs="+")
    ct = isub.add_parser("compare-test-list", help="the registered test names must be the judge program's own")
    ct.add_argument("--program", required=True)
    ct.add_argument("names", nargs="*")
    e = isub.add_parser("emit-header", help="write the C++ headers of formulas, examples, measurements, defines")
    e.add_argument("output", help="the header of formulas, examples and measurements")
    e.add_argument("defines_output", help="the header of #defines for kernel files")
    a = isub.add_parser("check-answer", help="check one answer of an answers.toml")
    a.add_argument("--section", required=True)
    a.add_argument("--question", required=True)
    a.add_argument("--file", required=True)
    f = isub.add_parser("check-answers-file", help="check an answers.toml as a whole")
    f.add_argument("--section", required=True)
    f.add_argument("--file", required=True)
    f.add_argument("--expect-status", help="require every question to have this status (e.g. 'not answered')")
    x = isub.add_parser("expect-failure", help="run a test binary that must fail the right way")
    x.add_argument("--binary", required=True)
    x.add_argument("--every-test", action="store_true")
    x.add_argument("--expect", help="text every failing test must print (with --every-test)")
    x.add_argument("--wrong-kernel", nargs=2, metavar=("SECTION", "NAME"))
    x.add_argument("--binary-arg", action="append", default=[], metavar="ARG",
                   help="with --wrong-kernel: an option for the binary's run (doctest's --source-file-exclude=...); "
                        "may repeat")
    lk = isub.add_parser("learner-kernel", help="run a learner-corpus kernel's tests; check the verdict and key")
    lk.add_argument("--binary", required=True)
    lk.add_argument("--section", required=True)
    lk.add_argument("--name", required=True)
    lk.add_argument("--binary-arg", action="append", default=[], metavar="ARG",
                    help="an option for the run of the binary (doctest's --source-file-exclude=...); may repeat")
    wl = isub.add_parser("write-learner-kernels", help="write each learner-corpus kernel's tree")
    wl.add_argument("--section", required=True)
    wl.add_argument("--out", required=True)
    r = isub.add_parser("replay-check", help="run failing binaries twice with one seed; outputs must match")
    r.add_argument("binaries", nargs="+")
    dp = isub.add_parser("diagnostics-page", help="write docs/diagnostics.md from real runs of a check build")
    dp.add_argument("--build-dir", default=None)
    dp.add_argument("--out", default=None)
    gs = isub.add_parser("gpu-sanitizer", help="run a GPU test binary under compute-sanitizer")
    gs.add_argument("--sanitizer", required=True, help="the compute-sanitizer program")
    gs.add_argument("--tool", required=True, choices=["memcheck", "racecheck"])
    gs.add_argument("--binary", required=True)
    gs.add_argument("--must-catch", action="store_true", help="a known-wrong kernel: the tool must report it")
    gs.add_argument("--tests", default="*", help="doctest filter of the test cases to run")
    la = isub.add_parser("load-agreement", help="the CPU/GPU load-count table from two report folders")
    la.add_argument("--cpu", required=True, help="HALO_REPORT_DIR of a CPU run of the reference solutions")
    la.add_argument("--gpu", required=True, help="HALO_REPORT_DIR of a GPU run with the load counter")
    la.add_argument("--machine", required=True, help="the GPU, driver and CUDA version, for the page")
    la.add_argument("--out", required=True)
    lh = isub.add_parser("load-heatmaps", help="per-element load counts of the reference kernels, as JSON")
    lh.add_argument("--build-dir", type=Path, default=None, help="a check build (default build/check)")
    lh.add_argument("--out", type=Path, default=None, help="default docs/results/cpu-load-heatmaps.json")
    gp = isub.add_parser("gpu-suite-page", help="the GPU suite's results page from its JUnit files")
    gp.add_argument("--junit", nargs="+", required=True)
    gp.add_argument("--machine", required=True, help="the GPU, driver and CUDA version, for the page")
    gp.add_argument("--out", required=True)
    wv = isub.add_parser("write-variant-answers",
                         help="write <out>/<student>/<folder>/answers.toml of per-student variants")
    wv.add_argument("--student", action="append", default=[], metavar="ID", help="a student ID (may repeat)")
    wv.add_argument("--roster", metavar="FILE", help="a CSV roster with a column student_id, id, sis_id or email")
    wv.add_argument("--out", required=True, metavar="DIR")
    wv.add_argument("--course", metavar="FILE", help="course.toml with the secret (default: $HALO_COURSE_SECRET, "
                                                     "else course.toml at the repository root)")
    wv.add_argument("--key", action="store_true", help="write the answer keys of the variants instead")
    wv.add_argument("--force", action="store_true", help="replace files that differ (a backup is kept)")
    cb = isub.add_parser("ctest-before", help="plain ctest in a grade build: rebuild what changed (CTestCustom.cmake)")
    cb.add_argument("--build-dir", required=True)
    cb.add_argument("--cmake", required=True, help="the cmake that configured the build")
    ca = isub.add_parser("ctest-after", help="plain ctest in a grade build: each failure's message, load reports")
    ca.add_argument("--build-dir", required=True)
    wc = isub.add_parser("write-committed-stubs", help="exercises/ of the last commit into --out (check mode builds "
                                                       "them, never a student's edits)")
    wc.add_argument("--out", required=True, metavar="DIR")
    cc = isub.add_parser("check-student-path", help="in a clone: grade, plain ctest and the workflow preset fail a "
                                                    "wrong kernel with its message; the docs quote real runs")
    cc.add_argument("--work", required=True, metavar="DIR")
    cf = isub.add_parser("check-first-run", help="in a clone: the first grade of the untouched stubs is a line a "
                                                 "section and the table; a file that does not compile is said so")
    cf.add_argument("--work", required=True, metavar="DIR")
    cu = isub.add_parser("check-untouched-stubs", help="in check-first-run's clone: an untouched stub judged "
                                                       "without a run grades as a real run of it does")
    cu.add_argument("--work", required=True, metavar="DIR")
    ct = isub.add_parser("check-term", help="run docs/instructor.md's term (release, exports, grade-class of a "
                                            "generated class of 20) in a clone; check every verdict")
    ct.add_argument("--work", required=True, metavar="DIR")
    cs = isub.add_parser("check-slurm", help="start a one-node Slurm (as root), grade the generated class of 20 "
                                             "with grade-class --slurm --submit; check every row, reruns and a kill")
    cs.add_argument("--work", required=True, metavar="DIR")
    ag = isub.add_parser("autograde", help="run_autograder's one process: lay the submission out, find who sent "
                                           "it, grade, export results.json (course/autograde.py)")
    ag.add_argument("--root", required=True, metavar="DIR", help="the autograder's root (/autograder)")
    ag.add_argument("--work", required=True, metavar="DIR", help="scratch: the graded tree and the note")
    ag.add_argument("--build", required=True, metavar="DIR", help="the grade's build folder")
    ag.add_argument("--results", required=True, metavar="FILE", help="Gradescope's results.json")
    ag.add_argument("--started", required=True, type=float, metavar="EPOCH", help="when the run began (seconds)")
    cf = isub.add_parser("check-libraries-left-out",
                         help="the grader's libraries and judges of a build read nothing their cache keys leave out")
    cf.add_argument("--build-dir", required=True, metavar="DIR")
    cr = isub.add_parser("check-release", help="release 7.2 and 7.4; grade the stubs and the reference kernels in it")
    cr.add_argument("--work", required=True, metavar="DIR")
    w = isub.add_parser("write-wrong-kernels", help="write each known-wrong kernel's tree")
    w.add_argument("--section", required=True)
    w.add_argument("--out", required=True)
    if not sub.built or (command == "internal" and not isub.built):
        return None
    return p


def _students(args):
    """The students named by --student (repeatable) and --roster; VariantError on a bad one."""
    from .core import variants
    students = [variants.check_student_id(sid) for sid in args.student]
    students += variants.read_roster(args.roster) if args.roster else []
    if len(set(students)) != len(students):
        raise variants.VariantError("a student is named twice (in --student and --roster?)")
    return students


def _chapter(root, checked_in=None):
    from .core.chapter_data import CHECKED_IN_ENV, ChapterError, load_chapter_once
    # A build folder that remembers the chapter it last checked (load_chapter): grade's own, or
    # the one a caller names for its commands (./workbook check for its tests, the autograder).
    checked_in = checked_in or os.environ.get(CHECKED_IN_ENV) or None
    try:
        return load_chapter_once(Path(root), checked_in)
    except ChapterError as e:
        sys.exit(f"halo: {e}")


def _internal(root, args):
    if args.internal == "autograde":  # before the imports below: a submission's run pays only for its own
        from .course import autograde
        return autograde.run(root, args.root, args.work, args.build, args.results, args.started, main)
    # Each command imports what it uses: the CTest entries of a check start some 400 of these
    # (check-answer, expect-failure, learner-kernel), and expect-failure and learner-kernel have no
    # use for answers and answers_phase (some 60 ms of imports in a quiet check-answer).
    if args.internal == "gpu-sanitizer":
        from .dev import gpu_sanitizer
        return gpu_sanitizer.run(args.sanitizer, args.tool, args.binary, args.must_catch, args.tests)
    if args.internal == "gpu-suite-page":
        from .site import gpu_suite_page
        return gpu_suite_page.run(args.junit, args.machine, args.out)
    if args.internal == "load-heatmaps":
        from .site import heatmaps
        return heatmaps.run(root, args.build_dir, args.out)
    if args.internal == "load-agreement":
        from .core import load_agreement
        return load_agreement.run(args.cpu, args.gpu, args.machine, args.out)
    if args.internal == "list-tests":
        from .core import test_list
        return test_list.run(args.sources, args.backend)
    if args.internal == "compare-test-list":
        from .core import test_list
        return test_list.compare_with_program(args.program, args.names)
    if args.internal == "replay-check":
        from .dev import expect_failure
        return expect_failure.replay_reproduces(args.binaries)
    if args.internal == "expect-failure":
        from .dev import expect_failure
        if args.every_test:
            if args.binary_arg:
                sys.exit("halo: --binary-arg goes with --wrong-kernel, not --every-test")
            return expect_failure.every_test_fails(args.binary, args.expect or "")
        from .core import wrong_kernels
        section_id, name = args.wrong_kernel
        chapter = _chapter(root)
        for w in wrong_kernels.load(root, chapter.section(section_id)):
            if w.name == name:
                return expect_failure.wrong_kernel_caught(args.binary, w.expect, w.name, w.env, args.binary_arg)
        sys.exit(f"halo: no known-wrong kernel named {name!r} in section {section_id}")

    chapter = _chapter(root)
    if args.internal == "sections":
        for s in chapter.sections:
            print(f"section|{s.id}|{s.slug}|{s.folder}|{','.join(s.kernels)}")
            for q in chapter.questions(s.id):
                print(f"question|{s.id}|{q.id}")
        from .core import test_list
        for line in test_list.listing_lines(root, chapter.sections, args.tests):
            print(line)
        return 0
    if args.internal == "emit-header":
        from .core import cpp_header
        for path, text in ((args.output, cpp_header.emit_header(chapter)),
                           (args.defines_output, cpp_header.emit_defines(chapter))):
            out = Path(path)
            out.parent.mkdir(parents=True, exist_ok=True)
            if not out.exists() or out.read_text() != text:  # unchanged: nothing rebuilds
                out.write_text(text)
        return 0
    if args.internal == "check-answer":
        from .core import answers_phase
        # HALO_STUDENT: who submitted (grade --student, or the autograder's submission metadata):
        # a variant file made for anyone else is INVALID.
        ok, text = answers_phase.check_question_output(chapter, args.section, args.question, args.file,
                                                       os.environ.get("HALO_REPORT_DIR"),
                                                       os.environ.get("HALO_STUDENT") or None)
        print(text)
        return 0 if ok else 1
    if args.internal == "check-answers-file":
        from .core import answers, answers_phase
        if not args.expect_status:
            ok, text = answers_phase.check_file_output(chapter, args.section, args.file)
            print(text)
            return 0 if ok else 1
        problems = answers.check_file(chapter, args.section, args.file)
        for p in problems:
            print(p)
        bad = 0
        for q in chapter.questions(args.section):
            v = answers.check_question(chapter, args.section, q.id, args.file)
            if v.status != args.expect_status:
                bad += 1
                print(f"{q.id}: {v.status}, expected {args.expect_status}")
        print(f"{len(chapter.questions(args.section)) - bad} of {len(chapter.questions(args.section))} "
              f"questions are '{args.expect_status}'")
        return 1 if bad or problems else 0
    if args.internal == "diagnostics-page":
        from .site import diagnostics_page
        text = diagnostics_page.generate(root, chapter, args.build_dir or Path(root) / "build" / "check")
        Path(args.out or Path(root) / "docs" / "diagnostics.md").write_text(text)
        return 0
    if args.internal == "write-variant-answers":
        from .core import variants
        from .course import variant_answers
        try:
            students = _students(args)
            if not students:
                sys.exit("halo: name the students: --student ID (may repeat) or --roster FILE")
            written, backup = variant_answers.write_variant_answers(
                chapter, students, args.out, variants.secret_from_env_or_file(root, args.course),
                force=args.force, with_key=args.key)
        except variants.VariantError as e:
            sys.exit(f"halo: {e}")
        if backup:
            print(f"backed up the replaced files to {backup}/")
        print(f"wrote {len(written)} answers file(s) for {len(students)} student(s) under {args.out}")
        return 0
    if args.internal in ("write-learner-kernels", "learner-kernel"):
        from .dev import learner_kernels
        section = chapter.section(args.section)
        try:
            entries = learner_kernels.load(root, section)
        except learner_kernels.LearnerKernelError as e:
            sys.exit(f"halo: {e}")
        if args.internal == "write-learner-kernels":
            for e in entries:
                learner_kernels.write_tree(root, section, e, Path(args.out) / e.slug)
                print(f"learner|{e.slug}|{e.name}|{e.verdict}")
            return 0
        from .dev import expect_failure
        for e in entries:
            if e.name == args.name:
                return expect_failure.learner_kernel(args.binary, e, args.binary_arg)
        sys.exit(f"halo: no learner kernel named {args.name!r} in section {args.section}")
    if args.internal in ("ctest-before", "ctest-after"):
        from .student import ctest_hooks
        if args.internal == "ctest-before":
            return ctest_hooks.before(chapter, args.build_dir, args.cmake)
        return ctest_hooks.after(chapter, args.build_dir)
    if args.internal == "write-committed-stubs":
        import shutil
        from .core import committed
        try:
            committed.write(root, "exercises", args.out)
        except committed.CommittedError as e:  # a tarball of the project: its exercises/ are all there is
            print(f"halo: {e}; the check builds exercises/ as it is", file=sys.stderr)
            shutil.copytree(Path(root) / "exercises", args.out, dirs_exist_ok=True)
        return 0
    if args.internal == "check-student-path":
        from .dev import student_path_check
        return student_path_check.run_check(root, args.work)
    if args.internal == "check-untouched-stubs":
        from .dev import untouched_stubs_check
        return untouched_stubs_check.run_check(root, args.work)
    if args.internal == "check-first-run":
        from .dev import first_run_check
        return first_run_check.run_check(root, args.work)
    if args.internal == "check-term":
        from .course import term_check
        return term_check.run_check(root, chapter, args.work)
    if args.internal == "check-slurm":
        from .course import slurm_check
        return slurm_check.run_check(root, chapter, args.work)
    if args.internal == "check-libraries-left-out":
        import tempfile
        from .core import grader_cache, judge_cache, toolchain
        from .dev import shared_judges_check
        problems = grader_cache.left_out_problems(args.build_dir, root)
        problems += judge_cache.left_out_problems(args.build_dir, root)
        with tempfile.TemporaryDirectory(prefix="halo-judge-check-") as scratch:
            problems += shared_judges_check.grade_build_differences(root, args.build_dir, toolchain.ensure(quiet=True),
                                                                    scratch)
        print("\n".join(problems) or "the grader's libraries read neither the chapter nor the kernels' given headers; "
              "the judges read nothing of the tree that their key does not hash, name no path of it, and are what "
              "a grade build compiles")
        return 1 if problems else 0
    if args.internal == "check-release":
        from .course.release import check as release_check
        return release_check.run_check(root, args.work)
    if args.internal == "write-wrong-kernels":
        from .core import wrong_kernels
        section = chapter.section(args.section)
        try:
            for w in wrong_kernels.load(root, section):
                wrong_kernels.write_tree(root, section, w, Path(args.out) / w.slug)
                print(f"wrong|{w.slug}|{w.name}|{w.gpu_sanitizer}")
        except wrong_kernels.WrongKernelError as e:
            sys.exit(f"halo: {e}")
        return 0
    return 2


def _student_loop(root, chapter, args):
    """status, hint, watch and reset: the student's loop around grade."""
    named = list(getattr(args, "sections", [])) + ([args.section] if getattr(args, "section", None) else [])
    try:
        for s in named:
            chapter.section(s)
    except KeyError as e:
        sys.exit(f"halo: {e.args[0]}")
    if args.command == "status":
        from .student import status
        return status.run(root, chapter, args.build_dir)
    if args.command == "hint":
        from .student import hints
        return hints.run(root, chapter, args.section, show_all=args.all, reset=args.reset)
    if args.command == "watch":
        from .student import watch
        return watch.run(root, chapter, args.sections, args.grade_command)
    from .student import reset
    return reset.run(root, chapter, args.section, dry_run=args.dry_run)


def main(root, argv):
    if argv[:1] == ["redteam"]:  # the runner has its own options (./workbook redteam --help)
        from .dev import redteam
        return redteam.run(root, None, None, argv[1:])
    args = _parse(argv)
    from .course.release import guard as release_guard
    refusal = release_guard.refusal(root, args)  # a student release refuses what is for instructors
    if refusal:
        sys.exit(refusal)
    if args.command == "release":
        from .course.release import make as release
        return release.run(root, args.sections, args.out, args.mode, args.assignment, args.course, args.force)
    if args.command == "internal":
        return _internal(root, args)
    if args.command == "setup":
        from .core import toolchain
        from .core import machine_grader
        tc = toolchain.ensure()
        print(f"halo setup: clang {tc.cxx}, cmake {tc.cmake}, ninja {tc.ninja}: everything grade builds with is here")
        print(f"halo setup: {machine_grader.prebuild(root, tc)}", flush=True)
        return 0
    if args.command == "check" and args.container:
        if args.sections:
            sys.exit("halo: --container grades 7.2 in the image; --sections goes with --arch alone")
        from .dev import container_check
        return container_check.run(root, args.arch or "amd64", args.build_dir)
    if args.command == "check" and args.arch:
        from .dev import arch_check
        return arch_check.run(root, args.arch, args.sections, args.build_dir)
    if args.command == "check":
        if args.sections:
            sys.exit("halo: --sections goes with --arch (the plain check runs everything)")
        from .dev import check
        return check.run(root, args.build_dir)
    if args.command == "grade":  # the chapter, checked once per build folder (load_chapter)
        from .student.grade import build_folder
        chapter = _chapter(root, build_folder(root, args.build_dir))
    else:
        chapter = _chapter(root)
    if args.command == "sync":
        from .core import regions, sync
        try:
            if args.committed:
                return sync.check_committed(root)
            return sync.run(root, chapter, check=args.check, force=args.force)
        except regions.RegionError as e:
            sys.exit(f"halo: {e}")
    if args.command == "bench":
        if args.checks:
            if args.sections:
                sys.exit("halo: --checks measures the CPU backend of every section; it takes no SECTION")
            from .bench import bench_checks
            return bench_checks.run(root, chapter, repeats=args.repeats, out=args.output)
        if args.gpu_only and not args.class_:
            sys.exit("halo: --gpu-only goes with --class (bench --class --gpu-only)")
        if args.class_:
            from .bench import bench_class
            return bench_class.run(root, chapter, out=args.output, gpu_only=args.gpu_only)
        if args.collect:
            from .bench import bench_collect
            return bench_collect.run(root, chapter, out=args.output)
        if args.isolation:
            from .bench import bench_isolation
            return bench_isolation.run(root, out=args.output)
        if args.cpu or args.loop:
            if args.sections or (args.cpu and args.loop):
                sys.exit("halo: --cpu and --loop take no SECTION, and run one at a time")
            if args.loop:
                from .bench import bench_loop
                return bench_loop.run(root, output_dir=args.output_dir, busy=args.busy)
            from .bench import bench_cpu
            return bench_cpu.run(root, chapter, build_dir=args.build_dir, output_dir=args.output_dir,
                                 runs=args.runs, from_json=args.from_json)
        from .bench import bench_gpu
        return bench_gpu.run(root, chapter, args)
    if args.command == "export":
        from .course import export
        return export.run(root, chapter, args)
    if args.command == "docs":
        from .site import docs_site
        return docs_site.run(root, chapter, args.instructor, args.output, args.serve)
    if args.command == "variants":
        from .course import variants_into_clones
        return variants_into_clones.run(root, chapter, args.into_clones, args.roster, args.assignment, args.course)
    if args.command == "lesson":
        from .core.lesson import LessonError, for_terminal, render_lesson
        from .student.own_lesson import own_questions
        try:
            questions, whose = own_questions(chapter, chapter.section(args.section), Path(root) / "exercises")
            print(for_terminal(render_lesson(chapter, chapter.section(args.section).id, questions)))
            if whose:
                print(whose, file=sys.stderr)
        except (KeyError, LessonError) as e:
            sys.exit(f"halo: {e.args[0] if e.args else e}")
        return 0
    if args.command == "handout":
        from .course import handout
        from .core import variants
        try:
            formats = [f.strip() for f in args.format.split(",") if f.strip()]
            students = _students(args)
            if not students:
                return handout.run(root, chapter, args.sections, args.edition, formats, args.output)
            return handout.run_variants(root, chapter, args.sections, args.edition, formats, args.output, students,
                                        variants.secret_from_env_or_file(root, args.course),
                                        names=handout.roster_names(args.roster) if args.roster else {})
        except (KeyError, handout.HandoutError, variants.VariantError) as e:
            sys.exit(f"halo: {e.args[0] if e.args else e}")
    if args.command in ("status", "hint", "watch", "reset"):
        return _student_loop(root, chapter, args)
    if args.command == "submit":
        from .student import submit
        try:
            return submit.run(root, chapter, args.sections, args.to)
        except KeyError as e:
            sys.exit(f"halo: {e.args[0]}")
    if args.command == "grade-class":
        from .course import class_shards, class_slurm, grade_class
        if args.slurm or args.k8s:
            options = {k: getattr(args, k) for k in class_slurm.KINDS}
            k8s = {"image": args.image, "claim": args.claim} if args.k8s else None
            files = [(flag, getattr(args, name)) for flag, name in (("--roster", "roster"), ("--adjustments", "adjustments"))]
            return class_slurm.run(root, chapter, args.submissions, args.out, args.assignment, args.course, options,
                                   args.submit, k8s, files=[(f, str(Path(v).resolve())) for f, v in files if v])
        modes = [m for m in ("shard", "collect", "harness", "submit", "gpu") if getattr(args, m)]
        if (len(modes) > 1 and modes != ["shard", "gpu"]) or "submit" in modes:
            sys.exit("halo: grade-class takes one of --shard, --collect, --harness and --gpu (--gpu may take a "
                     "--shard); --submit goes with --slurm")
        try:
            shard = class_shards.parse(args.shard) if args.shard else None
        except class_shards.ShardError as e:
            sys.exit(f"halo: {e}")
        if args.gpu:
            from .course import class_gpu
            return class_gpu.run(root, chapter, args.submissions, args.out, args.assignment, args.course, shard)
        return grade_class.run(root, chapter, args.submissions, args.out, args.assignment, args.course, args.jobs,
                               args.fresh, shard=shard, collect=args.collect, harness_only=args.harness,
                               give_back=args.hand_back, adjustments=args.adjustments, roster=args.roster)
    if args.command == "grade":
        from .student import grade
        try:
            for s in args.sections:
                chapter.section(s)
        except KeyError as e:
            sys.exit(f"halo: {e.args[0]}")
        from .core.assignment import AssignmentError, load as load_assignment
        try:
            assignment = load_assignment(chapter, root, args.assignment)
        except AssignmentError as e:
            sys.exit(f"halo: {e}")
        return grade.run(root, chapter, args.sections, args.exercises, args.build_dir, args.gpu, student=args.student,
                         assignment=assignment)
    return 2
