// The judge's side of every request (halo/remote/judge.hpp): builds the message, starts the
// worker when needed, waits for the reply within a time limit, and reads it defensively. A
// reply that never comes, or one that does not make sense, fails the test that asked, with
// the reason; it never passes it.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../cpu/memory_registry.hpp"
#include "../platform/platform.hpp"
#include "../platform/worker_process.hpp"
#include "halo/cpu/launch_record.hpp"
#include "halo/remote/judge.hpp"
#include "record_wire.hpp"
#include "wire.hpp"

namespace halo::remote {
namespace {

struct Options {
  std::string worker;   // the worker executable built from the student's file
  std::string sandbox;  // see SpawnOptions: HALO_SANDBOX, or --halo-sandbox=, or "auto"
};

Options& options() {
  static Options o = [] {
    Options d;
    const char* env = std::getenv("HALO_SANDBOX");
    d.sandbox = env && *env ? env : "auto";
    return d;
  }();
  return o;
}

std::unique_ptr<WorkerProcess>& worker() {
  static std::unique_ptr<WorkerProcess> w;
  return w;
}

// Once a worker had to be stopped for running too long, later requests of this process fail at
// once with the same reason instead of each waiting out its own time limit.
std::string& stopped_reason() {
  static std::string s;
  return s;
}

// One hang stops the section: the first test whose launch did not finish leaves its reason in
// $HALO_REPORT_DIR/hangs/<worker program>, and every later test of the same program (each its own
// process) fails at once with it, instead of waiting out its own limit. The grader clears the
// report folder before each run.
std::string hang_file() {
  const char* dir = std::getenv("HALO_REPORT_DIR");
  const std::string& program = options().worker;
  if (!dir || !*dir || program.empty()) return {};
  return std::string(dir) + "/hangs/" + program.substr(program.find_last_of('/') + 1);
}

void remember_hang(const std::string& why) {
  stopped_reason() = why;
  const std::string path = hang_file();
  if (path.empty()) return;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << why;
}

void take_earlier_hang() {
  const std::string path = hang_file();
  if (!stopped_reason().empty() || path.empty()) return;
  std::ifstream in(path);
  if (!in) return;
  std::ostringstream why;
  why << in.rdbuf();
  stopped_reason() = "not run: an earlier test of this section did not finish, and this one would wait out the "
                     "same limit:\n" + why.str();
}

cpu::LaunchRecord& judge_record() {
  static cpu::LaunchRecord r;
  return r;
}

std::set<std::string>& todo_notes() {
  static std::set<std::string> s;
  return s;
}

struct Settings {
  bool per_thread = false, per_element = false, reverse = false;
  int checks = -1;          // -1: the worker's default (HALO_DIAGNOSTICS)
  double timeout_s = -1;    // <= 0: HALO_LAUNCH_TIMEOUT, else the worker scales it to the launch
} settings;

// Every launch states its checks and time limit, so nothing a student's host code changed in the
// worker between launches carries over into how a launch is measured.
int8_t checks_for_launch() {
  if (settings.checks >= 0) return int8_t(settings.checks);
  const char* env = std::getenv("HALO_DIAGNOSTICS");
  return env && std::string(env) == "off" ? 0 : 1;
}

double default_launch_timeout(dim3 grid, dim3 block) {
  if (const char* env = std::getenv("HALO_LAUNCH_TIMEOUT"); env && std::atof(env) > 0) return std::atof(env);
  // HALO_TIMEOUT_SCALE (`./workbook check --arch`): the worker runs under qemu-user, several times
  // slower than natively, and a launch's CPU time grows with it; its limit grows by as much, so
  // that a slow kernel is not told as an endless loop on one architecture only.
  if (const char* env = std::getenv("HALO_TIMEOUT_SCALE"); env && std::atof(env) > 1)
    return std::atof(env) * cpu::launch_cpu_limit(grid, block);
  return 0;  // the worker's launch_cpu_limit
}

// What the worker may see of the judge's environment: the knobs of the CPU backend, nothing else.
// The worker's thread count is counted here: inside the sandbox the worker sees neither
// SLURM_CPUS_PER_TASK (its environment is only this) nor the cgroup files (no /sys), only its
// affinity, so it would take more CPUs than a container or a Slurm slot gives.
std::vector<std::pair<std::string, std::string>> worker_environment() {
  std::vector<std::pair<std::string, std::string>> env;
  for (const char* name : {"HALO_THREADS", "HALO_DIAGNOSTICS", "HALO_LAUNCH_TIMEOUT"})
    if (const char* v = std::getenv(name)) env.emplace_back(name, v);
  if (!std::getenv("HALO_THREADS")) env.emplace_back("HALO_THREADS", std::to_string(platform::usable_cpus()));
  return env;
}

WorkerProcess& running_worker() {
  take_earlier_hang();
  if (!stopped_reason().empty()) throw std::runtime_error(stopped_reason());
  auto& w = worker();
  if (w && w->alive()) return *w;
  w.reset();
  const Options& o = options();
  if (o.worker.empty()) throw std::runtime_error("the judge was started without --halo-worker=PATH");
  if (access(o.worker.c_str(), X_OK) != 0)
    throw std::runtime_error("the kernel file of this section did not compile, so nothing of it could run "
                             "(the build's output says why)");
  SpawnOptions spawn;
  spawn.worker_path = o.worker;
  spawn.env = worker_environment();
  spawn.sandbox = o.sandbox;
  // The process limit counts threads: the CPU backend runs one OS thread per CPU it may use.
  spawn.limits.processes = std::max(64, 2 * int(platform::usable_cpus()) + 16);
  try {
    w = std::make_unique<WorkerProcess>(spawn);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("could not start the program built from your kernel file: ") + e.what());
  }
  return *w;
}

// Sends one request; returns the reply after its common part (status, stub notes).
std::string send_request(const std::string& request, double seconds) {
  WorkerProcess& w = running_worker();
  std::string reply;
  try {
    reply = w.round_trip(request, seconds);
  } catch (const WorkerLost& lost) {
    std::string why = std::string("the program running your kernel stopped answering: ") + lost.what();
    const std::string printed = w.output_tail(2000);
    if (!printed.empty()) why += "\n    its last output:\n" + printed;
    if (std::string(lost.what()).find("within") != std::string::npos) remember_hang(why);
    worker().reset();
    throw std::runtime_error(why);
  }
  return reply;
}

// Reads the part every reply starts with. A worker that could not do what was asked (an entry
// point it does not have, a request it could not read) says why.
void open_reply(Reader& in) {
  const uint8_t ok = in.pod<uint8_t>();
  const uint64_t notes = in.count(8);
  for (uint64_t k = 0; k < notes; ++k) todo_notes().insert(in.str());
  if (!ok) throw std::runtime_error("the worker could not do what the judge asked: " + in.str());
}

std::runtime_error malformed(const WireError& e) {
  worker().reset();  // a worker that sends nonsense is not asked again
  return std::runtime_error(std::string("the program running your kernel sent a reply the judge cannot read (") +
                            e.what() + "); the test fails");
}

}  // namespace

int take_options(int argc, char** argv) {
  int out = 1;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a.rfind("--halo-worker=", 0) == 0)
      options().worker = a.substr(14);
    else if (a.rfind("--halo-sandbox=", 0) == 0)
      options().sandbox = a.substr(15);
    else
      argv[out++] = argv[k];
  }
  argv[out] = nullptr;
  return out;
}

// ---- one request

struct Call::State {
  std::string entry;
  uint8_t op;
  Writer args;                        // the arguments, in order
  uint64_t arg_count = 0;
  std::vector<cpu::Region> arrays;    // arrays the pointer arguments point into, shipped with a launch
  std::vector<std::pair<void*, size_t>> outs;  // in/out parameters of a host call
  Writer payload;                     // raw, op-specific
};

Call::Call(const char* entry, uint8_t op) : s_(new State{entry, op, {}, 0, {}, {}, {}}) {}
Call::~Call() { delete s_; }

void Call::value(const void* bytes, size_t size) {
  s_->args.pod(ArgKind::value);
  s_->args.str(std::string_view(static_cast<const char*>(bytes), size));
  ++s_->arg_count;
}

void Call::in_out(void* object, size_t size) {
  s_->args.pod(ArgKind::value);
  s_->args.str(object ? std::string_view(static_cast<const char*>(object), size) : std::string_view());
  s_->outs.emplace_back(object, size);
  ++s_->arg_count;
}

void Call::raw(const void* bytes, size_t size) { s_->payload.bytes(bytes, size); }

void Call::tensor_map(const TensorMap& map) {
  if (!map.image) throw std::logic_error("a tensor map of no image");
  pointer(map.image);  // the image's array, as a pointer argument ...
  s_->args.pod(ArgKind::tensor_map);  // ... then the shape: one argument in all
  for (int32_t v : {map.width, map.height, map.pitch, map.box_width, map.box_height}) s_->args.pod(v);
}

void Call::pointer(const void* device_ptr) {
  ++s_->arg_count;
  if (!device_ptr) {
    s_->args.pod(ArgKind::null_pointer);
    return;
  }
  const uintptr_t p = reinterpret_cast<uintptr_t>(device_ptr);
  for (const cpu::Region& r : cpu::MemoryRegistry::instance().snapshot()) {
    if (p < r.lo || p > r.hi) continue;  // one past the end is still that array's pointer
    uint32_t index = 0;
    while (index < s_->arrays.size() && s_->arrays[index].lo != r.lo) ++index;
    if (index == s_->arrays.size()) s_->arrays.push_back(r);
    s_->args.pod(ArgKind::array_pointer);
    s_->args.pod(index);
    s_->args.pod(uint64_t(p - r.lo));
    return;
  }
  throw std::logic_error("a kernel argument points outside every array the test allocated");
}

cudaError_t Call::launch(int selector, dim3 grid, dim3 block, size_t dynamic_shared_bytes) {
  Writer w;
  w.str(s_->entry);
  w.pod(Op::launch);
  w.pod(int32_t(selector));
  w.pod(grid);
  w.pod(block);
  w.pod(uint64_t(dynamic_shared_bytes));
  w.pod(uint8_t(settings.per_thread));
  w.pod(uint8_t(settings.per_element));
  w.pod(uint8_t(settings.reverse));
  w.pod(checks_for_launch());
  const double timeout = settings.timeout_s > 0 ? settings.timeout_s : default_launch_timeout(grid, block);
  w.pod(timeout);
  w.pod(uint64_t(s_->arrays.size()));
  for (const cpu::Region& r : s_->arrays) {
    w.pod(uint64_t(r.hi - r.lo));
    w.pod(uint64_t(r.pitch));
    w.pod(uint64_t(r.row_bytes));
    w.pod(uint64_t(r.height));
    w.pod(uint64_t(r.element_size));
    w.pod(uint8_t(r.read_only));
    w.str(r.name);
    w.bytes(reinterpret_cast<const void*>(r.lo), r.hi - r.lo);
  }
  w.pod(s_->arg_count);
  w.bytes(s_->args.data().data(), s_->args.data().size());

  // How long to wait for the reply: past the worker's own wall-clock backstop, so that the
  // worker, which can say which thread was still running, is the one that reports a hang.
  const double cpu = timeout > 0 ? timeout : cpu::launch_cpu_limit(grid, block);
  const double limit = cpu::kWallClockFactor * cpu + cpu::kWallClockSlack + 30;
  judge_record() = cpu::LaunchRecord{};
  const std::string reply = send_request(w.data(), limit);
  try {
    Reader in(reply);
    open_reply(in);
    cpu::LaunchRecord rec = read_record(in, grid, block, settings.per_thread);
    // The outputs: every writable array comes back whole; the judge keeps its own inputs.
    for (const cpu::Region& r : s_->arrays) {
      if (r.read_only) continue;
      const uint64_t n = in.count(1);
      if (n != r.hi - r.lo) throw WireError("an array came back with a different size");
      std::memcpy(reinterpret_cast<void*>(r.lo), in.take(n), n);
    }
    if (!in.done()) throw WireError("the reply has bytes after its end");
    judge_record() = std::move(rec);
    if (judge_record().counts[int(cpu::DiagnosticKind::launch_timeout)])
      remember_hang(judge_record().first[int(cpu::DiagnosticKind::launch_timeout)].what);
  } catch (const WireError& e) {
    throw malformed(e);
  }
  const cudaError_t e = judge_record().error;
  return e == cudaSuccess ? e : cpu::record_error(e);
}

void Call::host_call(void* result, size_t result_size) {
  Writer w;
  w.str(s_->entry);
  w.pod(Op::host_call);
  w.pod(s_->arg_count);
  w.bytes(s_->args.data().data(), s_->args.data().size());
  const std::string reply = send_request(w.data(), 30);
  try {
    Reader in(reply);
    open_reply(in);
    const std::string r = in.str();
    if (r.size() != result_size) throw WireError("a result of the wrong size");
    if (result_size) std::memcpy(result, r.data(), result_size);
    for (auto& [object, size] : s_->outs) {
      const std::string o = in.str();
      if (o.size() != size) throw WireError("an out-parameter of the wrong size");
      if (size) std::memcpy(object, o.data(), size);
    }
    if (!in.done()) throw WireError("the reply has bytes after its end");
  } catch (const WireError& e) {
    throw malformed(e);
  }
}

std::vector<uint8_t> Call::round_trip() {
  Writer w;
  w.str(s_->entry);
  w.pod(s_->op);
  w.bytes(s_->payload.data().data(), s_->payload.data().size());
  const std::string reply = send_request(w.data(), 30);
  try {
    Reader in(reply);
    open_reply(in);
    auto out = in.vec<uint8_t>();
    if (!in.done()) throw WireError("the reply has bytes after its end");
    return out;
  } catch (const WireError& e) {
    throw malformed(e);
  }
}

// ---- the other requests

bool probe_kernel(const char* name, int selector) {
  Call c(name, uint8_t(Op::probe_kernel));
  const int32_t s = selector;
  c.raw(&s, sizeof s);
  const auto r = c.round_trip();
  return r.size() == 1 && r[0] == 1;
}

cudaError_t host_copy(const char* name, const float* host, int n, size_t count) {
  Call c(name, uint8_t(Op::host_copy));
  const int32_t n32 = n;
  const uint64_t floats = host ? count : 0;
  c.raw(&n32, sizeof n32);
  c.raw(&floats, sizeof floats);
  if (floats) c.raw(host, floats * sizeof(float));
  const auto r = c.round_trip();
  int32_t result = cudaErrorUnknown, sticky = cudaSuccess;
  if (r.size() != 2 * sizeof(int32_t)) throw std::runtime_error("the worker's answer to " + std::string(name) + " is malformed");
  std::memcpy(&result, r.data(), sizeof result);
  std::memcpy(&sticky, r.data() + sizeof result, sizeof sticky);
  if (sticky != cudaSuccess) cpu::record_error(cudaError_t(sticky));  // as the runtime would remember it
  return cudaError_t(result);
}

void write_constant(const char* name, const std::vector<uint8_t>& bytes) {
  Call c(name, uint8_t(Op::write_constant));
  const uint64_t n = bytes.size();
  c.raw(&n, sizeof n);
  c.raw(bytes.data(), bytes.size());
  c.round_trip();
}

std::vector<uint8_t> read_constant(const char* name) {
  Call c(name, uint8_t(Op::read_constant));
  return c.round_trip();
}

}  // namespace halo::remote

// ---- the CPU backend's test-facing API, answered from what the worker sent

namespace halo::cpu {

const LaunchRecord& last_launch() { return remote::judge_record(); }
void set_count_per_thread(bool on) { remote::settings.per_thread = on; }
void set_count_per_element(bool on) { remote::settings.per_element = on; }
void set_schedule(Schedule s) { remote::settings.reverse = s == Schedule::reverse; }
void set_checks(bool on) { remote::settings.checks = on ? 1 : 0; }
void set_launch_timeout(double seconds) { remote::settings.timeout_s = seconds; }
std::vector<std::string> todos_reached() { return {remote::todo_notes().begin(), remote::todo_notes().end()}; }

}  // namespace halo::cpu
