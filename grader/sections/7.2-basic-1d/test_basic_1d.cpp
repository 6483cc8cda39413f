// Section 7.2, the basic 1D convolution kernel: correctness on the book's examples and on
// random inputs of awkward sizes, and its global loads against the chapter's formulas (exact:
// the basic kernel's count is fixed by its definition).
#include <cmath>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr unsigned kBlock = 256;  // the grader's launch: one thread per output, 256 per block
const int kMaskWidths[] = {1, 3, 5, 9, 15};

std::string describe(size_t width, size_t mask, unsigned block) {
  return "Width = " + std::to_string(width) + ", Mask_Width = " + std::to_string(mask) + ", " + std::to_string(block) +
         " threads per block";
}

struct Result {
  std::vector<float> P;
  Verdict launch;
};

Result run(const std::vector<float>& N, const std::vector<float>& M, unsigned block = kBlock) {
  auto dN = DeviceArray<float>::input("N", N);
  auto dM = DeviceArray<float>::input("M", M);
  auto dP = DeviceArray<float>::output("P", N.size());
  cudaError_t err = halo::launch(convolution_1D_basic_kernel, dim3(halo::blocks_for(N.size(), block)), dim3(block),
                                 dN.get(), dM.get(), dP.get(), int(M.size()), int(N.size()));
  return {dP.download(), judge_launch(err, describe(N.size(), M.size(), block))};
}

// Runs the kernel and checks it against the double-precision reference.
void check(const std::vector<float>& N, const std::vector<float>& M) {
  INFO(describe(N.size(), M.size(), kBlock));
  Result r = run(N, M);
  Verdict v = r.launch;
  v.merge(compare_outputs("P", r.P, conv1d_reference(N, M), [&](Fit fit) { return conv1d_misconceptions(N, M, fit); }));
  HALO_REQUIRE_VERDICT(v);
}

void check_random_widths(std::initializer_list<size_t> widths, uint64_t salt) {
  for_random_1d_inputs(widths, kMaskWidths, salt, [](const auto& N, const auto& M) { check(N, M); });
}

void check_widths_below_the_mask(std::initializer_list<size_t> widths, uint64_t salt) {
  Rng rng(salt);
  for (size_t width : widths)
    for (int mask : masks_wider_than(width, kMaskWidths)) check(rng.signal(width), rng.mask(size_t(mask)));
}

void check_book_example(const data::Example& ex) {
  const auto N = as_floats(ex.N), M = as_floats(ex.M);
  require_book_values(ex, conv1d_reference(N, M));
  check(N, M);
}

}  // namespace

TEST_SUITE_BEGIN("7.2");

TEST_CASE("7.2 basic-1d / correct / the book's 3rd edition example") { check_book_example(data::examples::book_3rd_edition); }
TEST_CASE("7.2 basic-1d / correct / the book's 4th edition example") { check_book_example(data::examples::book_4th_edition); }
TEST_CASE("7.2 basic-1d / correct / exercise 2") { check_book_example(data::examples::exercise_2); }

TEST_CASE("7.2 basic-1d / correct / width 1: every neighbour is a ghost cell") { check_random_widths({1}, 1); }
TEST_CASE("7.2 basic-1d / correct / width smaller than the mask") { check_widths_below_the_mask({2, 4, 7}, 2); }
TEST_CASE("7.2 basic-1d / correct / width one less than the block") { check_random_widths({kBlock - 1}, 3); }
TEST_CASE("7.2 basic-1d / correct / width equal to the block") { check_random_widths({kBlock}, 4); }
TEST_CASE("7.2 basic-1d / correct / width one more than the block") { check_random_widths({kBlock + 1}, 5); }
TEST_CASE("7.2 basic-1d / correct / width 2^20") {
  Rng rng(6);
  check(rng.signal(kLargeWidth), rng.mask(5));
  check(rng.signal(kManyBlocksWidth), rng.mask(15));  // the widest mask: many blocks suffice
}

// Load counts come from the CPU backend's instrumentation, or on a GPU from the load-counting
// tool (measured_launch.hpp); per-thread counts only from the CPU backend.
#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.2 basic-1d / loads / each thread with an output loads exactly its non-ghost neighbours") {
  Rng rng(7);
  uint64_t idle_loads = 0;  // by threads with no output: more work than the book's kernel, not a mistake
  bool outputs_right = true;
  for (size_t width : {size_t(3), size_t(1000)}) {
    for (int mask : kMaskWidths) {
      const auto N = rng.signal(width), M = rng.mask(size_t(mask));
      halo::cpu::set_count_per_thread(true);
      Result r = run(N, M);
      halo::cpu::set_count_per_thread(false);
      HALO_REQUIRE_VERDICT(r.launch);
      const auto& rec = halo::cpu::last_launch();
      for (const char* array : {"N", "M"}) {
        const auto* a = rec.array(array);
        REQUIRE(a != nullptr);
        for (size_t i = 0; i < width; ++i) {
          const auto expected = uint32_t(data::basic_1d_loads_thread(double(i), double(width), double(mask)));
          if (a->thread_loads[i] != expected)
            FAIL((std::string("thread ") + std::to_string(i) + " (" + describe(width, size_t(mask), kBlock) +
                 ") loaded " + std::to_string(a->thread_loads[i]) + " elements of " + array +
                 "; it should load exactly " + std::to_string(expected) + ", the neighbours of P[" +
                 std::to_string(i) + "] that are not ghost cells"));
        }
        for (size_t t = width; t < a->thread_loads.size(); ++t) idle_loads += a->thread_loads[t];
      }
      outputs_right = outputs_right && compare_outputs("P", r.P, conv1d_reference(N, M)).ok;
      const auto* P = rec.array("P");
      for (size_t t = 0; t < P->thread_stores.size(); ++t)
        if (P->thread_stores[t] != (t < width ? 1u : 0u))
          FAIL((std::string("thread ") + std::to_string(t) + " (" + describe(width, size_t(mask), kBlock) + ") stored " +
               std::to_string(P->thread_stores[t]) + " elements of P; each thread with an output stores exactly its own, once"));
    }
  }
  if (idle_loads)
    advise("7.2", std::string(outputs_right ? "your outputs are right, but " : "") + "threads with no output (i >= Width) loaded " +
                      std::to_string(idle_loads) + " elements of N and M in this test's launches; the book's kernel "
                      "tests i < Width before its loop, so those threads load nothing");
}
#endif

TEST_CASE("7.2 basic-1d / loads / N and M per block and in total at Width 2^20") {
  if (!load_counter_ready()) return;
  const auto& m = data::measurements::basic_1d_large;
  const size_t width = size_t(m.Width), mask = size_t(m.Mask_Width);
  const unsigned block = unsigned(m.blockDim);
  REQUIRE_MESSAGE(block == kBlock, "the measurement's block size must be the grader's launch");
  Rng rng(8);
  Result r = run(rng.signal(width), rng.mask(mask), block);
  HALO_REQUIRE_VERDICT(r.launch);
  const auto& rec = measured_launch();
  LoadReport report("7.2", describe(width, mask, block));
  for (const char* array : {"N", "M"}) {
    const auto* a = rec.array(array);
    REQUIRE(a != nullptr);
    report.add({array, "internal block (block 1)", a->block_load_elements(1),
                uint64_t(data::basic_1d_loads_internal_block(m.blockDim, m.Mask_Width))});
    report.add({array, "first block (block 0)", a->block_load_elements(0),
                uint64_t(data::basic_1d_loads_boundary_block(m.blockDim, m.Mask_Width))});
    report.add({array, "last block", a->block_load_elements(rec.block_count() - 1),
                uint64_t(data::basic_1d_loads_boundary_block(m.blockDim, m.Mask_Width))});
    report.add({array, "whole grid", a->load_elements(), uint64_t(data::basic_1d_loads_total(m.Width, m.Mask_Width))});
  }
  report.publish();
  HALO_REQUIRE_VERDICT(report.verdict());
}

// The reduction-ratio launches of section 7.4: the basic kernel's side of the ratio, measured
// on this kernel and saved (tagged) for the 7.4 ratio answers.
TEST_CASE("7.2 basic-1d / loads / N per block at the reduction-ratio launches of 7.4") {
  if (!load_counter_ready()) return;
  Rng rng(11);
  auto measure = [&](const std::string& name, const auto* m) {  // each measurement has its own type
    const auto N = rng.signal(size_t(m->Width)), M = rng.mask(size_t(m->Mask_Width));
    Result r = run(N, M, unsigned(m->blockDim));
    Verdict v = r.launch;
    v.merge(compare_outputs("P", r.P, conv1d_reference(N, M), [&](Fit fit) { return conv1d_misconceptions(N, M, fit); }));
    HALO_REQUIRE_VERDICT(v);
    const auto* a = measured_launch().array("N");
    REQUIRE(a != nullptr);
    HALO_REQUIRE_VERDICT(publish_ratio_launch(
        "7.2", describe(size_t(m->Width), size_t(m->Mask_Width), unsigned(m->blockDim)), "basic_1d", name, "N", Bound::exact,
        a->block_load_elements(1), uint64_t(data::basic_1d_loads_internal_block(m->blockDim, m->Mask_Width)),
        a->block_load_elements(0), uint64_t(data::basic_1d_loads_boundary_block(m->blockDim, m->Mask_Width))));
  };
  measure("ratio_1d_b128", &data::measurements::ratio_1d_b128);
  measure("ratio_1d_b32", &data::measurements::ratio_1d_b32);
}

TEST_CASE("7.2 basic-1d / loads / P is written once per output and never read") {
  if (!load_counter_ready()) return;
  Rng rng(9);
  const size_t width = 1000;
  Result r = run(rng.signal(width), rng.mask(5));
  HALO_REQUIRE_VERDICT(r.launch);
  HALO_REQUIRE_VERDICT(stored_once_never_read("P", width, describe(width, 5, kBlock)));
}

#if defined(HALO_BACKEND_CPU)  // what the CPU backend's instrumentation saw
TEST_CASE("7.2 basic-1d / diagnostics / no out-of-bounds access or write to an input") {
  // Judges only what the instrumentation saw, at the sizes where guards matter most.
  Rng rng(10);
  for (size_t width : {size_t(1), size_t(kBlock - 1), size_t(kBlock + 1), size_t(1000)})
    for (int mask : kMaskWidths) HALO_REQUIRE_VERDICT(run(rng.signal(width), rng.mask(size_t(mask))).launch);
}

TEST_CASE("7.2 basic-1d / diagnostics / the result does not depend on the order of the threads") {
  Rng rng(12);
  const auto N = rng.signal(3 * kBlock + 7), M = rng.mask(5);
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, M); }));
}
#endif

TEST_SUITE_END();
