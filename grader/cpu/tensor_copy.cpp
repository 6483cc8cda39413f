// The copy engine on the CPU backend: tensor copies of a box of a pitched image into shared
// memory, and the barriers (mbarriers) that say when one has landed (halo/given/tile_copy.cuh
// gives them to kernel files).
//
// A copy is issued by one thread and lands when a thread first waits for it, not before: until
// then its destination holds the poison and is marked "in flight" in the shared-memory shadow,
// so a read before the wait is reported, as it would read stale data on a GPU. Its loads are
// counted when it is issued (the in-image elements of the box, one access per row); when it
// lands, the destination is marked written by the copy engine, which races with no thread.
// What a GPU would hang on (waiting for a copy never issued) or silently get wrong (refilling a
// stage while another thread reads it, waiting for the wrong phase, ending a block with a copy in
// flight) is reported with the line of the call.
#include <algorithm>
#include <cstring>
#include <string>

#include "halo/cpu/code_context.hpp"
#include "execution.hpp"
#include "halo/tile_barrier.hpp"
#include "source_lines.hpp"

namespace halo::cpu {
namespace {

constexpr uint32_t kPoison = 0x7FC0DEADu;  // the same quiet NaN as unwritten shared memory

Worker& worker() { return *tls_worker; }
// A CUDA thread is calling: decided by the stack it runs on (code_context.hpp), not by a flag.
bool in_kernel() { return tls_worker && !on_host_stack(current_stack_pointer()); }

// Raises a diagnostic of the copy engine's rules; `describe` builds its sentence only when it is
// kept (every thread of a block may break the same rule).
template <class Describe>
void report(Worker& w, const void* pc, Describe describe) {
  raise_diagnostic_with(w, DiagnosticKind::tile_copy, pc, [&](Diagnostic&) { return describe(); });
}
template <class Describe>
[[noreturn]] void refuse(Worker& w, const void* pc, Describe describe) {
  report(w, pc, describe);
  stop_current_thread();
}

std::string line_of(const void* pc) {
  const std::string at = source_line(pc);
  return at.empty() ? std::string("an unknown line") : at;
}

// The running block's record of barrier b, or null when no thread of it initialised b.
Worker::TileBarrierState* state_of(Worker& w, const void* b) {
  if (w.tile_barriers_serial != w.block_serial) {  // another block's records: stale
    w.tile_barriers.clear();
    w.tile_barriers_serial = w.block_serial;
  }
  for (auto& s : w.tile_barriers)
    if (s.address == b) return &s;
  return nullptr;
}

std::string phase_words(uint32_t n) { return std::to_string(n) + (n == 1 ? " phase" : " phases"); }

// The launch's array holding `p`, by index into Launch::regions, or -1.
int region_of(const Launch& L, const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (size_t k = 0; k < L.regions.size(); ++k)
    if (a >= L.regions[k].lo && a < L.regions[k].hi) return int(k);
  return -1;
}

// Whether every pixel `map` describes lies in the launch array its image pointer points into.
bool map_inside_its_array(const Launch& L, const TensorMap& m) {
  const int k = region_of(L, m.image);
  if (k < 0 || !halo::tensor_map_shape_ok(m.image, m.width, m.height, m.pitch, m.box_width, m.box_height)) return false;
  return halo::tensor_map_span(m.width, m.height, m.pitch) <=
         (L.regions[size_t(k)].hi - reinterpret_cast<uintptr_t>(m.image)) / sizeof(float);
}

// Calls row(i, c0, c1, in) for each row i of the box at (col, row0) that holds image pixels:
// columns c0 .. c1 - 1 of the image, whose row starts at `in`.
template <class Row>
void each_image_row(const TensorMap& m, int col, int row0, Row row) {
  for (int i = 0; i < m.box_height; ++i) {
    const int r = row0 + i;
    const int c0 = std::max(col, 0), c1 = std::min(col + m.box_width, m.width);
    if (r < 0 || r >= m.height || c0 >= c1) continue;
    row(i, c0, c1, m.image + size_t(r) * size_t(m.pitch));
  }
}

// The loads of a copy, counted when it is issued (the copy engine reads the image then, whether
// or not anyone ever waits for it): the box's pixels inside the image, one access per row, the
// issuing thread's.
void count_loads(Worker& w, const TensorMap& m, int col, int row0) {
  Launch& L = *w.launch;
  const int k = region_of(L, m.image);
  const Region& r = L.regions[size_t(k)];
  uint64_t rows = 0, elements = 0;
  each_image_row(m, col, row0, [&](int, int c0, int c1, const float* in) {
    ++rows;
    elements += uint64_t(c1 - c0);
    if (!L.per_element) return;
    uint32_t* slots = L.record->arrays[size_t(k)].element_loads.data();
    const size_t first = (reinterpret_cast<uintptr_t>(in + c0) - r.lo) / r.element_size;
    for (size_t e = first; e < first + size_t(c1 - c0); ++e) __atomic_fetch_add(&slots[e], 1u, __ATOMIC_RELAXED);
  });
  Worker::ArrayTally& tally = w.array_tally[size_t(k)];
  const int phase = w.current->barriers_passed ? 1 : 0;
  tally.loads_phase[phase].accesses += rows;  // the array's loads and the global space's are added up from it
  tally.loads_phase[phase].bytes += elements * sizeof(float);
  if (L.per_thread)
    L.record->arrays[size_t(k)].thread_loads[w.block_linear * L.threads_per_block() + w.thread_linear] +=
        uint32_t(elements);
}

// Lands a copy: the box's in-image pixels into the stage, zeros elsewhere; the stage is then
// written by the copy engine, which races with no thread.
void land(Worker& w, const Worker::TileBarrierState& s) {
  const TensorMap& m = s.map;
  std::fill(s.stage, s.stage + size_t(m.box_width) * size_t(m.box_height), 0.0f);
  each_image_row(m, s.col, s.row, [&](int i, int c0, int c1, const float* in) {
    std::memcpy(s.stage + size_t(i) * size_t(m.box_width) + (c0 - s.col), in + c0, size_t(c1 - c0) * sizeof(float));
  });
  if (!w.launch->checks) return;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(s.stage) - w.tls_lo;
  const size_t words = size_t(m.box_width) * size_t(m.box_height);
  for (size_t j = 0; j < words && lo / 4 + j < w.shadow.size(); ++j) {
    Worker::SharedWord& sw = w.shadow[lo / 4 + j];
    sw = Worker::SharedWord{w.block_serial};
    sw.writer = Worker::kCopyEngineWriter;
    sw.write_epoch = w.epoch;
    sw.write_pc = s.issue_pc;
  }
}

}  // namespace

}  // namespace halo::cpu

using namespace halo::cpu;

// Called straight from the kernel: the return address is the kernel's line.
void tile_barrier_init(TileBarrier* b) {
  const void* pc = __builtin_return_address(0);
  if (!in_kernel()) return;
  Worker& w = worker();
  const uintptr_t a = reinterpret_cast<uintptr_t>(b);
  if (a - w.tls_lo >= w.tls_hi - w.tls_lo)
    refuse(w, pc, [&] {
      return std::string("tile_barrier_init() on a barrier outside shared memory: declare it __shared__");
    });
  Worker::TileBarrierState* s = state_of(w, b);
  if (s && s->pending)
    refuse(w, pc, [&] {
      return std::string("tile_barrier_init() on a barrier whose copy is still in flight (issued at " +
                         line_of(s->issue_pc) + "): initialise each barrier once, before the first copy");
    });
  if (!s) {
    w.tile_barriers.push_back(Worker::TileBarrierState{});
    s = &w.tile_barriers.back();
  }
  *s = Worker::TileBarrierState{};
  s->address = b;
  s->initialiser = int32_t(w.thread_linear);
  s->init_epoch = w.epoch;
}

void copy_tile_async(float* stage, const TensorMap& map, int col, int row, TileBarrier* b) {
  const void* pc = __builtin_return_address(0);
  if (!in_kernel()) return;
  Worker& w = worker();
  Launch& L = *w.launch;
  check_kernel_read(&map, sizeof map, pc);  // the kernel's reference: its fields are read below
  if (++w.current->accesses > L.access_limit)
    refuse(w, pc, [&] { return std::string("too many tensor copies issued by one thread"); });
  Worker::TileBarrierState* s = state_of(w, b);
  if (!s)
    refuse(w, pc, [&] {
      return std::string("copy_tile_async() on a barrier no thread of this block initialised (tile_barrier_init)");
    });
  if (s->pending)
    refuse(w, pc, [&] {
      return std::string("a second copy_tile_async() on a barrier whose last copy (issued at " + line_of(s->issue_pc) +
                         ") nobody has waited for: one copy per barrier per phase; wait_tile() before the next");
    });
  // The map is the kernel's parameter, but a kernel can build one of its own: whatever its fields
  // say, the copy must read inside one array of the launch (this runtime code is not instrumented).
  if (!map_inside_its_array(L, map))
    refuse(w, pc, [&] {
      return std::string(
          "copy_tile_async() with a tensor map that does not describe an image inside one array of this launch: pass "
          "the kernel's TensorMap parameter, unchanged");
    });
  const uintptr_t a = reinterpret_cast<uintptr_t>(stage);
  if (a % halo::kTensorSharedAlign != 0)
    refuse(w, pc, [&] {
      return std::string("the destination of a tensor copy must be " + std::to_string(halo::kTensorSharedAlign) +
                         "-byte aligned in shared memory (it is " + std::to_string(a % halo::kTensorSharedAlign) +
                         " bytes past a boundary): declare the stages __align__(" +
                         std::to_string(halo::kTensorSharedAlign) + ") and keep each stage a multiple of " +
                         std::to_string(halo::kTensorSharedAlign) + " bytes");
    });
  const size_t bytes = size_t(map.box_width) * size_t(map.box_height) * sizeof(float);
  // Checks on or off, the runtime writes only into the block's shared memory, and never over its
  // own pointer to this worker (access_check.cpp refuses a kernel's store there too).
  const uintptr_t own = reinterpret_cast<uintptr_t>(&tls_worker);
  if (a < w.tls_lo || a + bytes > w.tls_hi || (a < own + sizeof tls_worker && own < a + bytes))
    refuse(w, pc, [&] { return std::string("the destination of a tensor copy must be shared memory"); });
  if (L.checks && !check_shared_bounds(w, a, unsigned(bytes), true, pc)) stop_current_thread();

  if (L.checks) {
    const int t = int(w.thread_linear);
    const uintptr_t lo = (a - w.tls_lo) / 4;
    for (size_t j = 0; j < bytes / 4 && lo + j < w.shadow.size(); ++j) {
      Worker::SharedWord& sw = w.shadow[lo + j];
      if (sw.block_serial != w.block_serial) continue;
      const bool read_now = sw.reader >= 0 && sw.reader != t && sw.read_epoch == w.epoch;
      const bool written_now = sw.writer >= 0 && sw.writer != t && sw.write_epoch == w.epoch;
      if (read_now || written_now) {
        const int other = read_now ? sw.reader : sw.writer;
        raise_diagnostic_with(w, DiagnosticKind::shared_race, pc, [&](Diagnostic& d) {
          d.has_other = true;
          d.other_thread = unflatten(size_t(other), L.block);
          d.other_pc = read_now ? sw.read_pc : sw.write_pc;
          d.other_role = read_now ? "read it" : "wrote it";
          return "tensor copy into " + shared_element_name((lo + j) * 4) + " issued while thread " +
                 triple(d.other_thread) + " " + d.other_role +
                 " in the same barrier interval: a __syncthreads() between the last use of a stage and the next "
                 "copy into it";
        });
        break;
      }
    }
  }
  // In flight: poisoned, and marked so that a read before the wait is reported.
  for (size_t j = 0; j < bytes / 4; ++j) std::memcpy(stage + j, &kPoison, 4);
  if (L.checks) {
    const uintptr_t lo = (a - w.tls_lo) / 4;
    for (size_t j = 0; j < bytes / 4 && lo + j < w.shadow.size(); ++j) {
      Worker::SharedWord& sw = w.shadow[lo + j];
      sw = Worker::SharedWord{w.block_serial};
      sw.writer = Worker::kCopyInFlightWriter;
      sw.write_epoch = w.epoch;
      sw.write_pc = pc;
    }
  }
  count_loads(w, map, col, row);
  s->pending = true;
  s->map = map;
  s->stage = stage;
  s->col = col;
  s->row = row;
  s->issuer = uint32_t(w.thread_linear);
  s->issue_pc = pc;
}

void wait_tile(TileBarrier* b, unsigned use) {
  const void* pc = __builtin_return_address(0);
  if (!in_kernel()) return;
  Worker& w = worker();
  Worker::TileBarrierState* s = state_of(w, b);
  if (!s)
    refuse(w, pc, [&] {
      return std::string("wait_tile() on a barrier no thread of this block initialised (tile_barrier_init)");
    });
  if (s->initialiser != int32_t(w.thread_linear) && s->init_epoch == w.epoch)
    report(w, pc, [&] {
      return "wait_tile() on a barrier thread " + triple(unflatten(size_t(s->initialiser), w.launch->block)) +
             " initialised in the same barrier interval: a __syncthreads() after tile_barrier_init()";
    });
  if (use == s->completed) {
    if (!s->pending)
      refuse(w, pc, [&] {
        return std::string("wait_tile() for use " + std::to_string(use) + " of a barrier that has completed " +
                           phase_words(s->completed) +
                           " and has no copy in flight: on a GPU this thread would wait "
                           "forever (was the copy issued on another barrier, or not at all?)");
      });
    land(w, *s);
    s->pending = false;
    ++s->completed;
    return;
  }
  if (use + 1 == s->completed) return;  // landed already
  if (use < s->completed) {             // behind: later copies have landed over the one it wants
    report(w, pc, [&] {
      return "wait_tile() for use " + std::to_string(use) + " of a barrier that has completed " +
             phase_words(s->completed) + ": this thread is behind, and the copies after use " + std::to_string(use) +
             " have already landed in the stage it wants to read. Another thread refilled the stage before this one "
             "was done with it: a __syncthreads() at the end of each tile, before the next copy into the stage";
    });
    return;
  }
  report(w, pc, [&] {
    return "wait_tile() for use " + std::to_string(use) + " of a barrier that has completed " +
           phase_words(s->completed) + ": wait for the copy you need (use " + std::to_string(s->completed) +
           " is the one in flight, if any); a GPU compares only the parity of the use, so this would wait for the "
           "wrong copy there";
  });
}

namespace halo::cpu {

// A block that ends with a copy in flight: on a GPU its shared memory may go to the next block
// while the copy still writes into it, and the copy's reads were wasted.
void report_copies_in_flight(Worker& w) {
  if (w.tile_barriers_serial != w.block_serial) return;
  for (const auto& s : w.tile_barriers)
    if (s.pending) {
      w.thread_linear = s.issuer;  // the report names the thread that issued it
      w.thread_idx = unflatten(w.thread_linear, w.launch->block);
      report(w, s.issue_pc, [&] {
        return std::string(
            "the block ended with this tensor copy in flight: no thread waited for it. Issue only the tiles the block "
            "computes (the last one is tile mine - 1), and wait for each");
      });
      return;
    }
}

}  // namespace halo::cpu
