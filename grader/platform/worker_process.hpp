// The judge's side of one untrusted worker process: spawns it inside a sandbox, exchanges
// framed requests and replies with it over a socket, and kills everything it started.
//
// The process tree looks like this:
//   judge ── supervisor (the judge's uid; a child subreaper) ── worker, or bwrap ── worker
// The supervisor adopts every orphan the worker leaves behind, so when the worker ends (or the
// judge asks it to stop) it can kill the whole tree, even processes that left the worker's
// session with setsid(), before reporting the worker's exit status back to the judge.
//
// Not thread-safe: one thread talks to one WorkerProcess. Create it on a thread that outlives
// it: the supervisor is killed when the thread that spawned it exits (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace halo::remote {

struct Limits {
  double cpu_seconds = 120;
  uint64_t memory_bytes = 3ull << 30;  // address space, RLIMIT_AS
  uint64_t file_bytes = 64ull << 20;   // largest file, including what the worker prints
  int processes = 64;                  // tasks (processes and threads) the worker may have
};

struct SpawnOptions {
  std::string worker_path;                                // the worker executable (absolute)
  std::vector<std::string> args;                          // extra argv after the path
  std::vector<std::pair<std::string, std::string>> env;   // the worker's whole environment
  Limits limits;
  // "auto": bubblewrap if it works here, else rlimits-only. "bubblewrap": required, throws
  // when unavailable. "rlimits-only": resource limits and a privilege drop, no namespaces.
  // "none": no limits and no privilege drop, for tests of the runtime only.
  std::string sandbox = "auto";
};

// The worker died, hung or broke the protocol. what() is a sentence a student can read.
class WorkerLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class WorkerProcess {
 public:
  // Spawns immediately. Throws std::invalid_argument for bad options and std::runtime_error
  // when the worker cannot be started.
  explicit WorkerProcess(SpawnOptions options);
  ~WorkerProcess();  // kills the whole process tree, reaps it, removes the private directory
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends one request frame and waits at most `seconds` (wall clock) for one reply frame.
  // Throws WorkerLost, after killing the tree, when there is no such reply.
  std::string round_trip(std::string_view request, double seconds,
                         uint64_t max_reply_bytes = 1ull << 30);

  bool alive() const;

  // The last `max_bytes` of what the worker printed (stdout and stderr together), with bytes
  // that are not printable UTF-8 replaced by '?'.
  std::string output_tail(size_t max_bytes) const;

  const char* isolation() const;       // "bubblewrap", "rlimits-only" or "none"
  std::string isolation_note() const;  // why, when it is not "bubblewrap"

 private:
  enum class Isolation { bubblewrap, rlimits_only, none };

  void spawn(const SpawnOptions& options);
  bool take_exit_record(int timeout_ms) const;
  std::string exit_description() const;
  [[noreturn]] void lose(const std::string& reason);
  void stop() noexcept;
  void release() noexcept;

  Isolation isolation_ = Isolation::none;
  std::string note_;
  std::string private_dir_;  // holds the copy of the worker executable
  bool dropped_ = false;     // the worker runs as a dedicated uid
  bool orphans_escape_ = false;  // the supervisor is no child subreaper (qemu-user refuses it)
  uid_t worker_uid_ = 0;
  gid_t worker_gid_ = 0;
  int socket_ = -1;          // the judge's end, non-blocking
  int output_ = -1;          // the worker's stdout and stderr
  int status_ = -1;          // records from the supervisor
  pid_t supervisor_ = -1;    // not yet reaped while >= 0
  mutable bool exited_ = false;  // the worker's end is known (wait_status_)
  mutable bool swept_ = false;   // the supervisor reported that the whole tree is gone
  mutable int wait_status_ = 0;
  std::string lost_;             // why the worker was lost, once it was
};

}  // namespace halo::remote
