// Internal state of a running launch, shared by the scheduler and the access checker.
//
// One Worker per OS thread runs whole blocks, one at a time; inside a block every CUDA thread
// is a fiber with its own small stack. The access checker reads the worker of the calling OS
// thread (a thread_local pointer) to know which block and thread made an access.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "halo/cpu/launch_record.hpp"
#include "halo/cpu/scheduler.hpp"
#include "halo/platform/sections.hpp"
#include "halo/tensor_map.hpp"
#include "memory_registry.hpp"

namespace halo::cpu {

namespace fctx = boost::context::detail;

// Per element of an array a kernel may write, which block wrote it and which read it in this
// launch (block_race.cpp); empty (count 0) for an input.
struct BlockTags {
  explicit BlockTags(size_t elements);
  ~BlockTags();
  BlockTags(const BlockTags&) = delete;
  BlockTags& operator=(const BlockTags&) = delete;
  BlockTags(BlockTags&& o) noexcept : writer(o.writer), reader(o.reader), count(o.count) {
    o.writer = o.reader = nullptr;
    o.count = 0;
  }
  void clear();
  uint32_t* writer;  // linear block + 1; 0: not written in this launch
  uint32_t* reader;  // linear block + 1; ~0: read by several blocks; 0: not read
  size_t count;
};

struct Launch {
  dim3 grid, block;
  KernelBody body;
  std::vector<Region> regions;     // snapshot of the registry, sorted by address
  // Each region's address range with its red zones, in the same order, packed: every access of
  // the kernel is looked up here first, and most (shared, constant, local) match none.
  struct Zone {
    uintptr_t lo, span;  // [lo, lo + span)
  };
  std::vector<Zone> zones;
  uintptr_t constant_lo = 0, constant_hi = 0;
  bool per_thread = false;
  bool per_element = false;  // ArrayTraffic::element_loads/stores (shared by all workers: atomic adds)
  bool checks = true;    // bounds, padding, shared-memory and initialisation checks
  bool reverse = false;  // run the threads of a block last to first between barriers
  size_t dynamic_shared_bytes = 0;  // of extern __shared__ memory, as given at launch
  std::chrono::steady_clock::time_point deadline;
  double timeout_s = 0;
  std::atomic<bool> timed_out{false};
  uint64_t access_limit = 0;             // per CUDA thread: thread_access_limit(block)
  std::vector<std::pair<uint3, size_t>> unfinished;  // after a time-out: blocks cut short, threads left (diagnostics_mutex)
  // Blocks go to workers round robin (worker k of n runs blocks k, k + n, ... in order), not to
  // whichever worker is free: a worker that stops early (Worker::stopping) then stops at the same
  // block in every run, and a replayed seed gives the same report.
  unsigned workers = 1;
  std::atomic<size_t> started_blocks{0};
  LaunchRecord* record = nullptr;  // counters are written per block: no two workers share one
  std::mutex diagnostics_mutex;
  bool has_first[kDiagnosticKinds] = {};  // record->first[k] holds one (diagnostics_mutex)
  bool diagnostics_over_limit = false;    // a worker reached kDiagnosticLimit (set after the join)
  // Races between blocks through global memory (block_race.cpp): seen in a parallel run, which
  // is then run again on one worker with report_block_races set, where they are reported.
  std::vector<BlockTags> block_tags;  // per region
  struct Tagged {
    uintptr_t lo, span;  // [lo, lo + span): a region a kernel may write (checks on), its elements tagged
    size_t region;
  };
  std::vector<Tagged> tagged;
  uintptr_t tagged_lo = 0, tagged_span = 0;  // [lo, lo + span) covers every tagged region (none: empty)
  std::atomic<bool> block_race_seen{false};
  bool report_block_races = false;

  size_t block_count() const { return size_t(grid.x) * grid.y * grid.z; }
  size_t threads_per_block() const { return size_t(block.x) * block.y * block.z; }
};

enum class FiberState : uint8_t { fresh, runnable, at_barrier, at_warp, finished, stopped };

// Why a fiber handed control back to the scheduler.
enum class Yield : uintptr_t { barrier = 1, finished = 2, stopped = 3, warp = 4 };

struct FiberSlot {
  fctx::fcontext_t context = nullptr;
  char* stack = nullptr;  // bottom of its stack while it has one
  FiberState state = FiberState::fresh;
  int barrier_line = 0;
  unsigned barriers_passed = 0;  // __syncthreads() calls this thread has made
  // Memory accesses this thread has made (Launch::access_limit). A pending local index (below)
  // parks its count in parked_accesses and sets this past the limit, so that the one comparison
  // every access makes also finds the pending index: no second test on the common path.
  uint64_t accesses = 0;
  uint64_t parked_accesses = 0;
  // The frame of the grader's code that called the kernel (halo::launch's call, launch.hpp): the
  // kernel's own frames lie below it, and a kernel never stores at or above it.
  uintptr_t kernel_caller_frame = 0;
  // An index the compiler's bounds check found outside its array (ubsan_handlers.cpp), waiting for
  // the access it guards, which tells a read from a write and a local array from the others.
  struct LocalIndex {
    bool pending = false;
    int64_t index = 0;
    uint64_t count = 0;       // elements of the array type
    const char* file = nullptr;
    uint32_t line = 0, column = 0;
  } local_index;
};

struct Worker {
  Launch* launch = nullptr;
  size_t block_linear = 0;
  uint3 block_idx;
  uint3 thread_idx;
  size_t thread_linear = 0;
  FiberSlot* current = nullptr;
  uintptr_t stack_lo = 0, stack_hi = 0;  // the running fiber's stack: "local" memory
  uintptr_t tls_lo = 0, tls_hi = 0;      // this OS thread's static TLS: where __shared__ lives
  fctx::fcontext_t scheduler = nullptr;
  bool in_fiber = false;  // a CUDA thread is running (for the crash and time-out handlers)
  bool stopped_by_timeout = false;  // the time-out stopped this worker's running thread
  bool in_atomic = false;  // the access being checked is an atomic operation's (check_atomic_access)
  // A thread of this worker passed the access limit, or the worker raised kDiagnosticLimit
  // diagnostics: it abandons the rest of its block and takes no other. Decided by what this
  // worker ran alone, so the same in every run of the same seed on the same number of workers.
  bool stopping = false;
  // The kernel's location of the latest access checked: a time-out that interrupts the
  // instrumentation callbacks names this line, the student's, rather than ours.
  const void* access_pc = nullptr;

  // Shared memory shadow, one record per 4-byte word of the TLS block (see shared_shadow.cpp).
  struct SharedWord {
    uint64_t block_serial = 0;  // the block the record belongs to; another block's is stale
    uint32_t write_epoch = 0, read_epoch = 0;
    int32_t writer = -1, reader = -1;
    const void* write_pc = nullptr;
    const void* read_pc = nullptr;
  };
  std::vector<SharedWord> shadow;
  // SharedWord::writer of a word a tensor copy wrote (tensor_copy.cpp): no thread, so it races
  // with none; and of a word whose copy is still in flight: a read of it comes before its wait.
  static constexpr int32_t kCopyEngineWriter = -2, kCopyInFlightWriter = -3;
  uint64_t block_serial = 0;  // unique per block the process runs (never 0)
  uint32_t epoch = 0;         // barriers released so far in the current block

  // The __shared__ array (offsets in the TLS block) and the __constant__ variable (addresses)
  // the latest in-bounds access fell in: most accesses fall in the same one again, and are then
  // known to be in bounds without a search of the symbols. Empty ranges until then.
  uint64_t shared_hit_lo = 0, shared_hit_hi = 0;
  uintptr_t constant_hit_lo = 0, constant_hit_hi = 0;
  // The pixels of the image row the latest in-bounds access of a pitched image fell in: most
  // accesses fall in the same row again, and are then known to be off the padding without a
  // division by the pitch. An empty range until then.
  uintptr_t row_lo = 0, row_hi = 0;

  // Diagnostics this worker raised, by kind, added to the record as it finishes; and the order
  // of the earliest of each kind it has offered the record. A kernel wrong in every access raises
  // a diagnostic per access: only one that may be the launch's first takes the lock.
  uint64_t diagnostic_counts[kDiagnosticKinds] = {};
  uint64_t diagnostics_raised = 0;
  uint64_t earliest_offered[kDiagnosticKinds];
  // The HALO_TODO() this worker noted last (stub_todo.cpp): every thread of a stub reaches the
  // same one, and after the first a thread costs a count, not a string and a lock.
  struct TodoSite {
    const char* what = nullptr;
    const char* file = nullptr;
    int line = 0;
  } todo_noted;
  Worker() { std::fill(std::begin(earliest_offered), std::end(earliest_offered), ~uint64_t(0)); }

  // The running block's traffic, tallied here and added to the launch record when the block
  // ends: workers run neighbouring blocks, whose counters in the record share cache lines, and
  // counting there made every access of two workers fight over them (twice the time of a launch).
  // Only what cannot be added up from the rest is counted per access: an array's loads are its
  // two phases' (loads_phase), the global space's traffic is its arrays' (scheduler.cpp's
  // flush_tally adds them up), so a global access adds to two counters, not six.
  struct ArrayTally {
    Traffic stores, loads_phase[2];
  };
  std::vector<ArrayTally> array_tally;   // per region of the launch
  Traffic space_tally[2][kSpaceCount];  // [store][space]; the global entries stay empty

  // The running block's tile barriers (halo::TileBarrier, emulated by tensor_copy.cpp), by address.
  struct TileBarrierState {
    const void* address = nullptr;
    int32_t initialiser = -1;  // the thread that initialised it, and in which barrier interval
    uint32_t init_epoch = 0;
    uint32_t completed = 0;    // phases completed: copies landed
    bool pending = false;      // a copy issued and not yet landed: the fields below describe it
    TensorMap map;
    float* stage = nullptr;
    int col = 0, row = 0;
    uint32_t issuer = 0;  // linear index of the thread that issued the copy in flight
    const void* issue_pc = nullptr;
  };
  std::vector<TileBarrierState> tile_barriers;
  uint64_t tile_barriers_serial = 0;  // the block they belong to (block_serial)

  std::vector<char*> free_stacks;
  std::vector<char*> all_stacks;
  std::vector<FiberSlot> slots;
  // Each thread's (x, y, z) in the block, worked out once per launch: three divisions at every
  // resume of a fiber were a third of the scheduler's own time (perf annotate, 7.2's 2^20 launch).
  std::vector<uint3> thread_indices;
  std::vector<uint64_t> warp_values;  // per thread: what it left at its warp's rendezvous (warp_exchange)
};

// A linear block or thread index as CUDA's (x, y, z) for a grid or block of `shape`.
uint3 unflatten(size_t linear, dim3 shape);
// "(3,0,0)": how reports print block and thread indices.
std::string triple(uint3 v);

// The worker of the calling OS thread, or null outside a launch (host code in the exercise
// file is instrumented too; its accesses are not the kernel's and are ignored). constinit
// lets every translation unit read it directly, without a TLS wrapper call per access.
extern constinit thread_local Worker* tls_worker;

// Leaves the running fiber for good: used after a diagnostic that stops a thread before the
// faulty access happens. Never returns.
[[noreturn]] void stop_current_thread();

// The instrumentation callbacks live in their own linker section, so that a signal handler can
// tell that it interrupted them.
#define HALO_CALLBACK_CODE __attribute__((section(HALO_CALLBACK_SECTION), noinline))
bool in_callback_code(const void* pc);

// Records a diagnostic raised by the running thread (keeps the first of each kind, the one of
// the lowest block and thread). `describe` builds the message only when it is kept, so a kernel
// wrong in every thread costs a count, not a million strings.
template <class Describe>
void raise_diagnostic_with(Worker& w, DiagnosticKind kind, const void* pc, Describe describe);
void raise_diagnostic(Worker& w, DiagnosticKind kind, std::string what, const void* pc);

// Raises the out-of-bounds diagnostic of a pending local index (FiberSlot::local_index) unless the
// access it guards, at `address`, is in shared or constant memory, whose own checks name it.
void check_local_index(Worker& w, uintptr_t address, bool store, const void* pc);

// The shared-memory checks of one access (races, uninitialised reads).
void check_shared_access(Worker& w, uintptr_t address, unsigned size, bool store, const void* pc);

// Races between blocks (block_race.cpp): the tags of a launch's regions, made before it runs; an
// access of region `region` noted (a load or store the kernel makes, never an atomic one); and
// the arrays a kernel may write, kept so that a launch can run again from where it started.
void prepare_block_tags(Launch& L);
// `N[-2]`, `P[1024]`, or for images `in[row 3][col 130]`: the element of `r` at address `a`
// (access_check.cpp), as every report names one.
std::string element_name(const Region& r, uintptr_t a);
// Ends the worker process with `why` on stderr (access_check.cpp): instrumented code did what it
// may not outside every CUDA thread, where no diagnostic of a launch can name it.
[[noreturn]] void stop_worker(const char* why, uintptr_t address, const void* pc);
void note_global_access(Worker& w, size_t region, uintptr_t address, unsigned size, bool store, const void* pc);
struct OutputSnapshot {
  explicit OutputSnapshot(const Launch& L);
  void restore(Launch& L) const;  // the arrays' bytes as they were, and every tag cleared
  std::vector<std::string> saved;  // per region; empty for an input
};

// Reports a tensor copy still in flight when a block ends (tensor_copy.cpp).
void report_copies_in_flight(Worker& w);

// Fills the kernels' __shared__ variables of this worker with the poison pattern at the start
// of a block, so that a read of something no thread wrote gives the same value on every run.
void poison_shared_variables(const Worker& w);

// An atomic operation's access (atomics.cpp), checked and counted as a load and a store of the
// running CUDA thread before it happens; `pc` is the kernel's return address.
void check_atomic_access(const void* address, unsigned size, const void* pc, const void* kernel_frame);
// A read the runtime makes for the running CUDA thread through a pointer the kernel chose (a
// string printf prints), checked and counted as the kernel's own load of `size` bytes.
void check_kernel_read(const void* address, unsigned size, const void* pc);

// What the kernel prints (kernel_output.cpp): cleared as a launch starts, kept in its record
// (in thread order, capped) as it ends.
void begin_kernel_output();
void end_kernel_output(LaunchRecord& record);

// Whether a shared-memory access stays inside one __shared__ array (static: its symbol; dynamic:
// the launch's size); raises an out-of-bounds diagnostic named after the nearest array when not.
bool check_shared_bounds(Worker& w, uintptr_t address, unsigned size, bool store, const void* pc);
// Whether an access near constant memory stays inside one __constant__ variable, as a read
// (constant_bounds.cpp); raises an out-of-bounds or write diagnostic when not.
bool check_constant_access(Worker& w, uintptr_t address, unsigned size, bool store, const void* pc);
// How far past the last __constant__ variable an access still counts as an overrun of it.
inline constexpr uintptr_t kConstantSlackBytes = 64;
// Where the dynamic shared memory starts in the TLS block that starts at `tls_lo`.
uintptr_t dynamic_shared_offset(uintptr_t tls_lo);

// "element 5 of N_ds" for an address in the executable's TLS block, from the ELF symbol table.
std::string shared_element_name(uintptr_t offset_in_tls_block);

template <class Describe>
void raise_diagnostic_with(Worker& w, DiagnosticKind kind, const void* pc, Describe describe) {
  Launch& L = *w.launch;
  const int k = int(kind);
  const uint64_t order = w.block_linear * L.threads_per_block() + w.thread_linear;
  ++w.diagnostic_counts[k];
  if (++w.diagnostics_raised == kDiagnosticLimit) w.stopping = true;
  if (order >= w.earliest_offered[k]) return;  // this worker offered an earlier one of this kind
  w.earliest_offered[k] = order;
  std::lock_guard lock(L.diagnostics_mutex);
  LaunchRecord& R = *L.record;
  Diagnostic& first = R.first[k];
  if (L.has_first[k] && order >= first.order) return;
  L.has_first[k] = true;
  Diagnostic d;
  d.kind = kind;
  d.block = w.block_idx;
  d.thread = w.thread_idx;
  d.order = order;
  d.pc = pc;
  d.what = describe(d);  // may fill the other side (has_other, other_thread, other_pc, other_role)
  first = std::move(d);
}

}  // namespace halo::cpu
