// Spawning and supervising an untrusted worker. Three parts, in order:
//   1. the child side: the supervisor and the worker between fork() and execve();
//   2. bubblewrap: its argv and the once-per-process trial that decides whether it works here;
//   3. the judge side: WorkerProcess itself.
#include "../worker_process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "../../remote/frame.hpp"

namespace halo::remote {
namespace {

// ---------------------------------------------------------------------------------------------
// 1. The child side.
//
// Between fork() and execve() the child of a multithreaded judge may only make
// async-signal-safe calls: no allocation, no stdio, no locks. Everything it needs is prepared
// beforehand in a ChildPlan, and _Fork() is used so that no atfork handler (malloc's, a CUDA
// library's) runs in the child either.
// ---------------------------------------------------------------------------------------------

constexpr int kMaxOpenFiles = 64;
constexpr rlim_t kBwrapTasks = 3;  // bwrap's monitor, its pid-1 init, and a spare

// What the supervisor reports on its status pipe, as fixed-size records (atomic on a pipe).
enum : int32_t { kStarted = 1, kStartFailed = 2, kExited = 3 };
enum Stage : int32_t {
  kStageNone,
  kStagePipe,
  kStageFork,
  kStageFds,
  kStageLimits,
  kStageGroups,
  kStageGid,
  kStageUid,
  kStageVerify,
  kStageNoNewPrivs,
  kStageChdir,
  kStageExec,
  kStageSubreaper,  // kStarted: the worker runs, but the supervisor adopts no orphan
};
struct Record {
  int32_t kind;
  int32_t stage;  // kStartFailed: which step failed; kStarted: kStageSubreaper or kStageNone
  int32_t value;  // kStartFailed and kStageSubreaper: errno; kExited: the worker's wait status
};

struct ChildPlan {
  const char* program;
  char* const* argv;
  char* const* envp;
  int socket_fd;  // becomes the worker's fd 3
  int output_fd;  // becomes its stdout and stderr
  int null_fd;    // becomes its stdin
  int status_fd;  // the supervisor's reports to the judge
  bool limit;     // apply the rlimits below (everything but "none")
  rlimit cpu, memory, file, files, nproc;
  bool limit_nproc;
  bool drop;  // switch to uid/gid: the judge is root
  uid_t uid;
  gid_t gid;
  pid_t judge;
};

void write_record(int fd, Record record) {
  while (write(fd, &record, sizeof record) < 0 && errno == EINTR) {
  }
}

void close_between(int lo, int hi) {  // [lo, hi]
  if (lo > hi) return;
  if (syscall(SYS_close_range, unsigned(lo), unsigned(hi), 0u) == 0) return;
  rlimit r{};
  int end = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < 65536 ? int(r.rlim_cur) : 65536;
  for (int fd = lo; fd <= hi && fd < end; ++fd) close(fd);
}

void close_all_except(int* keep, int count) {
  std::sort(keep, keep + count);  // in place on a small array: no allocation
  int next = 0;
  for (int k = 0; k < count; ++k) {
    if (keep[k] < next) continue;
    close_between(next, keep[k] - 1);
    next = keep[k] + 1;
  }
  close_between(next, INT32_MAX);
}

[[noreturn]] void worker_fails(int report, Stage stage) {
  write_record(report, Record{kStartFailed, stage, errno});
  _exit(127);
}

[[noreturn]] void become_worker(const ChildPlan& p, int report, pid_t supervisor) {
  // Dies with the supervisor, whatever happens to the supervisor.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != supervisor) _exit(127);
  // Its own session and process group: the supervisor kills that group as one.
  setsid();

  // execve() keeps ignored signals ignored and the signal mask as it is: start clean.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &default_action, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  // Move everything above the target numbers first, so that no dup2() clobbers a source.
  int sock = fcntl(p.socket_fd, F_DUPFD, 10);
  int out = fcntl(p.output_fd, F_DUPFD, 10);
  int in = fcntl(p.null_fd, F_DUPFD, 10);
  int rep = fcntl(report, F_DUPFD_CLOEXEC, 10);
  if (sock < 0 || out < 0 || in < 0 || rep < 0) worker_fails(report, kStageFds);
  report = rep;
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(sock, 3) < 0 ||
      dup3(rep, 4, O_CLOEXEC) < 0) {
    worker_fails(report, kStageFds);
  }
  report = 4;  // closed by the successful execve()
  close_between(5, INT32_MAX);

  if (p.limit) {
    if (setrlimit(RLIMIT_CPU, &p.cpu) != 0 || setrlimit(RLIMIT_AS, &p.memory) != 0 ||
        setrlimit(RLIMIT_FSIZE, &p.file) != 0 || setrlimit(RLIMIT_NOFILE, &p.files) != 0 ||
        (p.limit_nproc && setrlimit(RLIMIT_NPROC, &p.nproc) != 0)) {
      worker_fails(report, kStageLimits);
    }
  }
  rlimit no_core{0, 0};  // a crash must not write a core file into whatever directory
  setrlimit(RLIMIT_CORE, &no_core);

  if (p.drop) {
    if (setgroups(0, nullptr) != 0) worker_fails(report, kStageGroups);
    if (setresgid(p.gid, p.gid, p.gid) != 0) worker_fails(report, kStageGid);
    if (setresuid(p.uid, p.uid, p.uid) != 0) worker_fails(report, kStageUid);
    uid_t r, e, s;
    if (setuid(0) == 0 || getresuid(&r, &e, &s) != 0 || r != p.uid || e != p.uid || s != p.uid) {
      errno = EPERM;
      worker_fails(report, kStageVerify);
    }
  }
  // No setuid binary can give the worker privileges back.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) worker_fails(report, kStageNoNewPrivs);
  if (chdir("/") != 0) worker_fails(report, kStageChdir);

  for (int attempt = 0;; ++attempt) {
    execve(p.program, p.argv, p.envp);
    // Another thread of the judge may have forked while our copy of the executable was still
    // open for writing; that child drops the descriptor as soon as it runs.
    if (errno != ETXTBSY || attempt == 100) break;
    timespec pause{0, 10'000'000};
    nanosleep(&pause, nullptr);
  }
  worker_fails(report, kStageExec);
}

// The parent pid in /proc/<name>/stat, or -1.
pid_t parent_of(int proc, const char* name) {
  char path[64];
  size_t n = 0;
  for (; name[n] && n < 40; ++n) path[n] = name[n];
  const char suffix[] = "/stat";
  for (size_t k = 0; k < sizeof suffix; ++k) path[n + k] = suffix[k];
  int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t got = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (got <= 0) return -1;
  // "pid (comm) state ppid ...": comm may contain anything, so start after the last ')'.
  ssize_t k = got - 1;
  while (k >= 0 && buf[k] != ')') --k;
  if (k < 0 || k + 4 >= got) return -1;
  k += 4;  // ") S "
  pid_t ppid = 0;
  for (; k < got && buf[k] >= '0' && buf[k] <= '9'; ++k) ppid = ppid * 10 + (buf[k] - '0');
  return ppid;
}

// Sends SIGKILL to every child of this process. There is no /proc/<pid>/task/<tid>/children
// on every kernel, so this reads the parent of every process.
void kill_children() {
  const pid_t self = getpid();
  int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return;
  struct Entry {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
  };
  alignas(8) char buf[16384];
  for (;;) {
    long n = syscall(SYS_getdents64, proc, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const Entry*>(buf + at);
      at += entry->reclen;
      pid_t pid = 0;
      const char* c = entry->name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0) continue;
      if (parent_of(proc, entry->name) == self) kill(pid, SIGKILL);
    }
  }
  close(proc);
}

// Reaps every child that has exited. Returns false when there are no children left.
bool reap_available(pid_t worker, int& status, bool& reaped) {
  for (;;) {
    int st = 0;
    pid_t r = waitpid(-1, &st, WNOHANG | __WALL);
    if (r > 0) {
      if (r == worker) {
        status = st;
        reaped = true;
      }
      continue;
    }
    if (r == 0) return true;
    if (errno == EINTR) continue;
    return false;
  }
}

// Kills the worker and everything it left behind. As a child subreaper the supervisor adopts
// every orphan of the tree, wherever it moved (setsid, double fork), so repeating "kill all my
// children, reap" until none is left ends the whole tree.
void sweep(pid_t worker, int& status, bool& reaped) {
  if (!reaped) {  // an unreaped pid cannot have been reused: safe to signal, and its group too
    kill(-worker, SIGKILL);
    kill(worker, SIGKILL);
  }
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  for (;;) {
    kill_children();
    if (!reap_available(worker, status, reaped)) return;
    timespec tick{0, 20'000'000};  // a rescan now and then, in case an adoption went unseen
    sigtimedwait(&child, nullptr, &tick);
  }
}

[[noreturn]] void become_supervisor(const ChildPlan& p) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != p.judge) _exit(1);
  setsid();
  // qemu-user (7.2) refuses this with EINVAL: an orphan then goes to init, out of the sweep
  // below, and only the sweep of the worker's own uid ends it. The judge is told (Record).
  const int subreaper_error = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : errno;
  // A worker running as our uid (unprivileged judge) must not ptrace its way into us.
  prctl(PR_SET_DUMPABLE, 0);
  // Every signal waits for sigwaitinfo(); none runs a handler inherited from the judge.
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &default_action, nullptr);  // SIG_IGN would reap children behind our back

  // The judge's other descriptors (other workers' sockets among them) must not be held here.
  int keep[] = {p.socket_fd, p.output_fd, p.null_fd, p.status_fd};
  close_all_except(keep, 4);

  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    write_record(p.status_fd, Record{kStartFailed, kStagePipe, errno});
    _exit(1);
  }
  const pid_t self = getpid();
  const pid_t worker = _Fork();
  if (worker < 0) {
    write_record(p.status_fd, Record{kStartFailed, kStageFork, errno});
    _exit(1);
  }
  if (worker == 0) {
    close(exec_pipe[0]);
    close(p.status_fd);
    become_worker(p, exec_pipe[1], self);
  }
  close(exec_pipe[1]);
  close(p.socket_fd);  // else the judge would never see the worker's end of the socket close
  close(p.output_fd);
  close(p.null_fd);

  // The exec pipe closes without data when execve() succeeded.
  Record failure{};
  ssize_t got;
  while ((got = read(exec_pipe[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  const Record started = subreaper_error ? Record{kStarted, kStageSubreaper, subreaper_error} : Record{kStarted, 0, 0};
  write_record(p.status_fd, got == ssize_t(sizeof failure) ? failure : started);

  // Wait for the worker's end, or for the judge's SIGTERM asking to stop it.
  int status = 0;
  bool reaped = false;
  sigset_t wake;
  sigemptyset(&wake);
  sigaddset(&wake, SIGCHLD);
  sigaddset(&wake, SIGTERM);
  for (;;) {
    reap_available(worker, status, reaped);
    if (reaped || sigwaitinfo(&wake, nullptr) == SIGTERM) break;
  }
  sweep(worker, status, reaped);
  write_record(p.status_fd, Record{kExited, 0, reaped ? status : int(SIGKILL)});
  _exit(0);
}

// ---------------------------------------------------------------------------------------------
// Judge-side helpers.
// ---------------------------------------------------------------------------------------------

std::string error_text(int error) { return std::system_category().message(error); }

[[noreturn]] void fail_errno(const std::string& what) {
  throw std::runtime_error("could not start the worker: " + what + ": " + error_text(errno));
}

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int milliseconds_until(double deadline) {
  double left = deadline - now_seconds();
  if (left <= 0) return 0;
  if (left > 3600) return 3600 * 1000;  // poll() again after an hour: "forever" in practice
  return int(std::ceil(left * 1000));
}

void close_fd(int& fd) noexcept {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Who the worker runs as: a root judge hands it a uid and gid of its own, unused by anyone else
// (no account has them), so that RLIMIT_NPROC, which counts every task of a uid system-wide,
// bounds this worker alone, and not every 'nobody' process of the machine (other judges'
// workers, a whole grade run as 'nobody'); killing "every process of the uid" is then exact.
// The judge's pid makes it unique among judges running at the same time, and a judge has one
// worker at a time. Anyone else keeps their uid (an unprivileged process cannot switch users).
struct Identity {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

constexpr uid_t kWorkerIdBase = 1000000000;  // far above accounts and the usual subordinate ranges

Identity worker_identity() {
  if (geteuid() != 0) return {false, getuid(), getgid()};
  const uid_t id = kWorkerIdBase + uid_t(getpid());
  return {true, id, gid_t(id)};
}

// RLIMIT_NPROC counts every task (process or thread) of the real uid, system-wide. An
// unprivileged judge shares its uid with the worker, so the limit must leave room for what
// that uid already runs.
rlim_t tasks_of_uid(uid_t uid) {
  rlim_t total = 0;
  std::error_code ec;
  // increment(ec), not a range-for: that one throws when reading the directory fails.
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(it->path() / "status");
    std::string line;
    bool mine = false;
    while (std::getline(status, line)) {
      if (line.rfind("Uid:", 0) == 0) mine = std::strtoul(line.c_str() + 4, nullptr, 10) == uid;
      if (line.rfind("Threads:", 0) == 0 && mine) total += std::strtoul(line.c_str() + 8, nullptr, 10);
    }
  }
  return total;
}

// The command the supervisor's child will execve().
struct Command {
  std::string program;
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> envp;  // "KEY=value"
  bool limit = false;
  Limits limits;
  rlim_t nproc = 0;  // 0: no RLIMIT_NPROC
  Identity identity;
};

struct Launched {
  pid_t supervisor = -1;
  int socket = -1;
  int output = -1;
  int status = -1;
};

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

rlimit exact(uint64_t value) {
  rlim_t v = value == 0 ? RLIM_INFINITY : rlim_t(value);
  return rlimit{v, v};
}

// `wanted`, cut to the hard limit this process runs under. Without CAP_SYS_RESOURCE no process
// can raise a hard limit: asking for more fails setrlimit() with EPERM, and on an account with
// `ulimit -t 120` every worker failed to start and every student scored 0. Where the hard limit
// is too tight for grading to work at all, the grade stops before it starts, with one line
// (tools/halo/core/limits.py); below that, a tighter limit is what the account allows anyway.
rlimit fitted(int resource, rlimit wanted) {
  rlimit have{};
  if (getrlimit(resource, &have) != 0) return wanted;
  // RLIM_INFINITY is the largest rlim_t: min() leaves an unlimited side as it is.
  rlim_t hard = std::min(wanted.rlim_max, have.rlim_max);
  rlim_t soft = std::min(wanted.rlim_cur, hard);
  // CPU: keep SIGXCPU a second before SIGKILL when the hard limit cut both to one value.
  if (resource == RLIMIT_CPU && hard < wanted.rlim_max && soft == hard && hard > 1) soft = hard - 1;
  return rlimit{soft, hard};
}

int open_output_file() {
  int fd = memfd_create("halo-worker-output", MFD_CLOEXEC);
  if (fd < 0) fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) fail_errno("creating the output file");
  return fd;
}

std::string stage_text(int32_t stage) {
  switch (stage) {
    case kStagePipe: return "creating a pipe";
    case kStageFork: return "fork";
    case kStageFds: return "setting up its file descriptors";
    case kStageLimits: return "setting its resource limits";
    case kStageGroups: return "dropping supplementary groups";
    case kStageGid: return "switching to the worker's group";
    case kStageUid: return "switching to the worker's user";
    case kStageVerify: return "verifying the privilege drop";
    case kStageNoNewPrivs: return "PR_SET_NO_NEW_PRIVS";
    case kStageChdir: return "chdir";
    case kStageExec: return "execve";
    default: return "setup";
  }
}

// Reads the supervisor's next record, waiting up to timeout_ms. Returns false on timeout;
// a supervisor that died without a record reads as {0, 0, 0}.
bool read_record(int fd, int timeout_ms, Record& record) {
  pollfd p{fd, POLLIN, 0};
  double deadline = now_seconds() + timeout_ms / 1000.0;
  for (;;) {
    int r = poll(&p, 1, timeout_ms < 0 ? -1 : milliseconds_until(deadline));
    if (r > 0) break;
    if (r == 0) return false;
    if (errno != EINTR) break;
  }
  record = Record{};
  ssize_t got;
  while ((got = read(fd, &record, sizeof record)) < 0 && errno == EINTR) {
  }
  if (got != ssize_t(sizeof record)) record = Record{};
  return true;
}

// Forks the supervisor, which forks and executes the command. Returns once execve() has
// succeeded or failed; `out` holds whatever was created, for the caller to clean up.
Record launch(const Command& c, Launched& out) {
  std::vector<char*> argv = c_strings(c.argv);
  std::vector<char*> envp = c_strings(c.envp);

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) fail_errno("socketpair");
  out.socket = pair[0];
  int child_socket = pair[1];
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int status_pipe[2] = {-1, -1};
  if (null_fd < 0 || pipe2(status_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    close_fd(child_socket);
    close_fd(null_fd);
    errno = error;
    fail_errno("opening /dev/null and a pipe");
  }
  out.status = status_pipe[0];
  int status_write = status_pipe[1];
  try {
    out.output = open_output_file();
  } catch (...) {
    close_fd(child_socket);
    close_fd(null_fd);
    close_fd(status_write);
    throw;
  }

  ChildPlan plan{};
  plan.program = c.program.c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.socket_fd = child_socket;
  plan.output_fd = out.output;
  plan.null_fd = null_fd;
  plan.status_fd = status_write;
  plan.limit = c.limit;
  if (c.limit) {
    double cpu = c.limits.cpu_seconds;
    if (cpu > 0 && std::isfinite(cpu)) {
      rlim_t soft = rlim_t(std::max(1.0, std::ceil(cpu)));
      plan.cpu = rlimit{soft, soft + 1};  // SIGXCPU at the soft limit, SIGKILL a second later
    } else {
      plan.cpu = rlimit{RLIM_INFINITY, RLIM_INFINITY};
    }
    plan.cpu = fitted(RLIMIT_CPU, plan.cpu);
    plan.memory = fitted(RLIMIT_AS, exact(c.limits.memory_bytes));
    plan.file = fitted(RLIMIT_FSIZE, exact(c.limits.file_bytes));
    plan.files = fitted(RLIMIT_NOFILE, rlimit{kMaxOpenFiles, kMaxOpenFiles});
    plan.nproc = fitted(RLIMIT_NPROC, rlimit{c.nproc, c.nproc});
    plan.limit_nproc = c.nproc > 0;
  }
  plan.drop = c.identity.drop;
  plan.uid = c.identity.uid;
  plan.gid = c.identity.gid;
  plan.judge = getpid();

  pid_t pid = _Fork();
  if (pid == 0) become_supervisor(plan);
  int fork_error = errno;
  close_fd(child_socket);
  close_fd(null_fd);
  close_fd(status_write);
  if (pid < 0) {
    errno = fork_error;
    fail_errno("fork");
  }
  out.supervisor = pid;
  fcntl(out.socket, F_SETFL, fcntl(out.socket, F_GETFL) | O_NONBLOCK);

  Record first{};
  if (!read_record(out.status, 30'000, first)) {
    throw std::runtime_error("could not start the worker: it did not start within 30 s");
  }
  if (first.kind == kStartFailed) {
    throw std::runtime_error("could not start the worker (" + c.program + "): " +
                             stage_text(first.stage) + " failed: " + error_text(first.value));
  }
  if (first.kind != kStarted) throw std::runtime_error("could not start the worker: its supervisor died");
  return first;
}

// Kills every process of `uid` from a helper that runs as that uid: kill(-1) then reaches
// exactly that user's processes, wherever they are.
void kill_every_process_of(uid_t uid, gid_t gid) noexcept {
  pid_t helper = _Fork();
  if (helper == 0) {
    if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) _exit(1);
    for (int round = 0; round < 100 && kill(-1, SIGKILL) == 0; ++round) {
      timespec pause{0, 1'000'000};
      nanosleep(&pause, nullptr);
    }
    _exit(0);
  }
  if (helper > 0) {
    while (waitpid(helper, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Bubblewrap.
// ---------------------------------------------------------------------------------------------

struct Bubblewrap {
  std::string path;
  bool works = false;
  bool modern = false;  // --size, --disable-userns (bwrap 0.8)
  std::string note;     // why it does not work
};

std::string find_bwrap() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    start = end + 1;
    if (dir.empty() || dir[0] != '/') continue;  // a relative PATH entry would depend on the cwd
    std::string candidate = dir + "/bwrap";
    struct stat st{};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return access("/usr/bin/bwrap", X_OK) == 0 ? "/usr/bin/bwrap" : "";
}

// Top-level directories the dynamic loader and /bin/sh need. Where the host has them as
// symlinks into /usr (merged /usr), the sandbox gets the same symlink.
void add_system_dir(std::vector<std::string>& argv, const char* dir) {
  struct stat st{};
  if (lstat(dir, &st) != 0) return;
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = readlink(dir, target, sizeof target - 1);
    if (n <= 0) return;
    argv.insert(argv.end(), {"--symlink", std::string(target, size_t(n)), dir});
  } else if (S_ISDIR(st.st_mode)) {
    argv.insert(argv.end(), {"--ro-bind-try", dir, dir});
  }
}

std::vector<std::string> bwrap_argv(const Bubblewrap& bwrap, bool modern, const std::string& private_dir,
                                    const std::string& program, const std::vector<std::string>& args,
                                    const std::vector<std::pair<std::string, std::string>>& env,
                                    uint64_t tmp_bytes) {
  std::vector<std::string> a = {bwrap.path, "--unshare-all"};
  // No nested user namespaces: they would hand the worker a root-like view of more kernel code.
  if (modern) a.insert(a.end(), {"--unshare-user", "--disable-userns"});
  a.insert(a.end(), {"--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr"});
  for (const char* dir : {"/bin", "/lib", "/lib64"}) add_system_dir(a, dir);
  a.insert(a.end(), {"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", "--proc", "/proc", "--dev", "/dev",
                     // /dev is a writable tmpfs without a size limit: make it read-only.
                     "--remount-ro", "/dev"});
  // Files in a tmpfs are memory that no rlimit counts: bound the total.
  if (modern) a.insert(a.end(), {"--size", std::to_string(std::max<uint64_t>(tmp_bytes, 1 << 20))});
  a.insert(a.end(), {"--tmpfs", "/tmp"});
  if (!private_dir.empty()) a.insert(a.end(), {"--ro-bind", private_dir, private_dir});
  a.insert(a.end(), {"--chdir", "/tmp", "--"});
  // bwrap always sets PWD after its chdir, even with --clearenv; `env -i` makes the worker's
  // environment exactly what was passed. (The program's name contains no '=': see
  // copy_executable.)
  a.insert(a.end(), {access("/usr/bin/env", X_OK) == 0 ? "/usr/bin/env" : "/bin/env", "-i"});
  for (const auto& [key, value] : env) a.push_back(key + "=" + value);
  a.push_back(program);
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

// Ends a tree that was launched but never handed to a WorkerProcess (the trial run).
void end_launched(Launched& l, bool exited, const Identity& id) {
  if (l.supervisor > 0) {
    Record record{};
    if (!exited) {
      kill(l.supervisor, SIGTERM);
      exited = read_record(l.status, 3000, record) && record.kind == kExited;
    }
    if (!exited) {
      kill(l.supervisor, SIGKILL);
      if (id.drop) kill_every_process_of(id.uid, id.gid);
    }
    while (waitpid(l.supervisor, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(l.socket);
  close_fd(l.output);
  close_fd(l.status);
}

std::string first_line(int fd) {
  char buf[1024];
  ssize_t n = pread(fd, buf, sizeof buf, 0);
  std::string text(buf, size_t(std::max<ssize_t>(n, 0)));
  text = text.substr(0, text.find('\n'));
  return text;
}

// One trial: `bwrap ... -- /bin/true` as the worker would be run (same identity, same limits).
// Returns "" when it worked, else why not.
std::string try_bwrap(const Bubblewrap& bwrap, bool modern, const Identity& id) {
  Command c;
  c.program = bwrap.path;
  c.argv = bwrap_argv(bwrap, modern, "", "/bin/true", {}, {}, Limits{}.file_bytes);
  c.limit = true;
  c.identity = id;
  c.nproc = rlim_t(Limits{}.processes) + kBwrapTasks + (id.drop ? 0 : tasks_of_uid(id.uid) + 1);
  Launched l;
  std::string why;
  bool exited = false;
  try {
    launch(c, l);
    Record record{};
    exited = read_record(l.status, 10'000, record) && record.kind == kExited;
    if (!exited) {
      why = "bwrap did not finish a trial run within 10 s";
    } else if (!WIFEXITED(record.value) || WEXITSTATUS(record.value) != 0) {
      std::string line = first_line(l.output);
      bool userns = line.find("namespace") != std::string::npos || line.find("ermission") != std::string::npos;
      if (line.empty()) line = "it exited with wait status " + std::to_string(record.value);
      why = (userns ? "bwrap could not create a user namespace: " : "bwrap did not work here: ") + line;
    }
  } catch (const std::exception& e) {
    why = std::string("bwrap could not be started: ") + e.what();
  }
  end_launched(l, exited, id);
  return why;
}

Bubblewrap probe_bubblewrap(const Identity& id) {
  Bubblewrap b;
  try {
    b.path = find_bwrap();
    if (b.path.empty()) {
      b.note = "bwrap not found (apt-get install bubblewrap)";
      return b;
    }
    // Older bwrap lacks --size and --disable-userns: fall back to the argv without them.
    for (bool modern : {true, false}) {
      std::string why = try_bwrap(b, modern, id);
      if (why.empty()) {
        b.works = true;
        b.modern = modern;
        b.note.clear();
        return b;
      }
      b.note = why;
    }
  } catch (const std::exception& e) {
    b.note = std::string("bwrap could not be tried: ") + e.what();
  }
  return b;
}

// The only global state: whether bubblewrap works here does not change while we run.
const Bubblewrap& bubblewrap(const Identity& id) {
  static const Bubblewrap cached = probe_bubblewrap(id);
  return cached;
}

// ---------------------------------------------------------------------------------------------
// 3. The judge side.
// ---------------------------------------------------------------------------------------------

std::string make_private_dir() {
  char path[] = "/tmp/halo-worker-XXXXXX";
  if (!mkdtemp(path)) fail_errno("creating a directory under /tmp");
  chmod(path, 0755);  // 'nobody' must reach the copy; nobody but us may change it
  return path;
}

// Copies the worker executable into `dir`, read-and-execute only: the original may sit where
// 'nobody' cannot look (/root), and the sandbox then needs to see nothing of the build tree.
std::string copy_executable(const std::string& source, const std::string& dir) {
  std::string name = std::filesystem::path(source).filename().string();
  if (name.empty() || name == "." || name == "..") name = "worker";
  std::replace(name.begin(), name.end(), '=', '_');  // `env` would take it for a variable
  const std::string target = dir + "/" + name;
  int in = open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail_errno("reading " + source);
  int out = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (out < 0) {
    int error = errno;
    close(in);
    errno = error;
    fail_errno("creating " + target);
  }
  int error = 0;  // the first failure's errno
  char buf[1 << 16];
  while (!error) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = errno;
    if (n <= 0) break;
    for (ssize_t done = 0; !error && done < n;) {
      ssize_t w = write(out, buf + done, size_t(n - done));
      if (w > 0) done += w;
      else if (errno != EINTR) error = w < 0 ? errno : EIO;
    }
  }
  if (!error && fchmod(out, 0555) != 0) error = errno;
  if (close(out) != 0 && !error) error = errno;
  close(in);
  if (error) {
    errno = error;
    fail_errno("copying " + source + " to " + target);
  }
  return target;
}

std::string seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", seconds);
  return buf;
}

// Keeps printable ASCII, newlines, tabs and well-formed UTF-8; every other byte becomes '?'.
std::string printable_utf8(const std::string& raw) {
  std::string out;
  out.reserve(raw.size());
  const auto* s = reinterpret_cast<const unsigned char*>(raw.data());
  const size_t n = raw.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x80) {
      out += (c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t' ? char(c) : '?';
      ++i;
      continue;
    }
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (s[i + k] & 0xc0) == 0x80;
    if (ok && len == 3) {
      ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0);  // overlong, surrogate
    }
    if (ok && len == 4) ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
    if (ok) {
      out.append(raw, i, len);
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

enum class Wait { ready, timeout, ended };

// Waits until the socket is ready for `events`, the deadline passes, or the supervisor
// reports the worker's end. A ready socket wins: a reply sent just before exiting still counts.
Wait wait_for(int socket, int status, short events, double deadline) {
  for (;;) {
    pollfd p[2] = {{socket, events, 0}, {status, POLLIN, 0}};
    int r = poll(p, 2, milliseconds_until(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Wait::ended;
    if (p[0].revents) return Wait::ready;
    if (p[1].revents) return Wait::ended;
    if (now_seconds() >= deadline) return Wait::timeout;
  }
}

constexpr int kExitGraceMs = 1000;  // between the socket closing and the exit status
constexpr int kStopGraceMs = 3000;  // for the supervisor to sweep the tree

}  // namespace

WorkerProcess::WorkerProcess(SpawnOptions options) {
  try {
    spawn(options);
  } catch (...) {
    stop();
    release();
    throw;
  }
}

WorkerProcess::~WorkerProcess() {
  try {
    stop();
    release();
  } catch (...) {
  }
}

void WorkerProcess::spawn(const SpawnOptions& o) {
  if (o.worker_path.empty() || o.worker_path[0] != '/') {
    throw std::invalid_argument("worker_path must be an absolute path, not \"" + o.worker_path + "\"");
  }
  for (const auto& [key, value] : o.env) {
    if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos ||
        value.find('\0') != std::string::npos) {
      throw std::invalid_argument("invalid environment variable name \"" + key + "\"");
    }
  }
  const Identity id = worker_identity();
  const Bubblewrap* bwrap = nullptr;
  if (o.sandbox == "none") {
    isolation_ = Isolation::none;
    note_ = "sandbox \"none\" was requested: no limits and no privilege drop";
  } else if (o.sandbox == "rlimits-only") {
    isolation_ = Isolation::rlimits_only;
    note_ = "sandbox \"rlimits-only\" was requested";
  } else if (o.sandbox == "bubblewrap" || o.sandbox == "auto") {
    bwrap = &bubblewrap(id);
    if (bwrap->works) {
      isolation_ = Isolation::bubblewrap;
    } else if (o.sandbox == "bubblewrap") {
      throw std::runtime_error("the bubblewrap sandbox is not available: " + bwrap->note);
    } else {
      isolation_ = Isolation::rlimits_only;
      note_ = bwrap->note;
      bwrap = nullptr;
    }
  } else {
    throw std::invalid_argument("unknown sandbox \"" + o.sandbox +
                                "\" (expected auto, bubblewrap, rlimits-only or none)");
  }

  Command c;
  c.limits = o.limits;
  std::string program = o.worker_path;
  if (isolation_ == Isolation::none) {
    c.identity = Identity{false, getuid(), getgid()};
  } else {
    c.identity = id;
    c.limit = true;
    private_dir_ = make_private_dir();
    program = copy_executable(o.worker_path, private_dir_);
    rlim_t processes = rlim_t(std::max(o.limits.processes, 1)) + (bwrap ? kBwrapTasks : 0);
    // +1: the supervisor, which runs as the judge's uid
    c.nproc = id.drop ? processes : processes + tasks_of_uid(id.uid) + 1;
  }
  if (bwrap) {
    c.program = bwrap->path;
    c.argv = bwrap_argv(*bwrap, bwrap->modern, private_dir_, program, o.args, o.env, o.limits.file_bytes);
  } else {
    c.program = program;
    c.argv = {program};
    c.argv.insert(c.argv.end(), o.args.begin(), o.args.end());
    for (const auto& [key, value] : o.env) c.envp.push_back(key + "=" + value);
  }
  dropped_ = c.identity.drop;
  worker_uid_ = c.identity.uid;
  worker_gid_ = c.identity.gid;

  Launched l;
  Record started{};
  try {
    started = launch(c, l);
  } catch (...) {
    supervisor_ = l.supervisor;
    socket_ = l.socket;
    output_ = l.output;
    status_ = l.status;
    throw;
  }
  supervisor_ = l.supervisor;
  socket_ = l.socket;
  output_ = l.output;
  status_ = l.status;
  orphans_escape_ = started.stage == kStageSubreaper;
  if (orphans_escape_ && !bwrap) {
    // Said, not hidden: without bubblewrap's pid namespace an orphan (a double fork) escapes
    // the supervisor's sweep here; only a worker with a uid of its own is swept of it.
    if (!note_.empty()) note_ += "; ";
    note_ += "this system refused a child subreaper (PR_SET_CHILD_SUBREAPER: " + error_text(started.value) +
             (dropped_ ? "): a process the worker leaves is ended by the sweep of its uid"
                       : "): a process the worker leaves may outlive it (no uid of its own to sweep)");
  }
}

bool WorkerProcess::take_exit_record(int timeout_ms) const {
  if (exited_) return true;
  if (status_ < 0) return false;
  Record record{};
  if (!read_record(status_, timeout_ms, record)) return false;
  exited_ = true;
  swept_ = record.kind == kExited;
  // A supervisor that vanished without a word took the worker with it (PR_SET_PDEATHSIG).
  wait_status_ = swept_ ? record.value : int(SIGKILL);
  return true;
}

std::string WorkerProcess::exit_description() const {
  int status = wait_status_;
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    // bwrap reports a command killed by signal N as exit status 128 + N.
    if (isolation_ == Isolation::bubblewrap && code > 128 && code < 128 + NSIG) {
      status = code - 128;  // a wait status meaning "killed by that signal"
    } else {
      return "the worker exited with status " + std::to_string(code);
    }
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* description = sigdescr_np(sig);
    return "the worker was killed by signal " + std::to_string(sig) + " (" +
           (description ? description : "unknown signal") + ")";
  }
  return "the worker ended with wait status " + std::to_string(status);
}

void WorkerProcess::lose(const std::string& reason) {
  stop();
  lost_ = reason;
  throw WorkerLost(reason);
}

std::string WorkerProcess::round_trip(std::string_view request, double seconds, uint64_t max_reply_bytes) {
  if (!lost_.empty()) throw WorkerLost("the worker is no longer running: " + lost_);
  if (supervisor_ < 0) throw WorkerLost("the worker is no longer running");
  const double deadline = now_seconds() + (seconds > 0 ? seconds : 0);
  // The worker closed the connection: it is normally exiting, so wait briefly for its status.
  const auto gone = [&]() {
    if (take_exit_record(kExitGraceMs)) lose(exit_description() + " before it replied");
    lose("the worker closed its connection without replying and was stopped");
  };
  const auto timed_out = [&]() {
    lose("the worker did not reply within " + seconds_text(seconds) + " s and was stopped");
  };
  if (exited_) gone();

  unsigned char header[kFrameHeaderBytes];
  encode_frame_length(request.size(), header);
  const size_t total = sizeof header + request.size();
  for (size_t sent = 0; sent < total;) {
    iovec parts[2];
    int count = 0;
    if (sent < sizeof header) parts[count++] = {header + sent, sizeof header - sent};
    size_t body_from = sent < sizeof header ? 0 : sent - sizeof header;
    parts[count++] = {const_cast<char*>(request.data()) + body_from, request.size() - body_from};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = size_t(count);
    ssize_t n = sendmsg(socket_, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += size_t(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Wait w = wait_for(socket_, status_, POLLOUT, deadline);
      if (w == Wait::timeout) timed_out();
      if (w == Wait::ended) gone();
    } else {
      gone();  // EPIPE, ECONNRESET: the worker's end is closed
    }
  }

  // Receives exactly `size` bytes, never more: what follows belongs to the next frame.
  const auto receive = [&](char* into, size_t size) {
    for (size_t got = 0; got < size;) {
      ssize_t n = recv(socket_, into + got, size - got, MSG_DONTWAIT);
      if (n > 0) {
        got += size_t(n);
      } else if (n == 0) {
        gone();
      } else if (errno == EINTR) {
        continue;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        Wait w = wait_for(socket_, status_, POLLIN, deadline);
        if (w == Wait::timeout) timed_out();
        if (w == Wait::ended) gone();
      } else {
        gone();
      }
    }
  };
  receive(reinterpret_cast<char*>(header), sizeof header);
  const uint64_t length = decode_frame_length(header);
  if (length > max_reply_bytes) {
    lose("the worker's reply was larger than the limit of " + std::to_string(max_reply_bytes) +
         " bytes (it announced " + std::to_string(length) + " bytes)");
  }
  // Grow as bytes arrive rather than trusting the announced length with an allocation.
  std::string reply;
  char chunk[1 << 16];
  for (uint64_t left = length; left > 0;) {
    size_t step = size_t(std::min<uint64_t>(left, sizeof chunk));
    receive(chunk, step);
    reply.append(chunk, step);
    left -= step;
  }
  return reply;
}

bool WorkerProcess::alive() const {
  if (!lost_.empty() || supervisor_ < 0) return false;
  return !take_exit_record(0);
}

std::string WorkerProcess::output_tail(size_t max_bytes) const {
  struct stat st{};
  if (output_ < 0 || fstat(output_, &st) != 0) return {};
  const size_t size = size_t(st.st_size);
  const size_t take = std::min(size, max_bytes);
  std::string raw(take, '\0');
  size_t got = 0;
  while (got < take) {
    ssize_t n = pread(output_, raw.data() + got, take - got, off_t(size - take + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  raw.resize(got);
  return printable_utf8(raw);
}

const char* WorkerProcess::isolation() const {
  switch (isolation_) {
    case Isolation::bubblewrap: return "bubblewrap";
    case Isolation::rlimits_only: return "rlimits-only";
    case Isolation::none: return "none";
  }
  return "none";
}

std::string WorkerProcess::isolation_note() const { return note_; }

// Asks the supervisor to kill the tree and waits for its word that the tree is gone. A
// supervisor that does not answer is killed. Then, if the worker ran as a dedicated uid, every
// process of that uid is killed as well where the supervisor's word is not enough: it did not
// answer, or it is no child subreaper (qemu-user 7.2 refuses that prctl,
// docs/results/arm64-qemu.md), so a double fork's orphan went to init, out of its sweep. The uid
// is this judge's worker's alone, so the second sweep is exact.
void WorkerProcess::stop() noexcept {
  if (supervisor_ < 0) return;
  if (!exited_) {
    kill(supervisor_, SIGTERM);
    take_exit_record(kStopGraceMs);
  }
  if (!swept_) kill(supervisor_, SIGKILL);  // the supervisor is alone in its process group
  // Not after every stop: the helper goes on while kill(-1) reaches anything, a zombie of the
  // uid included, so each stop cost 0.1 s (a test case 0.13 s instead of 0.03 s).
  if (dropped_ && (!swept_ || orphans_escape_)) kill_every_process_of(worker_uid_, worker_gid_);
  while (waitpid(supervisor_, nullptr, 0) < 0 && errno == EINTR) {
  }
  supervisor_ = -1;
  if (!exited_) {  // the supervisor never answered: what we know is that we killed it
    exited_ = true;
    wait_status_ = SIGKILL;
  }
}

void WorkerProcess::release() noexcept {
  close_fd(socket_);
  close_fd(output_);
  close_fd(status_);
  if (!private_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(private_dir_, ec);
    private_dir_.clear();
  }
}

}  // namespace halo::remote
