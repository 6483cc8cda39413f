// Section 7.5, the cached tiled 1D kernel: correctness on random inputs of awkward sizes and
// block sizes, and its loads of N split at the barrier: the block's own tile before it (loads
// into shared memory), the halo cells after it (reads of global memory that should hit in L2),
// exact against the chapter's counts.
#include <cmath>
#include <cstdlib>
#include <functional>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;
namespace data = halo::data;

const unsigned kBlocks[] = {32, 128, 256};  // all at most TILE_SIZE
const int kMaskWidths[] = {1, 3, 5, 9, 15};

std::string describe(size_t width, size_t mask, unsigned block) {
  return "Width = " + std::to_string(width) + ", Mask_Width = " + std::to_string(mask) + ", " + std::to_string(block) +
         " threads per block";
}

#if defined(HALO_BACKEND_CPU)
// The mistake behind the most common out-of-bounds read of this kernel: a thread of a partial
// last tile loading its own element N[i] with i >= Width.
std::string unguarded_tile_load_hint(size_t width, unsigned block) {
  const auto& rec = halo::cpu::last_launch();
  if (!rec.valid || rec.counts[int(halo::cpu::DiagnosticKind::out_of_bounds)] == 0) return "";
  const auto& d = rec.first[int(halo::cpu::DiagnosticKind::out_of_bounds)];
  const std::string prefix = "read of N[";
  const size_t at = d.what.find(prefix);
  if (at == std::string::npos) return "";
  const long index = std::strtol(d.what.c_str() + at + prefix.size(), nullptr, 10);
  const long own = long(d.block.x) * long(block) + long(d.thread.x);
  if (index != own || index < long(width)) return "";
  return "hint: thread " + std::to_string(d.thread.x) + " of block " + std::to_string(d.block.x) +
         " loaded its own tile element N[" + std::to_string(index) + "], but N ends at N[" +
         std::to_string(width - 1) + "]: guard the load into N_ds with i < Width (store 0 there instead)";
}
#endif

struct Result {
  std::vector<float> P;
  Verdict launch;
};

// per_thread: count each thread's loads too (CPU backend), to tell loads by threads with no
// output from the block's real work.
Result run(const std::vector<float>& N, const std::vector<float>& M, unsigned block, bool per_thread = false) {
  REQUIRE_MESSAGE(block <= unsigned(data::defines::TILE_SIZE), "the grader's blocks must fit N_ds[TILE_SIZE]");
  const std::string what = describe(N.size(), M.size(), block);
  const cudaError_t copied = copy_mask_to_constant(M.data(), int(M.size()));
  if (copied != cudaSuccess) {
    Verdict v;
    v.fail("copy_mask_to_constant for " + what + " failed: " + cudaGetErrorName(copied));
    return {{}, v};
  }
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", N.size());
#if defined(HALO_BACKEND_CPU)
  halo::cpu::set_count_per_thread(per_thread);
#else
  (void)per_thread;
#endif
  const cudaError_t err = halo::launch(convolution_1D_cached_kernel, dim3(halo::blocks_for(N.size(), block)),
                                       dim3(block), input_tile_bytes(dim3(block), int(M.size()) / 2), dN.get(),
                                       dP.get(), int(M.size()), int(N.size()));
#if defined(HALO_BACKEND_CPU)
  halo::cpu::set_count_per_thread(false);
#endif
  Verdict v = judge_launch(err, what);
#if defined(HALO_BACKEND_CPU)
  if (!v.ok) {
    const std::string hint = unguarded_tile_load_hint(N.size(), block);
    if (!hint.empty()) v.fail(hint);
  }
#endif
  return {dP.download(), v};
}

// The 1D mistakes every section recognises, and the sign slips in the halo read's index.
// Made against the kernel's outputs `fit` (ReferenceMaker in compare.hpp).
std::vector<Misconception> cached_misconceptions(const std::vector<float>& N, const std::vector<float>& M,
                                                 unsigned block, const std::vector<float>* fit) {
  auto out = conv1d_misconceptions(N, M, fit);
  if (N.size() <= block || M.size() < 3) return out;  // one tile, or no halo: nothing to tell apart
  const std::string tail = " instead of N[i - n + j] (the neighbour under M[j]): check the signs in the index of the "
                           "halo read from global memory";
  out.push_back({"the result with each halo cell read from N[i + n + j]" + tail,
                 halo_read_elsewhere(N, M, block, [](long i, long n, long j) { return i + n + j; }, fit)});
  out.push_back({"the result with each halo cell read from N[i + n - j]" + tail,
                 halo_read_elsewhere(N, M, block, [](long i, long n, long j) { return i + n - j; }, fit)});
  out.push_back({"the result with each halo cell read from N[i - n - j]" + tail,
                 halo_read_elsewhere(N, M, block, [](long i, long n, long j) { return i - n - j; }, fit)});
  return out;
}

// When every wrong output sits within n of a tile edge that has a neighbouring tile, the
// halo cells are what went wrong; say so (the values read there may be anything, so no
// reference can recognise them).
std::string tile_edge_hint(const std::vector<float>& got, const Reference& want, size_t mask, unsigned block) {
  if (!wrong_at_block_edges(got, want, mask, block).any) return "";
  return "hint: every wrong output is within n = " + std::to_string(mask / 2) +
         " of an edge of its block's tile, where the mask reaches into the neighbouring tile: the halo cells "
         "are read wrongly. N_ds holds only the block's own blockDim.x elements; read a neighbour outside the "
         "tile (but inside N) from N in global memory";
}

Verdict check_output(const std::vector<float>& N, const std::vector<float>& M, unsigned block, const Result& r) {
  Verdict v = r.launch;
  if (r.P.size() != N.size()) return v;  // the launch never happened
  const Reference want = conv1d_reference(N, M);
  const Verdict cmp = compare_outputs("P", r.P, want, [&](Fit fit) { return cached_misconceptions(N, M, block, fit); });
  v.merge(cmp);
  if (!cmp.ok) {
    const std::string hint = tile_edge_hint(r.P, want, M.size(), block);
    if (!hint.empty()) v.fail(hint);
  }
  return v;
}

void check(const std::vector<float>& N, const std::vector<float>& M, unsigned block) {
  INFO(describe(N.size(), M.size(), block));
  HALO_REQUIRE_VERDICT(check_output(N, M, block, run(N, M, block)));
}

// Every block size, every mask, at the widths `widths(block)` gives for that block size.
void check_widths(const std::function<std::vector<size_t>(unsigned)>& widths, uint64_t salt) {
  Rng rng(salt);
  for (unsigned block : kBlocks)
    for (size_t width : widths(block))
      for (int mask : kMaskWidths) check(rng.signal(width), rng.mask(size_t(mask)), block);
}

}  // namespace

TEST_SUITE_BEGIN("7.5");

TEST_CASE("7.5 cached-1d / correct / the book's 3rd edition example") {
  const auto& ex = data::examples::book_3rd_edition;
  const auto N = as_floats(ex.N), M = as_floats(ex.M);
  require_book_values(ex, conv1d_reference(N, M));
  check(N, M, 32);
}

TEST_CASE("7.5 cached-1d / correct / width 1: every neighbour is a ghost cell") {
  check_widths([](unsigned) { return std::vector<size_t>{1}; }, 1);
}
TEST_CASE("7.5 cached-1d / correct / width smaller than the mask") {
  Rng rng(2);
  for (unsigned block : kBlocks)
    for (size_t width : {2, 4, 7})
      for (int mask : masks_wider_than(width, kMaskWidths)) check(rng.signal(width), rng.mask(size_t(mask)), block);
}
TEST_CASE("7.5 cached-1d / correct / width one less than the block") {
  check_widths([](unsigned b) { return std::vector<size_t>{b - 1}; }, 3);
}
TEST_CASE("7.5 cached-1d / correct / width equal to the block") {
  check_widths([](unsigned b) { return std::vector<size_t>{b}; }, 4);
}
TEST_CASE("7.5 cached-1d / correct / width one more than the block") {
  check_widths([](unsigned b) { return std::vector<size_t>{b + 1}; }, 5);
}
TEST_CASE("7.5 cached-1d / correct / several tiles: halo cells on both sides") {
  check_widths([](unsigned b) { return std::vector<size_t>{4 * size_t(b)}; }, 6);
}
TEST_CASE("7.5 cached-1d / correct / widths not a multiple of the block") {
  // 3 * block + 2: the last tile is shorter than the mask's radius; 1000 is a multiple of none.
  check_widths([](unsigned b) { return std::vector<size_t>{2 * size_t(b) + 7, 3 * size_t(b) + 2, 1000}; }, 7);
}
TEST_CASE("7.5 cached-1d / correct / width 2^20 - 3") {
  Rng rng(8);
  check(rng.signal(kLargeWidth - 3), rng.mask(5), 256);
  // The other blocks and masks: many blocks suffice (random_inputs.hpp).
  for (unsigned block : {32u, 256u})
    for (int mask : {5, 15})
      if (block != 256 || mask != 5) check(rng.signal(kManyBlocksWidth), rng.mask(size_t(mask)), block);
}

// Load counts come from the CPU backend's instrumentation, or on a GPU from the load-counting
// tool (measured_launch.hpp). Only the CPU backend splits a block's loads at its barrier (the
// tile before, the halo after); on a GPU each block's loads are checked as a whole.

namespace {

#if defined(HALO_BACKEND_CPU)
using halo::cpu::Space;

uint64_t shared_elements(const std::vector<halo::cpu::Traffic>& per_block, size_t b) {
  return per_block.at(b).bytes / sizeof(float);
}
#endif

// What a block's loads of N before and after its barrier say went wrong, in words.
std::string block_hint(size_t b, uint64_t before, uint64_t want_before, uint64_t after, uint64_t want_after) {
  if (after == 0 && want_after > 0 && before == want_before + want_after)
    return "hint: block " + std::to_string(b) + " loaded N only before its first __syncthreads(): the kernel must "
           "wait at __syncthreads() after filling N_ds, before any thread reads it";
  if (after == 0 && want_after > 0)
    return "hint: block " + std::to_string(b) + " read no halo cell from global memory: its neighbours outside the "
           "tile are not in N_ds (N_ds holds only the block's own elements); read them from N";
  if (after > want_after)
    return "hint: block " + std::to_string(b) + " read " + std::to_string(after) + " elements of N after its "
           "barrier, but only " + std::to_string(want_after) + " neighbours lie outside its tile: elements inside "
           "the block's own tile must be read from N_ds, not from N";
  if (before != want_before)
    return "hint: block " + std::to_string(b) + " loaded " + std::to_string(before) + " elements of N before its "
           "barrier; its tile has " + std::to_string(want_before) + " elements inside N, one per thread, loaded once";
  return "";
}

// Loads of N in block b (all blocks: b = npos) by threads with no output (t >= Width) in the last
// launch, when it counted per thread: a kernel that guards only its store lets them read their
// halo neighbours. More work than the book's kernel, not a mistake: they are left out of the
// block's counts and reported as advice. A thread with no output loads nothing before the
// barrier (its tile element would lie past the end of N), so they are all halo reads. 0 on a
// GPU, which counts per block only.
uint64_t idle_loads(size_t width, size_t b = size_t(-1)) {
#if defined(HALO_BACKEND_CPU)
  const auto& rec = halo::cpu::last_launch();
  const auto* a = rec.array("N");
  if (!a) return 0;
  const size_t per_block = rec.threads_per_block();
  uint64_t idle = 0;
  for (size_t t = width; t < a->thread_loads.size(); ++t)
    if (b == size_t(-1) || t / per_block == b) idle += a->thread_loads[t];
  return idle;
#else
  (void)width, (void)b;
  return 0;
#endif
}

// A count after the barrier without the idle threads' loads. Should some of those have come
// before the barrier, the rest is 0 rather than a wrapped-around number, and the tile row (which
// still holds them) shows the mismatch.
uint64_t without_idle(uint64_t count, uint64_t idle) { return count > idle ? count - idle : 0; }

void advise_idle_loads(uint64_t idle, bool outputs_right) {
  if (idle)
    advise("7.5", std::string(outputs_right ? "your outputs are right, but " : "") +
                      "threads with no output (i >= Width) read " + std::to_string(idle) +
                      (idle == 1 ? " halo element" : " halo elements") + " of N from global memory in this test's launches; the book's kernel tests "
                      "i < Width before its loop, so those threads load nothing (they are left out of the counts)");
}

// The rows of one block: the tile before the barrier, the halo after it (CPU backend), and both
// together, without the loads of threads with no output (idle_loads).
template <class Array>
void add_block_rows(LoadReport& report, const Array& a, size_t b, const std::string& scope, uint64_t want_tile,
                    uint64_t want_halo, Verdict& hints, uint64_t idle = 0) {
#if defined(HALO_BACKEND_CPU)
  const uint64_t before = a.block_load_elements_before_barrier(b), after = without_idle(a.block_load_elements_after_barrier(b), idle);
  report.add({"N", scope + " tile", before, want_tile});
  report.add({"N", scope + " halo", after, want_halo});
  const std::string hint = block_hint(b, before, want_tile, after, want_halo);
  if (!hint.empty()) hints.fail(hint);
#else
  (void)hints;
#endif
  report.add({"N", scope + " all", without_idle(a.block_load_elements(b), idle), want_tile + want_halo});
}

template <class Array>
void add_grid_rows(LoadReport& report, const Array& a, double width, double block, double mask, uint64_t idle = 0) {
#if defined(HALO_BACKEND_CPU)
  uint64_t before = 0, after = 0;
  for (size_t b = 0; b < a.block_loads.size(); ++b) {
    before += a.block_load_elements_before_barrier(b);
    after += a.block_load_elements_after_barrier(b);
  }
  report.add({"N", "whole grid tile", before, uint64_t(data::cached_1d_tile_loads_total(width))});
  report.add({"N", "whole grid halo", without_idle(after, idle), uint64_t(data::cached_1d_halo_reads_total(width, block, mask))});
#endif
  report.add({"N", "whole grid all", without_idle(a.load_elements(), idle),
              uint64_t(data::cached_1d_global_accesses_total(width, block, mask))});
}

std::string block_name(const std::string& what, size_t b) { return what + " (block " + std::to_string(b) + ")"; }

}  // namespace

TEST_CASE("7.5 cached-1d / loads / tile before the barrier and halo after it at Width 2^20") {
  if (!load_counter_ready()) return;
  const auto& m = data::measurements::cached_1d_large;
  const size_t width = size_t(m.Width), mask = size_t(m.Mask_Width);
  const unsigned block = unsigned(m.blockDim);
  Rng rng(9);
  const auto N = rng.signal(width), M = rng.mask(mask);
  const Result r = run(N, M, block);
  HALO_REQUIRE_VERDICT(r.launch);
  const Verdict output = check_output(N, M, block, r);
  const auto& rec = measured_launch();
  const auto* a = rec.array("N");
  REQUIRE(a != nullptr);
  const size_t last = rec.block_count() - 1;
  LoadReport report("7.5", describe(width, mask, block));
  Verdict hints;
  add_block_rows(report, *a, 1, "internal (block 1)", uint64_t(data::cached_1d_tile_loads(m.blockDim)),
                 uint64_t(data::cached_1d_halo_reads_internal_block(m.Mask_Width)), hints);
  add_block_rows(report, *a, 0, "first (block 0)", uint64_t(data::cached_1d_tile_loads(m.blockDim)),
                 uint64_t(data::cached_1d_halo_reads_boundary_block(m.Mask_Width)), hints);
  add_block_rows(report, *a, last, block_name("last", last), uint64_t(data::cached_1d_tile_loads(m.blockDim)),
                 uint64_t(data::cached_1d_halo_reads_boundary_block(m.Mask_Width)), hints);
  add_grid_rows(report, *a, m.Width, m.blockDim, m.Mask_Width);
#if defined(HALO_BACKEND_CPU)
  // Shared memory (N_ds): each thread stores its tile element once; every product whose input
  // is in the tile reads it there once.
  report.add({"N_ds", "internal (block 1) stores", shared_elements(rec.block_space_stores[int(Space::shared)], 1),
              uint64_t(data::cached_1d_tile_loads(m.blockDim))});
  report.add({"N_ds", "internal (block 1) reads", shared_elements(rec.block_space_loads[int(Space::shared)], 1),
              uint64_t(data::cached_1d_shared_reads_internal_block(m.blockDim, m.Mask_Width))});
#endif
  report.set_output_correct(output.ok);
  report.publish();
  Verdict v = output;
  v.merge(report.verdict());
  if (!report.verdict().ok) v.merge(hints);
  HALO_REQUIRE_VERDICT(v);
}

TEST_CASE("7.5 cached-1d / loads / a width that is not a multiple of the block") {
  if (!load_counter_ready()) return;
  const auto& m = data::measurements::cached_1d_ragged;
  const size_t width = size_t(m.Width), mask = size_t(m.Mask_Width);
  const unsigned block = unsigned(m.blockDim);
  Rng rng(10);
  const auto N = rng.signal(width), M = rng.mask(mask);
  const Result r = run(N, M, block, true);
  HALO_REQUIRE_VERDICT(r.launch);
  const Verdict output = check_output(N, M, block, r);
  const auto& rec = measured_launch();
  const auto* a = rec.array("N");
  REQUIRE(a != nullptr);
  LoadReport report("7.5", describe(width, mask, block));
  Verdict hints;
  add_block_rows(report, *a, 1, "internal (block 1)", uint64_t(data::cached_1d_tile_loads(m.blockDim)),
                 uint64_t(data::cached_1d_halo_reads_internal_block(m.Mask_Width)), hints);
  add_block_rows(report, *a, 0, "first (block 0)", uint64_t(data::cached_1d_tile_loads(m.blockDim)),
                 uint64_t(data::cached_1d_halo_reads_boundary_block(m.Mask_Width)), hints);
  // The last tile is shorter than n: the two blocks beside that boundary read fewer halo cells.
  for (size_t b : {rec.block_count() - 2, rec.block_count() - 1})
    add_block_rows(report, *a, b, block_name(b + 1 == rec.block_count() ? "last" : "before last", b),
                   uint64_t(data::cached_1d_tile_loads_block(double(b), m.Width, m.blockDim)),
                   uint64_t(data::cached_1d_halo_reads_block(double(b), m.Width, m.blockDim, m.Mask_Width)), hints,
                   idle_loads(width, b));
  add_grid_rows(report, *a, m.Width, m.blockDim, m.Mask_Width, idle_loads(width));
  advise_idle_loads(idle_loads(width), output.ok);
  report.set_output_correct(output.ok);
  report.publish();
  Verdict v = output;
  v.merge(report.verdict());
  if (!report.verdict().ok) v.merge(hints);
  HALO_REQUIRE_VERDICT(v);
}

TEST_CASE("7.5 cached-1d / loads / every block at awkward widths") {
  if (!load_counter_ready()) return;
  Rng rng(11);
  uint64_t idle_total = 0;
  for (unsigned block : kBlocks) {
    for (size_t width : {size_t(1), size_t(block - 1), size_t(block + 1), 3 * size_t(block) + 2, size_t(1000)}) {
      for (int mask : {1, 5, 15}) {
        const Result r = run(rng.signal(width), rng.mask(size_t(mask)), block, true);
        idle_total += idle_loads(width);
        HALO_REQUIRE_VERDICT(r.launch);
        const auto& rec = measured_launch();
        const auto* a = rec.array("N");
        REQUIRE(a != nullptr);
        for (size_t b = 0; b < rec.block_count(); ++b) {
          const auto want_tile = uint64_t(data::cached_1d_tile_loads_block(double(b), double(width), double(block)));
          const auto want_halo =
              uint64_t(data::cached_1d_halo_reads_block(double(b), double(width), double(block), double(mask)));
#if defined(HALO_BACKEND_CUDA)  // one count per block: the tile and its halo together
          if (a->block_load_elements(b) != want_tile + want_halo)
            FAIL("block " << b << " (" << describe(width, size_t(mask), block) << ") loaded "
                          << a->block_load_elements(b) << " elements of N; expected " << want_tile + want_halo << ": "
                          << want_tile << " for its tile and " << want_halo << " halo cells inside N");
#else
          const uint64_t before = a->block_load_elements_before_barrier(b),
                         after = without_idle(a->block_load_elements_after_barrier(b), idle_loads(width, b));
          if (before != want_tile || after != want_halo)
            FAIL("block " << b << " (" << describe(width, size_t(mask), block) << ") loaded " << before
                          << " elements of N before its barrier (expected " << want_tile
                          << ": its tile's elements inside N) and " << after << " after it (expected " << want_halo
                          << ": its halo cells inside N)\n"
                          << block_hint(b, before, want_tile, after, want_halo));
#endif
        }
      }
    }
  }
  advise_idle_loads(idle_total, false);
}

#if defined(HALO_BACKEND_CPU)  // per-thread counts and what the instrumentation saw: the CPU backend
TEST_CASE("7.5 cached-1d / loads / each thread with an output loads its own element and its halo neighbours") {
  Rng rng(12);
  uint64_t idle_total = 0;
  for (unsigned block : {32u, 128u}) {
    for (size_t width : {size_t(block) + 3, size_t(1000)}) {
      for (int mask : {3, 15}) {
        const Result r = run(rng.signal(width), rng.mask(size_t(mask)), block, true);
        HALO_REQUIRE_VERDICT(r.launch);
        const auto& rec = halo::cpu::last_launch();
        const auto* N = rec.array("N");
        const auto* P = rec.array("P");
        REQUIRE(N != nullptr);
        REQUIRE(P != nullptr);
        const std::string launch = " (" + describe(width, size_t(mask), block) + ")";
        Verdict v;  // the first thread that loads N wrongly, the first that stores P wrongly, reads of P
        idle_total += idle_loads(width);  // threads with no output: advice, not a failure
        for (size_t t = 0; t < width && v.ok; ++t) {
          const auto want =
              uint32_t(data::cached_1d_loads_thread(double(t), double(width), double(block), double(mask)));
          if (N->thread_loads[t] != want)
            v.fail("thread " + std::to_string(t) + launch + " loaded " + std::to_string(N->thread_loads[t]) +
                   " elements of N; it should load exactly " + std::to_string(want) +
                   ": its own element N[" + std::to_string(t) +
                   "] once, into N_ds, and its neighbours outside its tile but inside N");
        }
        for (size_t t = 0; t < P->thread_stores.size(); ++t)
          if (P->thread_stores[t] != (t < width ? 1u : 0u)) {
            v.fail("thread " + std::to_string(t) + launch + " stored " + std::to_string(P->thread_stores[t]) +
                   " elements of P; each thread with an output stores exactly its own, once");
            break;
          }
        if (P->load_elements() != 0)
          v.fail("the kernel read P " + std::to_string(P->load_elements()) + " times" + launch +
                 "; accumulate in a register instead");
        HALO_REQUIRE_VERDICT(v);
      }
    }
  }
  advise_idle_loads(idle_total, false);
}

TEST_CASE("7.5 cached-1d / diagnostics / no out-of-bounds access or write to an input") {
  // Judges only what the instrumentation saw, at the sizes where guards matter most.
  Rng rng(13);
  for (unsigned block : kBlocks)
    for (size_t width : {size_t(1), size_t(block - 1), size_t(block + 1), 3 * size_t(block) + 2})
      for (int mask : kMaskWidths) HALO_REQUIRE_VERDICT(run(rng.signal(width), rng.mask(size_t(mask)), block).launch);
}

TEST_CASE("7.5 cached-1d / diagnostics / the result does not depend on the order of the threads") {
  Rng rng(312);
  const auto N = rng.signal(3 * 128 + 7), M = rng.mask(9);
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, M, 128); }));
}
#endif

TEST_SUITE_END();
