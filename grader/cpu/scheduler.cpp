// Runs a grid on the CPU: blocks are handed out to one worker per usable CPU; within a block each
// CUDA thread is a fiber that runs until it finishes or reaches __syncthreads().
//
// A fiber gets a stack only when it starts and gives it back when it finishes, so a kernel
// without barriers runs all its threads on one reused stack; a tiled kernel holds one stack
// per thread of the block while they wait at the barrier.
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <optional>
#include <cstdlib>
#include <string>
#include <thread>

#include "../platform/platform.hpp"
#include "execution.hpp"
#include "faults.hpp"
#include "halo/cpu/scheduler.hpp"

namespace halo::cpu {
constinit thread_local Worker* tls_worker = nullptr;

uint3 unflatten(size_t linear, dim3 shape) {
  uint3 v;
  v.x = unsigned(linear % shape.x);
  v.y = unsigned((linear / shape.x) % shape.y);
  v.z = unsigned(linear / (size_t(shape.x) * shape.y));
  return v;
}

namespace {

constexpr size_t kStackBytes = 64 * 1024;
const size_t kPageBytes = size_t(sysconf(_SC_PAGESIZE));

LaunchRecord& record_storage() {
  static LaunchRecord record;
  return record;
}
bool per_thread_requested = false;
bool per_element_requested = false;
Schedule schedule_requested = Schedule::forward;
bool checks_requested = [] {
  const char* env = std::getenv("HALO_DIAGNOSTICS");
  return !(env && std::string(env) == "off");
}();
// <= 0: the limit scales with the launch (launch_cpu_limit).
double timeout_requested = [] {
  const char* env = std::getenv("HALO_LAUNCH_TIMEOUT");
  return env && std::atof(env) > 0 ? std::atof(env) : 0.0;
}();

// The CPU seconds of one thread's clock (a worker's, read by the watchdog).
double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// What one launch's workers leave for the next: fiber stacks and shared-memory shadows. A test
// makes dozens of launches, and mapping, guarding and unmapping a stack per thread of a block in
// each of them was most of a small test's time (system time, thousands of mmap calls).
struct LeftForNextLaunch {
  std::mutex mutex;
  std::vector<char*> stacks;
  std::vector<std::vector<Worker::SharedWord>> shadows;
};
LeftForNextLaunch& left_for_next_launch() {
  static LeftForNextLaunch pool;
  return pool;
}

// Shadow records name their block by a serial unique in the process (never 0), so a shadow left
// by an earlier launch holds no record that looks current.
std::atomic<uint64_t> next_block_serial{1};

char* take_stack(Worker& w) {
  if (!w.free_stacks.empty()) {
    char* s = w.free_stacks.back();
    w.free_stacks.pop_back();
    return s;
  }
  {
    LeftForNextLaunch& pool = left_for_next_launch();
    std::lock_guard lock(pool.mutex);
    if (!pool.stacks.empty()) {
      char* s = pool.stacks.back();
      pool.stacks.pop_back();
      w.all_stacks.push_back(s);
      return s;
    }
  }
  // One guard page below each stack: a runaway recursion faults instead of corrupting a neighbour.
  size_t bytes = kStackBytes + kPageBytes;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "halo: cannot allocate a fiber stack (%zu bytes)\n", bytes);
    std::abort();
  }
  mprotect(p, kPageBytes, PROT_NONE);
  char* s = static_cast<char*>(p);
  w.all_stacks.push_back(s);
  return s;
}

// Hands the worker's stacks and shadow to the next launch.
void release_stacks(Worker& w) {
  LeftForNextLaunch& pool = left_for_next_launch();
  std::lock_guard lock(pool.mutex);
  pool.stacks.insert(pool.stacks.end(), w.all_stacks.begin(), w.all_stacks.end());
  if (!w.shadow.empty()) pool.shadows.push_back(std::move(w.shadow));
  w.all_stacks.clear();
  w.free_stacks.clear();
}

// A shadow of `words` records, one left by an earlier launch when there is one (its records are
// stale by their serials, so it needs no clearing).
std::vector<Worker::SharedWord> take_shadow(size_t words) {
  std::vector<Worker::SharedWord> shadow;
  {
    LeftForNextLaunch& pool = left_for_next_launch();
    std::lock_guard lock(pool.mutex);
    if (!pool.shadows.empty()) {
      shadow = std::move(pool.shadows.back());
      pool.shadows.pop_back();
    }
  }
  shadow.resize(words);
  return shadow;
}

[[noreturn]] void yield_for_good(Yield why) {
  Worker* w = tls_worker;
  w->in_atomic = false;  // a thread stopped inside an atomic operation's check leaves none behind
  fctx::jump_fcontext(w->scheduler, reinterpret_cast<void*>(why));
  __builtin_unreachable();  // the scheduler never resumes a finished or stopped fiber
}

void fiber_entry(fctx::transfer_t from) {
  Worker* w = static_cast<Worker*>(from.data);
  w->scheduler = from.fctx;
  w->launch->body();
  yield_for_good(Yield::finished);
}


void resume(Worker& w, size_t t) {
  FiberSlot& slot = w.slots[t];
  w.current = &slot;
  w.thread_linear = t;
  w.thread_idx = w.thread_indices[t];
  if (slot.state == FiberState::fresh) {
    slot.stack = take_stack(w);
    slot.context = fctx::make_fcontext(slot.stack + kPageBytes + kStackBytes, kStackBytes, fiber_entry);
  }
  w.stack_lo = reinterpret_cast<uintptr_t>(slot.stack + kPageBytes);
  w.stack_hi = w.stack_lo + kStackBytes;
  w.in_fiber = true;
  fctx::transfer_t back = fctx::jump_fcontext(slot.context, &w);
  w.in_fiber = false;
  slot.context = back.fctx;
  switch (static_cast<Yield>(reinterpret_cast<uintptr_t>(back.data))) {
    case Yield::barrier:
      slot.state = FiberState::at_barrier;
      return;
    case Yield::warp:
      slot.state = FiberState::at_warp;
      return;
    case Yield::finished:
      slot.state = FiberState::finished;
      break;
    case Yield::stopped:
      slot.state = FiberState::stopped;
      break;
  }
  w.free_stacks.push_back(slot.stack);
  slot.stack = nullptr;
  slot.context = nullptr;
}

// Adds the block's tallied traffic to the launch record, in the block's own slots (see
// Worker::array_tally), and clears the tally for the next block.
void flush_tally(Worker& w) {
  LaunchRecord& R = *w.launch->record;
  const size_t b = w.block_linear;
  Traffic& global_loads = w.space_tally[0][int(Space::global)];
  Traffic& global_stores = w.space_tally[1][int(Space::global)];
  for (size_t k = 0; k < w.array_tally.size(); ++k) {
    Worker::ArrayTally& t = w.array_tally[k];
    ArrayTraffic& a = R.arrays[k];
    Traffic loads = t.loads_phase[0];
    loads += t.loads_phase[1];
    a.block_loads[b] += loads;
    a.block_stores[b] += t.stores;
    a.block_loads_phase[0][b] += t.loads_phase[0];
    a.block_loads_phase[1][b] += t.loads_phase[1];
    global_loads += loads;
    global_stores += t.stores;
    t = {};
  }
  for (int space = 0; space < kSpaceCount; ++space) {
    R.block_space_loads[space][b] += w.space_tally[0][space];
    R.block_space_stores[space][b] += w.space_tally[1][space];
    w.space_tally[0][space] = w.space_tally[1][space] = {};
  }
}

struct FlushTallyAtEnd {
  Worker& w;
  ~FlushTallyAtEnd() { flush_tally(w); }
};

void run_block(Worker& w, size_t b) {
  Launch& L = *w.launch;
  FlushTallyAtEnd flush{w};  // every way out of the block, a time-out's included
  w.block_linear = b;
  w.block_idx = unflatten(b, L.grid);
  w.block_serial = next_block_serial.fetch_add(1, std::memory_order_relaxed);  // earlier blocks' records go stale
  w.epoch = 0;
  poison_shared_variables(w);  // no value of an earlier block survives: replays are exact
  const size_t nt = L.threads_per_block();
  for (auto& s : w.slots) s = FiberSlot{};
  w.warp_values.assign(nt, 0);
  for (;;) {
    for (size_t k = 0; k < nt; ++k) {
      if (L.timed_out.load(std::memory_order_relaxed) || w.stopping) {  // abandon the rest of the block
        size_t left = 0;
        for (const auto& s : w.slots) left += s.state != FiberState::finished && s.state != FiberState::stopped;
        std::lock_guard lock(L.diagnostics_mutex);
        L.unfinished.emplace_back(w.block_idx, left + (w.stopped_by_timeout ? 1 : 0));  // + the one it stopped
        return;
      }
      const size_t t = L.reverse ? nt - 1 - k : k;
      FiberState st = w.slots[t].state;
      if (st == FiberState::fresh || st == FiberState::runnable) resume(w, t);
    }
    // Warps whose running lanes have all reached a shuffle or vote go on first: a rendezvous of
    // a warp is no barrier of the block (the shared-memory epoch does not change).
    bool warp_released = false;
    for (auto& s : w.slots)
      if (s.state == FiberState::at_warp) s.state = FiberState::runnable, warp_released = true;
    if (warp_released) continue;
    size_t waiting = 0, returned = 0;
    int first_line = 0, other_line = 0;
    for (auto& s : w.slots) {
      if (s.state == FiberState::at_barrier) {
        ++waiting;
        if (!first_line) first_line = s.barrier_line;
        else if (s.barrier_line != first_line) other_line = s.barrier_line;
      } else if (s.state == FiberState::finished) {
        ++returned;  // threads stopped by a diagnostic were reported already; they do not count here
      }
    }
    if (waiting == 0) {
      report_copies_in_flight(w);
      break;
    }
    if (returned > 0 || other_line) {
      // Some threads left (or wait elsewhere) while others wait: on a GPU this is undefined
      // behaviour. Report it, then let the waiting threads go on as current hardware does.
      w.thread_idx = {};
      w.thread_linear = 0;
      std::string what = std::to_string(waiting) + " of " + std::to_string(nt) +
                         " threads wait at __syncthreads() on line " + std::to_string(first_line);
      if (other_line) what += " while others wait at the one on line " + std::to_string(other_line);
      if (returned) what += " while " + std::to_string(returned) + " have already returned";
      raise_diagnostic(w, DiagnosticKind::barrier_divergence, what, nullptr);
    }
    for (auto& s : w.slots)
      if (s.state == FiberState::at_barrier) s.state = FiberState::runnable;
    ++w.epoch;  // a new barrier interval
  }
}

void run_worker(Launch* L, unsigned worker_index) {
  Worker w;
  w.launch = L;
  w.slots.resize(L->threads_per_block());
  w.thread_indices.resize(L->threads_per_block());
  for (size_t t = 0; t < w.thread_indices.size(); ++t) w.thread_indices[t] = unflatten(t, L->block);
  w.array_tally.resize(L->regions.size());
  const platform::AddressRange tls = platform::thread_tls_block();  // all __shared__ memory lives in it
  w.tls_lo = tls.lo;
  w.tls_hi = tls.hi;
  if (L->checks) w.shadow = take_shadow((w.tls_hi - w.tls_lo + 3) / 4);
  FaultStack fault_stack;  // a crash (even a stack overflow) is handled on its own stack
  tls_worker = &w;
  for (size_t b = worker_index; b < L->block_count(); b += L->workers) {
    if (L->timed_out.load(std::memory_order_relaxed) || w.stopping) break;  // before the block: it would count as started
    L->started_blocks.fetch_add(1, std::memory_order_relaxed);
    run_block(w, b);
  }
  tls_worker = nullptr;
  release_stacks(w);
  std::lock_guard lock(L->diagnostics_mutex);
  for (int k = 0; k < kDiagnosticKinds; ++k) L->record->counts[k] += w.diagnostic_counts[k];
  if (w.diagnostics_raised >= kDiagnosticLimit) L->diagnostics_over_limit = true;
}

unsigned worker_count(size_t blocks) {
  static const unsigned usable = platform::usable_cpus();  // this process's share, not the host's count
  unsigned n = usable;
  if (const char* env = std::getenv("HALO_THREADS")) n = std::max(1, std::atoi(env));
  return unsigned(std::min<size_t>(n, blocks));
}

cudaError_t check_configuration(dim3 grid, dim3 block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    return cudaErrorInvalidConfiguration;
  if (size_t(block.x) * block.y * block.z > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64)
    return cudaErrorInvalidConfiguration;
  if (grid.y > 65535 || grid.z > 65535) return cudaErrorInvalidConfiguration;
  return cudaSuccess;
}

void reset_record(LaunchRecord& r, const Launch& L) {
  r = LaunchRecord{};
  r.valid = true;
  r.grid = L.grid;
  r.block = L.block;
  const size_t nb = L.block_count();
  for (const Region& reg : L.regions) {
    ArrayTraffic a;
    a.name = reg.name;
    a.element_size = reg.element_size;
    a.block_loads.assign(nb, {});
    a.block_stores.assign(nb, {});
    a.block_loads_phase[0].assign(nb, {});
    a.block_loads_phase[1].assign(nb, {});
    if (L.per_thread) {
      a.thread_loads.assign(nb * L.threads_per_block(), 0);
      a.thread_stores.assign(nb * L.threads_per_block(), 0);
    }
    if (L.per_element) {
      const size_t elements = (reg.hi - reg.lo + reg.element_size - 1) / reg.element_size;
      a.element_loads.assign(elements, 0);
      a.element_stores.assign(elements, 0);
    }
    r.arrays.push_back(std::move(a));
  }
  for (auto& v : r.block_space_loads) v.assign(nb, {});
  for (auto& v : r.block_space_stores) v.assign(nb, {});
}

// After a time-out: which blocks were cut short, how many of their threads had not finished,
// and how many blocks never started.
void describe_unfinished(LaunchRecord& r, const Launch& L) {
  std::string blocks;
  size_t threads = 0;
  for (size_t k = 0; k < L.unfinished.size(); ++k) {
    const uint3 b = L.unfinished[k].first;
    threads += L.unfinished[k].second;
    if (k < 6)
      blocks += std::string(k ? ", " : "") + "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," +
                std::to_string(b.z) + ")";
  }
  if (L.unfinished.size() > 6) blocks += ", ...";
  const size_t started = std::min(L.started_blocks.load(), L.block_count());
  r.first[int(DiagnosticKind::launch_timeout)].what +=
      "\n    still running when it was stopped: " + std::to_string(threads) + " threads of block" +
      (L.unfinished.size() == 1 ? " " : "s ") + blocks + "; " + std::to_string(L.block_count() - std::min(started, L.block_count())) +
      " blocks never started";
}

// After kDiagnosticLimit diagnostics: the most frequent kind says the launch was cut short, so
// its count reads as "at least".
void note_cut_short(LaunchRecord& r) {
  int most = 0;
  for (int k = 1; k < kDiagnosticKinds; ++k)
    if (r.counts[k] > r.counts[most]) most = k;
  r.first[most].what += "\n    the launch was stopped after " + std::to_string(r.counts[most]) +
                        " of these: the first is what to fix; the rest of the launch did not run";
}

void total_up(LaunchRecord& r) {
  for (auto& a : r.arrays) {
    for (const auto& t : a.block_loads) a.loads += t;
    for (const auto& t : a.block_stores) a.stores += t;
  }
  for (int s = 0; s < kSpaceCount; ++s)
  {
    for (const auto& t : r.block_space_loads[s]) r.space_loads[s] += t;
    for (const auto& t : r.block_space_stores[s]) r.space_stores[s] += t;
  }
}

}  // namespace

[[noreturn]] void stop_current_thread() { yield_for_good(Yield::stopped); }

void note_kernel_caller_frame(void* frame) {
  Worker* w = tls_worker;
  if (w && w->current) w->current->kernel_caller_frame = reinterpret_cast<uintptr_t>(frame);
}

uint3 thread_index() { return tls_worker ? tls_worker->thread_idx : uint3{}; }
uint3 block_index() { return tls_worker ? tls_worker->block_idx : uint3{}; }
dim3 block_dim() { return tls_worker ? tls_worker->launch->block : dim3{}; }
dim3 grid_dim() { return tls_worker ? tls_worker->launch->grid : dim3{}; }

uint64_t warp_exchange(uint64_t mine, int source, bool vote) {
  Worker* w = tls_worker;
  if (!w) return vote ? uint64_t(mine != 0) : mine;  // host code: a warp of one
  const size_t t = w->thread_linear, base = t / 32 * 32;
  const size_t end = std::min(base + 32, w->slots.size());
  w->warp_values[t] = mine;
  // After one sweep every lane of the warp still running has left its value and waits here.
  fctx::transfer_t back = fctx::jump_fcontext(w->scheduler, reinterpret_cast<void*>(Yield::warp));
  w->scheduler = back.fctx;
  auto running = [w](size_t lane) {
    const FiberState st = w->slots[lane].state;
    return st != FiberState::finished && st != FiberState::stopped;
  };
  uint64_t out = mine;
  if (vote) {
    out = 0;
    for (size_t k = base; k < end; ++k)
      if (running(k) && w->warp_values[k]) out |= uint64_t(1) << (k - base);
  } else if (source >= 0 && base + size_t(source) < end && running(base + size_t(source))) {
    out = w->warp_values[base + size_t(source)];
  }
  // A second rendezvous: no lane may leave a new value before every lane has read this one.
  back = fctx::jump_fcontext(w->scheduler, reinterpret_cast<void*>(Yield::warp));
  w->scheduler = back.fctx;
  return out;
}

void sync_threads(int line) {
  Worker* w = tls_worker;
  if (!w) return;  // called from host code: nothing to wait for
  w->current->barrier_line = line;
  ++w->current->barriers_passed;
  fctx::transfer_t back = fctx::jump_fcontext(w->scheduler, reinterpret_cast<void*>(Yield::barrier));
  w->scheduler = back.fctx;
}

const LaunchRecord& last_launch() { return record_storage(); }
void set_count_per_thread(bool on) { per_thread_requested = on; }
void set_count_per_element(bool on) { per_element_requested = on; }
void set_schedule(Schedule s) { schedule_requested = s; }
void set_checks(bool on) { checks_requested = on; }
void set_launch_timeout(double seconds) { timeout_requested = seconds; }

// Runs every block of the launch on `n` workers, under the watchdog.
static void run_workers(Launch& L, unsigned n) {
  L.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(kWallClockFactor * L.timeout_s + kWallClockSlack));
  std::vector<std::thread> workers;
  workers.reserve(n);
  L.workers = n;
  for (unsigned k = 0; k < n; ++k) workers.emplace_back(run_worker, &L, k);
  // The watchdog: once a worker has spent the launch's CPU limit on it, it flags the launch and
  // signals every worker, whose running CUDA thread is then stopped where it is (faults.cpp).
  // CPU time, not wall-clock time: a loaded machine slows a launch down but never makes a
  // right kernel look like an endless loop. A thread blocked in the kernel spends none, so a
  // wall-clock deadline, far later, backs it up.
  std::vector<clockid_t> clocks(workers.size(), CLOCK_THREAD_CPUTIME_ID);
  std::vector<double> started(workers.size(), 0.0);
  for (size_t k = 0; k < workers.size(); ++k)
    if (pthread_getcpuclockid(workers[k].native_handle(), &clocks[k]) == 0) started[k] = cpu_seconds(clocks[k]);
  std::mutex done_mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock lock(done_mutex);
    for (;;) {
      if (done_cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) return;
      double spent = 0;
      for (size_t k = 0; k < clocks.size(); ++k)
        if (clocks[k] != CLOCK_THREAD_CPUTIME_ID) spent = std::max(spent, cpu_seconds(clocks[k]) - started[k]);
      if (spent > L.timeout_s || std::chrono::steady_clock::now() > L.deadline) {
        L.timed_out.store(true);
        break;
      }
    }
    for (auto& t : workers) pthread_kill(t.native_handle(), kTimeoutSignal);
  });
  for (auto& t : workers) t.join();
  {
    std::lock_guard lock(done_mutex);
    done = true;
  }
  done_cv.notify_one();
  watchdog.join();
}

cudaError_t run_grid(dim3 grid, dim3 block, KernelBody body, size_t dynamic_shared_bytes) {
  cudaError_t config = check_configuration(grid, block);
  if (config == cudaSuccess && dynamic_shared_bytes > kDynamicSharedMaxBytes) config = cudaErrorInvalidValue;
  LaunchRecord& record = record_storage();
  if (config != cudaSuccess) {
    record = LaunchRecord{};
    record.grid = grid;
    record.block = block;
    record.error = config;
    return record_error(config);
  }
  Launch L;
  L.grid = grid;
  L.block = block;
  L.body = body;
  L.regions = MemoryRegistry::instance().snapshot();
  std::sort(L.regions.begin(), L.regions.end(), [](const Region& a, const Region& b) { return a.lo < b.lo; });
  for (const Region& r : L.regions) L.zones.push_back({r.zone_lo, r.zone_hi - r.zone_lo});
  const platform::AddressRange constants = platform::constant_section();
  L.constant_lo = constants.lo;
  L.constant_hi = constants.hi;
  L.per_thread = per_thread_requested;
  L.per_element = per_element_requested;
  L.checks = checks_requested;
  L.reverse = schedule_requested == Schedule::reverse;
  L.dynamic_shared_bytes = dynamic_shared_bytes;
  L.timeout_s = timeout_requested > 0 ? timeout_requested : launch_cpu_limit(grid, block);
  L.access_limit = thread_access_limit(block);
  FaultHandlers fault_handlers;  // launches run one at a time: the handlers belong to this one
  L.record = &record;
  reset_record(record, L);
  begin_kernel_output();

  auto start = std::chrono::steady_clock::now();
  const unsigned n = worker_count(L.block_count());
  // Races between blocks (block_race.cpp) are reported from a run on one worker, where which
  // block comes first never hangs on timing: a parallel run that finds one runs again so.
  std::optional<OutputSnapshot> snapshot;
  if (L.checks) {
    prepare_block_tags(L);
    if (n > 1) snapshot.emplace(L);
  }
  L.report_block_races = n == 1;
  run_workers(L, n);
  if (snapshot && L.block_race_seen.load() && !L.timed_out.load()) {
    snapshot->restore(L);
    L.started_blocks = 0;
    std::fill(std::begin(L.has_first), std::end(L.has_first), false);
    L.diagnostics_over_limit = false;
    L.report_block_races = true;
    reset_record(record, L);
    begin_kernel_output();
    run_workers(L, 1);
  }
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  total_up(record);
  end_kernel_output(record);
  if (record.counts[int(DiagnosticKind::launch_timeout)]) describe_unfinished(record, L);
  if (L.diagnostics_over_limit) note_cut_short(record);

  const uint64_t* c = record.counts;
  // Only what would fault on a GPU becomes an error code; the other diagnostics fail tests
  // through the report, as a GPU would let them pass silently.
  if (c[int(DiagnosticKind::out_of_bounds)] || c[int(DiagnosticKind::crash)] || c[int(DiagnosticKind::outside_memory)])
    record.error = cudaErrorIllegalAddress;
  else if (c[int(DiagnosticKind::misaligned_address)]) record.error = cudaErrorMisalignedAddress;
  if (c[int(DiagnosticKind::assert_failed)]) record.error = cudaErrorAssert;
  if (c[int(DiagnosticKind::launch_timeout)] || c[int(DiagnosticKind::work_limit)]) record.error = cudaErrorLaunchTimeout;
  return record_error(record.error);
}

}  // namespace halo::cpu
