// Section 7.4, the tiled 1D kernel with halo cells: correctness at awkward sizes and several
// block sizes, and its global loads of N against the chapter's formulas (at most: a block
// must not load more than its input tile). The loads at the reduction-ratio launches are saved
// (tagged) for the ratio questions, beside the basic kernel's from section 7.2.
#include <cmath>
#include <functional>
#include <set>
#include <string>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"
// Given code, compiled with the kernel file (halo/given/constant_mask_1d.cuh).

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr unsigned kTile = unsigned(data::defines::TILE_SIZE);  // the largest block the kernel must handle
const unsigned kBlocks[] = {32, 128, kTile};
const int kMaskWidths[] = {1, 3, 5, 9, 15};

std::string describe(size_t width, size_t mask, unsigned block) {
  return "Width = " + std::to_string(width) + ", Mask_Width = " + std::to_string(mask) + ", " + std::to_string(block) +
         " threads per block";
}

#if defined(HALO_BACKEND_CPU)
// Names the load of the tile that went outside N, from the first out-of-bounds read the
// instrumentation stopped: thread t of block b loads N[b*blockDim + t] (centre), one tile to the
// left (left halo) or one tile to the right (right halo).
std::string explain_out_of_bounds(size_t width, unsigned block) {
  const auto& rec = halo::cpu::last_launch();
  if (!rec.valid || rec.counts[int(halo::cpu::DiagnosticKind::out_of_bounds)] == 0) return "";
  const auto& d = rec.first[int(halo::cpu::DiagnosticKind::out_of_bounds)];
  const std::string prefix = "read of N[";
  if (d.what.rfind(prefix, 0) != 0) return "";
  const long k = std::stol(d.what.substr(prefix.size()));
  const long own = long(d.block.x) * long(block) + long(d.thread.x);
  const std::string who = "thread " + std::to_string(d.thread.x) + " of block " + std::to_string(d.block.x);
  const std::string w = std::to_string(width);
  if (k == own && k >= long(width))
    return "hint: " + who + " loaded its own centre cell N[" + std::to_string(k) + "], past the end of N (Width = " + w +
           "): the last tile is partial, and its centre cells past Width must be stored in N_ds as 0, not loaded";
  if (k == own + long(block) && k >= long(width))
    return "hint: " + who + " loaded the right halo cell N[" + std::to_string(k) + "], past the end of N (Width = " + w +
           "): right halo cells past Width are ghost cells, stored in N_ds as 0, not loaded";
  if (k == own - long(block) && k < 0)
    return "hint: " + who + " loaded the left halo cell N[" + std::to_string(k) +
           "]: block 0's left halo cells are ghost cells, stored in N_ds as 0, not loaded";
  return "";
}
#endif

struct Result {
  std::vector<float> P;
  Verdict launch;
};

Result run(const std::vector<float>& N, const std::vector<float>& M, unsigned block) {
  const std::string what = describe(N.size(), M.size(), block);
  Verdict copied;
  if (cudaError_t e = copy_mask_to_constant(M.data(), int(M.size())); e != cudaSuccess)
    copied.fail("copy_mask_to_constant with Mask_Width = " + std::to_string(M.size()) + " failed: " + cudaGetErrorName(e));
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", N.size());
  cudaError_t err = halo::launch(convolution_1D_tiled_kernel, dim3(halo::blocks_for(N.size(), block)), dim3(block),
                                 input_tile_bytes(dim3(block), int(M.size()) / 2), dN.get(), dP.get(), int(M.size()),
                                 int(N.size()));
  Verdict v = copied;
  v.merge(judge_launch(err, what));
#if defined(HALO_BACKEND_CPU)
  if (std::string hint = explain_out_of_bounds(N.size(), block); !hint.empty()) v.fail(hint);
#endif
  return {dP.download(), v};
}

// The mistakes of this section, as outputs they produce; added to the 1D ones of conv1d.hpp. Made
// against the kernel's outputs `fit` (ReferenceMaker in compare.hpp).
std::vector<Misconception> tiled_misconceptions(const std::vector<float>& N, const std::vector<float>& M,
                                                unsigned block, const std::vector<float>* fit) {
  auto out = conv1d_misconceptions(N, M, fit);
  const long width = long(N.size()), n = long(M.size()) / 2, bd = long(block);
  auto element = [&N, width](long g) { return g >= 0 && g < width ? double(N[size_t(g)]) : 0.0; };
  // The correct tile: N_ds[c] holds N[b*blockDim - n + c], 0 for ghost cells.
  auto tile_cell = [element, n, bd](long b, long c) { return element(b * bd - n + c); };
  if (n > 0 && width > bd) {
    out.push_back({"the result with the left halo N_ds[0..n-1] holding the first n elements of the previous tile "
                   "instead of its last n: the left halo comes from N[blockIdx.x*blockDim.x - n] onwards, loaded "
                   "by the last n threads of the block",
                   from_tile(N.size(), M, block, [element, tile_cell, n, bd](long b, long c) {
                     return c < n ? element((b - 1) * bd + c) : tile_cell(b, c);
                   }, {}, fit)});
  }
  if (n > 0 && width <= bd) {
    // One block, and no barrier: on the CPU each thread then runs to its end before the next
    // starts, so thread t finds only the cells stored by threads 0..t (fresh shared memory is 0).
    auto writer = [n, bd](long c) { return c < n ? bd - n + c : c < n + bd ? c - n : c - n - bd; };
    out.push_back({"what each thread computes when it reads N_ds before the threads after it have stored their "
                   "cells: __syncthreads() must separate filling the tile from computing with it",
                   from_tile(N.size(), M, block, tile_cell, [writer](long t, long c) { return writer(c) <= t; }, fit)});
  }
  return out;
}

// Wrong outputs only where a mask reaches into one halo: which cells of N_ds hold the wrong thing.
std::string halo_hint(const std::vector<float>& got, const Reference& want, size_t mask, unsigned block) {
  const BlockEdges e = wrong_at_block_edges(got, want, mask, block);
  const std::string n = std::to_string(mask / 2);
  if (!e.any) return "";
  if (e.left && !e.right)
    return "hint: only outputs within n = " + n + " of the left end of their block are wrong: they are the ones "
           "that read the left halo N_ds[0.." + n + " - 1], which must hold N[blockIdx.x * blockDim.x - n ..] (the "
           "last n elements of the previous tile, 0 for ghost cells)";
  if (e.right && !e.left)
    return "hint: only outputs within n = " + n + " of the right end of their block are wrong: they are the ones "
           "that read the right halo N_ds[n + blockDim.x ..], which must hold N[(blockIdx.x + 1) * blockDim.x ..] "
           "(the first n elements of the next tile, 0 for ghost cells); check that index and its guard for an off "
           "by one";
  return "hint: only outputs within n = " + n + " of an end of their block are wrong: the left and right halo "
         "cells of N_ds are loaded wrongly";
}

Verdict verdict_for(const std::vector<float>& N, const std::vector<float>& M, unsigned block) {
  Result r = run(N, M, block);
  Verdict v = r.launch;
  const Reference want = conv1d_reference(N, M);
  const Verdict cmp = compare_outputs("P", r.P, want, [&](Fit fit) { return tiled_misconceptions(N, M, block, fit); });
  v.merge(cmp);
  const std::string hint = cmp.ok || cmp.message.find("hint: ") != std::string::npos
                               ? ""
                               : halo_hint(r.P, want, M.size(), block);
  if (!hint.empty()) v.fail(hint);
  if (!cmp.ok) {
    const std::string index_hint = shared_index_hint(r.P, N, M, want, block);
    if (!index_hint.empty()) v.fail(index_hint);
  }
  return v;
}

// Runs the kernel and checks it against the double-precision reference.
void check(const std::vector<float>& N, const std::vector<float>& M, unsigned block) {
  INFO(describe(N.size(), M.size(), block));
  Verdict v = verdict_for(N, M, block);
  // Only where TILE_SIZE-wide blocks also meet at tile edges, so that halos are exercised too.
  if (!v.ok && block != kTile && N.size() > kTile && verdict_for(N, M, kTile).ok)
    v.fail("hint: the same inputs give the right P with " + std::to_string(kTile) + " threads per block (TILE_SIZE) "
           "but not with " + std::to_string(block) + ": index the tile with blockDim.x; TILE_SIZE only sizes N_ds");
  HALO_REQUIRE_VERDICT(v);
}

void check_random_widths(std::initializer_list<size_t> widths, uint64_t salt) {
  Rng rng(salt);
  for (unsigned block : kBlocks)
    for (size_t width : widths)
      for (int mask : kMaskWidths) check(rng.signal(width), rng.mask(size_t(mask)), block);
}

// Widths relative to each block size: block - 1, block, block + 1...
void check_block_relative(long offset, uint64_t salt) {
  Rng rng(salt);
  for (unsigned block : kBlocks)
    for (int mask : kMaskWidths) check(rng.signal(size_t(long(block) + offset)), rng.mask(size_t(mask)), block);
}

void check_book_example(const data::Example& ex) {
  const auto N = as_floats(ex.N), M = as_floats(ex.M);
  require_book_values(ex, conv1d_reference(N, M));
  for (unsigned block : kBlocks) check(N, M, block);
}

}  // namespace

TEST_SUITE_BEGIN("7.4");

TEST_CASE("7.4 tiled-1d / correct / the book's 3rd edition example") { check_book_example(data::examples::book_3rd_edition); }
TEST_CASE("7.4 tiled-1d / correct / the book's 4th edition example") { check_book_example(data::examples::book_4th_edition); }
TEST_CASE("7.4 tiled-1d / correct / exercise 2") { check_book_example(data::examples::exercise_2); }

TEST_CASE("7.4 tiled-1d / correct / width 1: both halos are ghost cells") { check_random_widths({1}, 1); }
TEST_CASE("7.4 tiled-1d / correct / width smaller than the mask") {
  Rng rng(2);
  for (unsigned block : kBlocks)
    for (size_t width : {2, 4, 7})
      for (int mask : masks_wider_than(width, kMaskWidths)) check(rng.signal(width), rng.mask(size_t(mask)), block);
}
TEST_CASE("7.4 tiled-1d / correct / width one less than the block") { check_block_relative(-1, 3); }
TEST_CASE("7.4 tiled-1d / correct / width equal to the block") { check_block_relative(0, 4); }
TEST_CASE("7.4 tiled-1d / correct / width one more than the block") { check_block_relative(1, 5); }
TEST_CASE("7.4 tiled-1d / correct / width not a multiple of the block") { check_random_widths({1000, 4099}, 6); }
TEST_CASE("7.4 tiled-1d / correct / last tile shorter than the halo") {
  // The second-to-last block's right halo is partly real, partly ghost cells.
  Rng rng(7);
  for (unsigned block : kBlocks)
    for (int mask : {9, 15}) check(rng.signal(3 * size_t(block) + 2), rng.mask(size_t(mask)), block);
}
TEST_CASE("7.4 tiled-1d / correct / width 2^20") {
  Rng rng(8);
  check(rng.signal(kLargeWidth), rng.mask(5), kTile);
  // The widest mask and the smallest block: many blocks suffice (random_inputs.hpp).
  check(rng.signal(kManyBlocksWidth), rng.mask(15), kTile);
  check(rng.signal(kManyBlocksWidth), rng.mask(7), 32);
}

// Load counts come from the CPU backend's instrumentation, or on a GPU from the load-counting
// tool (measured_launch.hpp).

namespace {

// Loads of N per block against tiled_1d_loads_block (all blocks are checked; the table shows
// the first two, the last two and any that load too much), and in total.
void check_loads_per_block(size_t width, size_t mask, unsigned block, uint64_t salt) {
  if (!load_counter_ready()) return;
  INFO(describe(width, mask, block));
  Rng rng(salt);
  const auto N = rng.signal(width), M = rng.mask(mask);
  Result r = run(N, M, block);
  Verdict v = r.launch;
  v.merge(compare_outputs("P", r.P, conv1d_reference(N, M), [&](Fit fit) { return tiled_misconceptions(N, M, block, fit); }));
  HALO_REQUIRE_VERDICT(v);
  const auto& rec = measured_launch();
  const auto* a = rec.array("N");
  REQUIRE(a != nullptr);
  const size_t blocks = rec.block_count();
  auto expected = [&](size_t b) {
    return uint64_t(data::tiled_1d_loads_block(double(b), double(width), double(block), double(mask)));
  };
  std::set<size_t> shown = {0, 1, blocks - 2, blocks - 1};
  uint64_t after_barrier = 0;  // only the CPU backend tells loads before and after the barrier apart
  for (size_t b = 0; b < blocks; ++b) {
    if (a->block_load_elements(b) > expected(b)) shown.insert(b);
#if defined(HALO_BACKEND_CPU)
    after_barrier += a->block_load_elements_after_barrier(b);
#endif
  }
  LoadReport report("7.4", describe(width, mask, block));
  for (size_t b : shown)
    if (b < blocks)
      report.add({"N", "block " + std::to_string(b) + (b + 1 == blocks ? " (last)" : ""), a->block_load_elements(b),
                  expected(b), Bound::at_most});
  report.add({"N", "whole grid", a->load_elements(),
              uint64_t(data::tiled_1d_loads_total(double(width), double(block), double(mask))), Bound::at_most});
  report.publish();
  Verdict loads = report.verdict();
  if (!loads.ok && after_barrier > 0)
    loads.fail("hint: " + std::to_string(after_barrier) + " of the loads of N came after __syncthreads(): once the "
               "tile is in shared memory, the sum reads N_ds, not N");
  HALO_REQUIRE_VERDICT(loads);
}

}  // namespace

TEST_CASE("7.4 tiled-1d / loads / N per block and in total at Width 2^20") {
  if (!load_counter_ready()) return;
  const auto& m = data::measurements::tiled_1d_large;
  const size_t width = size_t(m.Width), mask = size_t(m.Mask_Width);
  const unsigned block = unsigned(m.blockDim);
  REQUIRE_MESSAGE(block <= kTile, "the measurement's block size must fit the tile");
  Rng rng(9);
  const auto N = rng.signal(width), M = rng.mask(mask);
  Result r = run(N, M, block);
  // "At most" the formula means something only for a kernel that computed P: a kernel that
  // loads nothing would pass it.
  Verdict v = r.launch;
  v.merge(compare_outputs("P", r.P, conv1d_reference(N, M), [&](Fit fit) { return tiled_misconceptions(N, M, block, fit); }));
  HALO_REQUIRE_VERDICT(v);
  const auto& rec = measured_launch();
  const auto* a = rec.array("N");
  REQUIRE(a != nullptr);
  LoadReport report("7.4", describe(width, mask, block));
  report.add({"N", "internal block (block 1)", a->block_load_elements(1),
              uint64_t(data::tiled_1d_loads_internal_block(m.blockDim, m.Mask_Width)), Bound::at_most});
  report.add({"N", "first block (block 0)", a->block_load_elements(0),
              uint64_t(data::tiled_1d_loads_boundary_block(m.blockDim, m.Mask_Width)), Bound::at_most});
  report.add({"N", "last block", a->block_load_elements(rec.block_count() - 1),
              uint64_t(data::tiled_1d_loads_boundary_block(m.blockDim, m.Mask_Width)), Bound::at_most});
  report.add({"N", "whole grid", a->load_elements(), uint64_t(data::tiled_1d_loads_total(m.Width, m.blockDim, m.Mask_Width)),
              Bound::at_most});
  report.publish();
  HALO_REQUIRE_VERDICT(report.verdict());
}

TEST_CASE("7.4 tiled-1d / loads / N per block at widths not a multiple of the block") {
  check_loads_per_block(1000, 5, kTile, 10);
  check_loads_per_block(1000, 15, 32, 11);
  check_loads_per_block(300, 9, 128, 12);
  check_loads_per_block(3 * 32 + 3, 15, 32, 13);  // last tile shorter than the halo
}

// The tiled kernel's side of the reduction ratios; section 7.2's test saves the basic kernel's.
TEST_CASE("7.4 tiled-1d / loads / N per block at the reduction-ratio launches") {
  if (!load_counter_ready()) return;
  Rng rng(14);
  auto measure = [&](const std::string& name, const auto* m) {  // each measurement has its own type
    const auto N = rng.signal(size_t(m->Width)), M = rng.mask(size_t(m->Mask_Width));
    const unsigned block = unsigned(m->blockDim);
    Result r = run(N, M, block);
    Verdict v = r.launch;
    v.merge(compare_outputs("P", r.P, conv1d_reference(N, M), [&](Fit fit) { return tiled_misconceptions(N, M, block, fit); }));
    HALO_REQUIRE_VERDICT(v);
    const auto* a = measured_launch().array("N");
    REQUIRE(a != nullptr);
    HALO_REQUIRE_VERDICT(publish_ratio_launch(
        "7.4", describe(size_t(m->Width), size_t(m->Mask_Width), block), "tiled_1d", name, "N", Bound::at_most,
        a->block_load_elements(1), uint64_t(data::tiled_1d_loads_internal_block(m->blockDim, m->Mask_Width)),
        a->block_load_elements(0), uint64_t(data::tiled_1d_loads_boundary_block(m->blockDim, m->Mask_Width))));
  };
  measure("ratio_1d_b128", &data::measurements::ratio_1d_b128);
  measure("ratio_1d_b32", &data::measurements::ratio_1d_b32);
}

TEST_CASE("7.4 tiled-1d / loads / P is written once per output and never read") {
  if (!load_counter_ready()) return;
  Rng rng(15);
  const size_t width = 1000;
  Result r = run(rng.signal(width), rng.mask(5), 128);
  HALO_REQUIRE_VERDICT(r.launch);
  HALO_REQUIRE_VERDICT(stored_once_never_read("P", width, describe(width, 5, 128)));
}

#if defined(HALO_BACKEND_CPU)  // what the CPU backend's instrumentation saw
TEST_CASE("7.4 tiled-1d / diagnostics / no out-of-bounds access or write to an input") {
  // Judges only what the instrumentation saw, at the sizes where the tile's guards matter most.
  Rng rng(16);
  for (unsigned block : kBlocks)
    for (size_t width : {size_t(1), size_t(block - 1), size_t(block + 1), size_t(1000)})
      for (int mask : kMaskWidths) HALO_REQUIRE_VERDICT(run(rng.signal(width), rng.mask(size_t(mask)), block).launch);
}

TEST_CASE("7.4 tiled-1d / diagnostics / the result does not depend on the order of the threads") {
  Rng rng(212);
  const auto N = rng.signal(3 * 128 + 7), M = rng.mask(9);
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, M, 128); }));
}
#endif

TEST_SUITE_END();
