// Section 7.9, part 2: the convolution whose input tiles come by tensor copies on a persistent
// grid (convolution_2d_tensor_copies.cu). Correctness on random pitched images of awkward sizes
// for radii 1 to 4, with blocks that walk many tiles (their barriers pass through several phases)
// and with one block per tile; the launch configuration and its preconditions; and, on the CPU
// backend, the copy engine's rules (halo/given/tile_copy.cuh), the loads of N (exactly each
// tile's box inside the image: the copy engine reads nothing else) and P stored once.
// Tests of: convolution_2d_tensor_copies.cu
// (HaloSections.cmake reads that line: a known-wrong kernel of the other file skips these tests.)
#include <algorithm>
#include <string>
#include <vector>

#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;

int filter_dim(int r) { return 2 * r + 1; }
std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

struct Size {
  int width, height;
};

// What the launch configuration gave, and the tile it implies: the box is the tile with one
// float4 of halo left and right and r rows above and below.
struct Launch {
  dim3 grid{0, 0, 0}, block{0, 0, 0}, box{0, 0, 0};  // zero: a stub that sets nothing cannot launch
  int shared_bytes = 0;
  cudaError_t error = cudaSuccess;
  int tile_w() const { return int(box.x) - 8; }
  int tile_h(int r) const { return int(box.y) - 2 * r; }
};

std::string config_call(int width, int height, int pitch, int r, int max_blocks) {
  return "convolution_2D_tensor_copies_launch_config(width = " + std::to_string(width) + ", height = " +
         std::to_string(height) + ", pitch = " + std::to_string(pitch) + ", r = " + std::to_string(r) +
         ", max_blocks = " + std::to_string(max_blocks) + ")";
}

Launch student_launch(int width, int height, int pitch, int r, int max_blocks) {
  Launch l;
  l.error = convolution_2D_tensor_copies_launch_config(width, height, pitch, r, max_blocks, &l.grid, &l.block, &l.box,
                                                       &l.shared_bytes);
  return l;
}

long long tiles_of(const Launch& l, int width, int height, int r) {
  return (long long)((width + l.tile_w() - 1) / l.tile_w()) * ((height + l.tile_h(r) - 1) / l.tile_h(r));
}

// The configuration's promises, each checked: a box the copy engine takes, a strip of 4 columns
// x a whole number of rows per thread, room for at least two stages, a one-dimensional
// persistent grid of min(max_blocks, tiles) blocks.
Verdict launch_verdict(const Launch& l, int width, int height, int pitch, int r, int max_blocks) {
  Verdict v;
  const std::string call = config_call(width, height, pitch, r, max_blocks);
  if (l.error != cudaSuccess) {
    v.fail(call + " returned " + cudaGetErrorName(l.error) + " for an image the kernel can handle");
    return v;
  }
  const long long threads = (long long)l.block.x * l.block.y * l.block.z;
  if (l.block.z != 1 || threads < 32 || threads > 1024)
    v.fail(call + " gave block " + dims(l.block) + ": 32 to 1024 threads in x and y");
  if (int(l.box.x) != 4 * int(l.block.x) + 8 || l.box.z != 1)
    v.fail(call + " gave box " + dims(l.box) + " for block " + dims(l.block) +
           ": the box is the input tile, 4 block.x columns and one float4 of halo on each side");
  if (l.tile_h(r) < 1 || l.block.y == 0 || l.tile_h(r) % int(l.block.y) != 0 || int(l.box.y) > halo::kTensorBoxMax ||
      int(l.box.x) > halo::kTensorBoxMax)
    v.fail(call + " gave box " + dims(l.box) + " for block " + dims(l.block) +
           ": box.y is the tile's rows (a whole number per thread row) plus 2r, and a box side is at most " +
           std::to_string(halo::kTensorBoxMax));
  if (!v.ok) return v;
  const int stage = (int(l.box.x * l.box.y) * 4 + 127) / 128 * 128;
  if (l.shared_bytes < 2 * stage || l.shared_bytes > halo::kSharedBytesMax)
    v.fail(call + " asked for " + std::to_string(l.shared_bytes) + " bytes of shared memory: at least two stages of " +
           std::to_string(stage) + " bytes, at most " + std::to_string(halo::kSharedBytesMax) + " (a Hopper block's)");
  const long long want = std::min<long long>(max_blocks, tiles_of(l, width, height, r));
  if (l.grid.x != unsigned(want) || l.grid.y != 1 || l.grid.z != 1)
    v.fail(call + " gave grid " + dims(l.grid) + ", expected (" + std::to_string(want) +
           ",1,1): one block per tile, at most max_blocks of them");
  return v;
}

struct Result {
  std::vector<float> P;
  Launch launch_config;
  std::string what;
  Verdict launch;
  Verdict padding;
};

Result run(const std::vector<float>& N, int width, int height, const std::vector<float>& F, int r, int max_blocks) {
  auto dN = PitchedImage::input("N", N, width, height);
  auto dP = PitchedImage::output("P", width, height);
  const int pitch = dP.pitch_elements();
  REQUIRE(dN.pitch_elements() == pitch);
  require_ok(copy_tile_filter_to_constant(F.data(), r), "copy_tile_filter_to_constant");
  Result res;
  res.launch_config = student_launch(width, height, pitch, r, max_blocks);
  const Launch& l = res.launch_config;
  const std::string f = std::to_string(filter_dim(r));
  res.what = "convolution_2D_tensor_copies_kernel<" + std::to_string(r) + "> on a " + std::to_string(width) + " x " +
             std::to_string(height) + " image (width x height), pitch " + std::to_string(pitch) + ", " + f + " x " + f +
             " filter, at most " + std::to_string(max_blocks) + (max_blocks == 1 ? " block" : " blocks") + "; grid " + dims(l.grid) + ", block " +
             dims(l.block) + ", box " + dims(l.box) + " and " + std::to_string(l.shared_bytes) +
             " bytes of shared memory from convolution_2D_tensor_copies_launch_config";
  res.launch = launch_verdict(l, width, height, pitch, r, max_blocks);
  if (res.launch.ok) {
    halo::TensorMap map;
    require_ok(halo::make_tensor_map(dN.get(), width, height, pitch, int(l.box.x), int(l.box.y), &map),
               "halo::make_tensor_map with the box of the launch configuration");
    const auto kernel = convolution_2D_tensor_copies_kernel_for(r);
    REQUIRE_MESSAGE(bool(kernel), "convolution_2D_tensor_copies_kernel_for(r) gave no kernel");
    const cudaError_t err = halo::launch(kernel, l.grid, l.block, halo::DynamicShared{size_t(l.shared_bytes)}, map,
                                         dP.get(), width, height, pitch);
    res.launch = judge_launch(err, res.what);
  }
  res.padding = dP.padding_untouched();
  res.P = dP.download();
  return res;
}

Verdict judge_output(const Result& res, const std::vector<float>& N, int width, int height, const std::vector<float>& F,
                     int r) {
  const int m = filter_dim(r);
  const Reference want = conv2d_reference(N, width, height, F, m);
  return compare_outputs("P", res.P, want, [&](Fit fit) { return conv2d_misconceptions(N, width, height, F, m, fit); },
                         image_index("P", width));
}

void check(const std::vector<Size>& sizes, std::initializer_list<int> radii, std::initializer_list<int> max_blocks,
           uint64_t salt) {
  Rng rng(salt);
  for (const Size& s : sizes)
    for (int r : radii)
      for (int blocks : max_blocks) {
        const auto N = rng.signal(size_t(s.width) * size_t(s.height));
        const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
        const Result res = run(N, s.width, s.height, F, r, blocks);
        INFO(res.what);
        Verdict v = res.launch;
        if (v.ok) v.merge(judge_output(res, N, s.width, s.height, F, r));
        v.merge(res.padding);
        HALO_REQUIRE_VERDICT(v);
      }
}

constexpr int kMany = 1 << 20;  // more blocks than any test image has tiles: one tile each

}  // namespace

TEST_SUITE_BEGIN("7.9");

TEST_CASE("7.9 speed-of-light / correct / tensor copies: the launch configuration: block, box, shared memory, a persistent grid") {
  Verdict v;
  for (int r : {1, 2, 3, 4})
    for (const Size& s : {Size{1, 1}, Size{200, 90}, Size{1000, 700}})
      for (int blocks : {1, 5, kMany}) {
        const int pitch = (s.width + 3) / 4 * 4;
        v.merge(launch_verdict(student_launch(s.width, s.height, pitch, r, blocks), s.width, s.height, pitch, r, blocks));
      }
  struct Bad {
    int width, height, pitch, r, max_blocks;
    const char* why;
  };
  for (const Bad& b : {Bad{10, 10, 10, 2, 4, "a pitch that is not a multiple of 4 floats (the copy engine needs 16-byte rows)"},
                       Bad{10, 10, 8, 2, 4, "a pitch smaller than the width"},
                       Bad{16, 16, 16, 0, 4, "r = 0"},
                       Bad{16, 16, 16, 5, 4, "r = 5 (the halo is one float4 wide, and F_t holds 9 x 9)"},
                       Bad{16, 16, 16, 2, 0, "max_blocks = 0"}}) {
    dim3 grid, block, box;
    int shared = 0;
    const cudaError_t e = convolution_2D_tensor_copies_launch_config(b.width, b.height, b.pitch, b.r, b.max_blocks, &grid,
                                                                     &block, &box, &shared);
    if (e != cudaErrorInvalidValue)
      v.fail(config_call(b.width, b.height, b.pitch, b.r, b.max_blocks) + " returned " + cudaGetErrorName(e) +
             ", expected cudaErrorInvalidValue: " + b.why);
  }
  HALO_REQUIRE_VERDICT(v);
}

TEST_CASE("7.9 speed-of-light / correct / tensor copies: images smaller than the filter and than a tile") {
  check({{1, 1}, {2, 1}, {1, 3}, {5, 7}, {13, 11}}, {1, 2, 3, 4}, {1, kMany}, 201);
}
TEST_CASE("7.9 speed-of-light / correct / tensor copies: sizes not a multiple of 4 or of the tile, one block walking every tile") {
  // One block computes every tile: its barriers go through many phases, and each stage is refilled.
  check({{333, 222}, {130, 97}}, {1, 2, 3, 4}, {1}, 210);
}
TEST_CASE("7.9 speed-of-light / correct / tensor copies: a few blocks sharing the tiles unevenly, and one block per tile") {
  check({{3 * 128 + 5, 2 * 64 + 9}, {129, 65}, {1001, 3}, {3, 517}}, {1, 3, 4}, {3, 7, kMany}, 220);
}
TEST_CASE("7.9 speed-of-light / correct / tensor copies: a large image of 1024 x 1024 (2^20 pixels)") {
  check({{1024, 1024}}, {3}, {kMany}, 230);
}

// ---------------------------------------------------------------- diagnostics

TEST_CASE("7.9 speed-of-light / diagnostics / tensor copies: no out-of-bounds access, padding access or write to an input") {
  Rng rng(611);
  for (const Size& s : {Size{3, 7}, Size{130, 70}})
    for (int r : {1, 4}) {
      const Result res = run(rng.signal(size_t(s.width) * size_t(s.height)), s.width, s.height,
                             rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r))), r, 2);
      Verdict v = res.launch;
      v.merge(res.padding);
      HALO_REQUIRE_VERDICT(v);
    }
}

#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.9 speed-of-light / diagnostics / tensor copies: the result does not depend on the order of the threads") {
  Rng rng(622);
  const int width = 203, height = 71, r = 2;
  const auto N = rng.signal(size_t(width) * height), F = rng.mask(size_t(filter_dim(r)) * filter_dim(r));
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, width, height, F, r, 2); }));
}

// ---------------------------------------------------------------- loads
// Counted by the CPU backend only: on a GPU the load counter patches load instructions, and a
// tensor copy is none.

namespace {
// Pixels of [first, first + length) inside [0, size).
long long overlap(long long first, long long length, long long size) {
  return std::max(0LL, std::min(first + length, size) - std::max(first, 0LL));
}
}  // namespace

TEST_CASE("7.9 speed-of-light / loads / tensor copies: N is exactly each tile's box inside the image, and P is stored once per output") {
  Rng rng(711);
  for (int r : {1, 4})
    for (const Size& s : {Size{3 * 128 + 5, 2 * 64 + 9}, Size{96, 40}}) {
      const auto N = rng.signal(size_t(s.width) * size_t(s.height));
      const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
      const Result res = run(N, s.width, s.height, F, r, 3);
      INFO(res.what);
      Verdict v = res.launch;
      if (v.ok) v.merge(judge_output(res, N, s.width, s.height, F, r));
      HALO_REQUIRE_VERDICT(v);
      const Launch& l = res.launch_config;
      long long cols = 0, rows = 0;  // the boxes' pixels factor: columns of the tile columns x rows of the tile rows
      for (long long x0 = 0; x0 < s.width; x0 += l.tile_w()) cols += overlap(x0 - 4, l.box.x, s.width);
      for (long long y0 = 0; y0 < s.height; y0 += l.tile_h(r)) rows += overlap(y0 - r, l.box.y, s.height);
      const auto* n = measured_launch().array("N");
      REQUIRE(n != nullptr);
      LoadReport report("7.9", res.what);
      report.add({"N", "whole grid", n->load_elements(), uint64_t(cols * rows), Bound::exact});
      report.set_output_correct(true);
      Verdict loads = report.verdict();
      if (!loads.ok)
        loads.fail("hint: the copy engine reads exactly the part of each box inside the image; a different count means "
                   "a tile copied twice or not at all, or N read outside tensor copies");
      loads.merge(stored_once_never_read("P", uint64_t(s.width) * uint64_t(s.height), res.what));
      HALO_REQUIRE_VERDICT(loads);
    }
}
#endif

TEST_SUITE_END();
