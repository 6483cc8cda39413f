// Section 7.3, the mask in constant memory: the student's copy_mask_to_constant (accepts what
// fits in M, refuses what does not, copies every byte of the mask) and the kernel that reads M
// from constant memory: correct on the book's examples and awkward sizes, the same global loads
// of N as the basic kernel (exact), no global loads of the mask at all, and one constant-memory
// read of M per product that is not with a ghost cell.
#include <cstring>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr unsigned kBlock = 256;  // the grader's launch: one thread per output, 256 per block
const int kMaxMaskWidth = int(data::defines::MAX_MASK_WIDTH);
const int kMaskWidths[] = {1, 3, 5, 7, 9, 11, 13, 15};

std::string describe(size_t width, size_t mask, unsigned block) {
  return "Width = " + std::to_string(width) + ", Mask_Width = " + std::to_string(mask) + ", " + std::to_string(block) +
         " threads per block";
}

std::string copy_call(int mask_width) {
  return "copy_mask_to_constant(h_M, Mask_Width = " + std::to_string(mask_width) + ")";
}

// Fills every byte of M with `byte` before a copy, so that what a copy leaves out reads as 0 (or
// as a pattern no mask contains) rather than as an earlier test's mask, which could hide a copy
// that is too short. Only the CPU backend can reach M (in the worker, through the judge).
void clear_constant_mask(unsigned char byte) {
#if defined(HALO_BACKEND_CPU)
  halo::remote::write_constant("M", std::vector<uint8_t>(size_t(kMaxMaskWidth) * sizeof(float), byte));
#else
  (void)byte;
#endif
}

// The student's copy; a refused or failed copy fails the test, naming the call.
Verdict copy_mask(const std::vector<float>& mask, unsigned char fill = 0) {
  Verdict v;
  clear_constant_mask(fill);
  const cudaError_t err = copy_mask_to_constant(mask.data(), int(mask.size()));
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the error, as the runtime would report it again at the launch
    v.fail(copy_call(int(mask.size())) + " returned " + cudaGetErrorName(err) +
           ": the mask never reached constant memory, so the kernel was not launched (MAX_MASK_WIDTH = " +
           std::to_string(kMaxMaskWidth) + ")" +
           (int(mask.size()) == kMaxMaskWidth ? "; a mask of exactly MAX_MASK_WIDTH elements fits in M and must be accepted"
                                              : ""));
  }
  return v;
}

struct Result {
  std::vector<float> P;  // empty when the copy failed and nothing was launched
  Verdict launch;
};

Result run(const std::vector<float>& N, const std::vector<float>& mask, unsigned block = kBlock) {
  Result r{{}, copy_mask(mask)};
  if (!r.launch.ok) return r;
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", N.size());
  cudaError_t err = halo::launch(convolution_1D_const_kernel, dim3(halo::blocks_for(N.size(), block)), dim3(block),
                                 dN.get(), dP.get(), int(mask.size()), int(N.size()));
  r.P = dP.download();
  r.launch = judge_launch(err, describe(N.size(), mask.size(), block));
  return r;
}

// What P would be had the copy moved only the first `bytes` bytes of the mask into a cleared M.
Reference short_copy_reference(const std::vector<float>& N, const std::vector<float>& mask, size_t bytes,
                               const std::vector<float>* fit) {
  std::vector<float> partial(mask.size(), 0.0f);
  std::memcpy(partial.data(), mask.data(), bytes);
  return conv1d_reference(N, partial, fit);
}

// Made against the kernel's outputs `fit` (ReferenceMaker in compare.hpp).
std::vector<Misconception> misconceptions(const std::vector<float>& N, const std::vector<float>& mask,
                                          const std::vector<float>* fit) {
  std::vector<Misconception> out = conv1d_misconceptions(N, mask, fit);
  const size_t w = mask.size();
  out.push_back({"the result with only the first " + std::to_string(w) +
                     " bytes of the mask copied into M (Mask_Width bytes, not Mask_Width floats): the size given to "
                     "cudaMemcpyToSymbol counts bytes, Mask_Width * sizeof(float)",
                 short_copy_reference(N, mask, w, fit)});
  if (sizeof(float*) < w * sizeof(float))
    out.push_back({"the result with only the first " + std::to_string(sizeof(float*)) +
                       " bytes of the mask copied into M: sizeof(h_M) is the size of a pointer, not of the mask; "
                       "copy Mask_Width * sizeof(float) bytes",
                   short_copy_reference(N, mask, sizeof(float*), fit)});
  return out;
}

// Runs the kernel and checks it against the double-precision reference.
void check(const std::vector<float>& N, const std::vector<float>& mask) {
  INFO(describe(N.size(), mask.size(), kBlock));
  Result r = run(N, mask);
  Verdict v = r.launch;
  if (r.P.size() == N.size()) v.merge(compare_outputs("P", r.P, conv1d_reference(N, mask), [&](Fit fit) { return misconceptions(N, mask, fit); }));
  HALO_REQUIRE_VERDICT(v);
}

void check_random_widths(std::initializer_list<size_t> widths, uint64_t salt) {
  for_random_1d_inputs(widths, kMaskWidths, salt, [](const auto& N, const auto& M) { check(N, M); });
}

void check_book_example(const data::Example& ex) {
  const auto N = as_floats(ex.N), mask = as_floats(ex.M);
  require_book_values(ex, conv1d_reference(N, mask));
  check(N, mask);
}

}  // namespace

TEST_SUITE_BEGIN("7.3");

TEST_CASE("7.3 constant-memory / correct / the book's 3rd edition example") { check_book_example(data::examples::book_3rd_edition); }
TEST_CASE("7.3 constant-memory / correct / the book's 4th edition example") { check_book_example(data::examples::book_4th_edition); }
TEST_CASE("7.3 constant-memory / correct / exercise 2") { check_book_example(data::examples::exercise_2); }

TEST_CASE("7.3 constant-memory / correct / width 1: every neighbour is a ghost cell") { check_random_widths({1}, 1); }
TEST_CASE("7.3 constant-memory / correct / width smaller than the mask") {
  Rng rng(2);
  for (size_t width : {2, 4, 7})
    for (int mask : masks_wider_than(width, kMaskWidths)) check(rng.signal(width), rng.mask(size_t(mask)));
}
TEST_CASE("7.3 constant-memory / correct / width one less than the block") { check_random_widths({kBlock - 1}, 3); }
TEST_CASE("7.3 constant-memory / correct / width equal to the block") { check_random_widths({kBlock}, 4); }
TEST_CASE("7.3 constant-memory / correct / width one more than the block") { check_random_widths({kBlock + 1}, 5); }
TEST_CASE("7.3 constant-memory / correct / width 2^20") {
  Rng rng(6);
  check(rng.signal(kLargeWidth), rng.mask(5));
  check(rng.signal(kManyBlocksWidth), rng.mask(15));  // the widest mask: many blocks suffice
}

TEST_CASE("7.3 constant-memory / correct / a mask of MAX_MASK_WIDTH elements is accepted and used whole") {
  // M's full capacity: every element of M must arrive and be read (an even width is fine for the
  // kernel: n = Mask_Width / 2 as always).
  Rng rng(12);
  check(rng.signal(1000), rng.mask(size_t(kMaxMaskWidth)));
}

TEST_CASE("7.3 constant-memory / correct / copy_mask_to_constant refuses a mask that does not fit in M") {
  Rng rng(13);
  const std::vector<float> h_M = rng.mask(size_t(kMaxMaskWidth) + 1);  // room for the widest attempt
  Verdict v;
  for (int width : {kMaxMaskWidth + 1, 0, -1}) {
    const cudaError_t err = copy_mask_to_constant(h_M.data(), width);
    cudaGetLastError();  // a refused copy must not linger as the next launch's error
    if (err == cudaErrorInvalidValue) continue;
    const std::string why =
        width > kMaxMaskWidth
            ? "a mask wider than MAX_MASK_WIDTH = " + std::to_string(kMaxMaskWidth) +
                  " does not fit in M: refuse it before copying, do not copy part of it or copy past the end of M"
            : "a mask needs at least one element: refuse Mask_Width < 1 before copying";
    v.fail(copy_call(width) + " returned " + cudaGetErrorName(err) + "; it must return cudaErrorInvalidValue: " + why);
  }
  HALO_REQUIRE_VERDICT(v);
}

#if defined(HALO_BACKEND_CPU)  // M's contents and what the instrumentation saw come from the CPU backend

TEST_CASE("7.3 constant-memory / diagnostics / copy_mask_to_constant puts the whole mask in M") {
  Rng rng(14);
  // M is filled with the byte 0xA5 first: no mask value of the tests (multiples of 1/4 in [-2, 2])
  // has that byte, so leading bytes of M that equal the mask's were copied.
  const unsigned char fill = 0xA5;
  for (int width : {1, 3, 5, 15, kMaxMaskWidth}) {
    const std::vector<float> mask = rng.mask(size_t(width));
    HALO_REQUIRE_VERDICT(copy_mask(mask, fill));
    const size_t want = size_t(width) * sizeof(float);
    size_t arrived = 0;  // leading bytes of M that hold the mask
    const std::vector<uint8_t> got = halo::remote::read_constant("M");
    const auto* src = reinterpret_cast<const unsigned char*>(mask.data());
    while (arrived < want && arrived < got.size() && got[arrived] == src[arrived]) ++arrived;
    if (arrived == want) continue;
    if (arrived == 0)
      FAIL("after " << copy_call(width) << " returned cudaSuccess, nothing of the mask is in the __constant__ array "
                    "M (M[0] still holds what was there before the copy); copy the mask into M itself, "
                    "cudaMemcpyToSymbol(M, h_M, ...): M is what the kernel must read");
    FAIL("after " << copy_call(width) << ", only the first " << arrived << " of the mask's " << want
                  << " bytes are in M (M[" << arrived / sizeof(float) << "] onwards still hold what was there before "
                  << "the copy); the size given to cudaMemcpyToSymbol counts bytes, Mask_Width * sizeof(float)");
  }
}

TEST_CASE("7.3 constant-memory / diagnostics / no out-of-bounds access or write to an input") {
  // Judges only what the instrumentation saw, at the sizes where guards matter most.
  Rng rng(10);
  for (size_t width : {size_t(1), size_t(kBlock - 1), size_t(kBlock + 1), size_t(1000)})
    for (int mask : kMaskWidths) HALO_REQUIRE_VERDICT(run(rng.signal(width), rng.mask(size_t(mask))).launch);
}

TEST_CASE("7.3 constant-memory / diagnostics / the result does not depend on the order of the threads") {
  Rng rng(112);
  const auto N = rng.signal(3 * kBlock + 7), M = rng.mask(5);
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, M); }));
}

#endif

// Global loads from either backend (measured_launch.hpp); constant-memory reads only from the CPU's.

TEST_CASE("7.3 constant-memory / loads / N from global memory and M from constant memory at Width 2^20") {
  if (!load_counter_ready()) return;
  const auto& m = data::measurements::basic_1d_large;
  const size_t width = size_t(m.Width), mask_width = size_t(m.Mask_Width);
  const unsigned block = unsigned(m.blockDim);
  REQUIRE_MESSAGE(block == kBlock, "the measurement's block size must be the grader's launch");
  Rng rng(8);
  const auto N = rng.signal(width), mask = rng.mask(mask_width);
  Result r = run(N, mask, block);
  HALO_REQUIRE_VERDICT(r.launch);
  const Verdict output = compare_outputs("P", r.P, conv1d_reference(N, mask), [&](Fit fit) { return misconceptions(N, mask, fit); });

  const auto& rec = measured_launch();
  const auto* aN = rec.array("N");
  const auto* aP = rec.array("P");
  REQUIRE(aN != nullptr);
  REQUIRE(aP != nullptr);
  const size_t last = rec.block_count() - 1;
  // Every global load that is not of N or P: the mask, wherever a copy of it was put.
  std::string others;
  const uint64_t other_bytes = global_load_bytes_except(rec, {"N", "P"}, &others);
  const uint64_t P_loads = aP->load_elements();

  LoadReport report("7.3", describe(width, mask_width, block));
  report.add({"N", "internal block (block 1)", aN->block_load_elements(1),
              uint64_t(data::basic_1d_loads_internal_block(m.blockDim, m.Mask_Width))});
  report.add({"N", "first block (block 0)", aN->block_load_elements(0),
              uint64_t(data::basic_1d_loads_boundary_block(m.blockDim, m.Mask_Width))});
  report.add({"N", "last block", aN->block_load_elements(last),
              uint64_t(data::basic_1d_loads_boundary_block(m.blockDim, m.Mask_Width))});
  report.add({"N", "whole grid", aN->load_elements(), uint64_t(data::basic_1d_loads_total(m.Width, m.Mask_Width))});
  report.add({"M", "global (any copy): grid", other_bytes / sizeof(float), uint64_t(data::constant_1d_loads_M_global())});
  report.add({"P", "global reads: grid", P_loads, 0});
#if defined(HALO_BACKEND_CPU)  // a GPU's constant cache is not global memory: the tool does not see it
  using halo::cpu::Space;
  auto constant_reads = [&](size_t b) { return rec.block_space_loads[int(Space::constant)].at(b).bytes / sizeof(float); };
  report.add({"M", "constant reads: block 1", constant_reads(1),
              uint64_t(data::basic_1d_loads_internal_block(m.blockDim, m.Mask_Width))});
  report.add({"M", "constant reads: block 0", constant_reads(0),
              uint64_t(data::basic_1d_loads_boundary_block(m.blockDim, m.Mask_Width))});
  report.add({"M", "constant reads: last block", constant_reads(last),
              uint64_t(data::basic_1d_loads_boundary_block(m.blockDim, m.Mask_Width))});
  report.add({"M", "constant reads: grid", rec.space_loads[int(Space::constant)].bytes / sizeof(float),
              uint64_t(data::constant_1d_mask_reads_total(m.Width, m.Mask_Width))});
#endif
  report.set_output_correct(output.ok);
  report.publish();

  Verdict v = output;
  v.merge(report.verdict());
  if (other_bytes > 0)
    v.fail("M (or any mask copy) comes from global memory: the kernel loaded " + std::to_string(other_bytes / sizeof(float)) +
           " floats of " + others + ", an array the grader did not allocate, so a copy of the mask; read the "
           "__constant__ array M directly (M[j]), not through a pointer to global memory");
  if (P_loads > 0)
    v.fail("the kernel read P " + std::to_string(P_loads) + " times; accumulate in a register and store P[i] once");
  HALO_REQUIRE_VERDICT(v);
}

TEST_SUITE_END();
