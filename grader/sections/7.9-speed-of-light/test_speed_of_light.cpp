// Section 7.9, speed of light: the 2D convolution written for bandwidth (a shared tile loaded
// with 16-byte vectors, a 4-column strip of outputs per thread). Correctness on random pitched
// images of every awkward size (1 x 1, narrower than the filter, widths that are not a multiple
// of 4 or of the tile, one tile and one tile plus one, tall and thin, about 2^20 pixels) for
// radii 1 to 4; the launch configuration and its preconditions; and, on the CPU backend, the
// loads of N per block and in total against the vector-rounded input tile, P stored once per
// output, and the diagnostics (no padding access, no out-of-bounds access, order independence).
// Tests of: convolution_2d_speed_of_light.cu
// (HaloSections.cmake reads that line: a known-wrong kernel of the other file skips these tests.)
#include <string>
#include <vector>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr int kBlockX = data::defines::SOL_BLOCK_X;
constexpr int kBlockY = data::defines::SOL_BLOCK_Y;
constexpr int kRows = data::defines::SOL_ROWS_PER_THREAD;
const int kTileW = int(data::sol_tile_width(kBlockX));
const int kTileH = int(data::sol_tile_height(kBlockY, kRows));
const int kRadii[] = {1, 2, 3, 4};

struct Size {
  int width, height;
};

std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
bool same(dim3 a, dim3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
int filter_dim(int r) { return 2 * r + 1; }

std::string config_call(int width, int height, int pitch, int r) {
  return "convolution_2D_speed_of_light_launch_config(width = " + std::to_string(width) + ", height = " +
         std::to_string(height) + ", pitch = " + std::to_string(pitch) + ", r = " + std::to_string(r) + ")";
}

struct Config {
  dim3 grid{0, 0, 0}, block{0, 0, 0};  // zero: a stub that sets nothing cannot launch
  cudaError_t error = cudaSuccess;
};

Config student_config(int width, int height, int pitch, int r) {
  Config c;
  c.error = convolution_2D_speed_of_light_launch_config(width, height, pitch, r, &c.grid, &c.block);
  return c;
}

Config expected_config(int width, int height) {
  Config c;
  c.block = dim3(unsigned(kBlockX), unsigned(kBlockY), 1);
  c.grid = dim3(halo::blocks_for(unsigned(width), unsigned(kTileW)), halo::blocks_for(unsigned(height), unsigned(kTileH)), 1);
  return c;
}

Verdict config_verdict(int width, int height, int pitch, int r) {
  Verdict v;
  const Config got = student_config(width, height, pitch, r), want = expected_config(width, height);
  const std::string call = config_call(width, height, pitch, r);
  if (got.error != cudaSuccess) {
    v.fail(call + " returned " + cudaGetErrorName(got.error) + " for an image the kernel can handle");
    return v;
  }
  if (!same(got.block, want.block))
    v.fail(call + " gave block " + dims(got.block) + ", expected " + dims(want.block) +
           ": SOL_BLOCK_X x SOL_BLOCK_Y threads");
  if (!same(got.grid, want.grid))
    v.fail(call + " gave grid " + dims(got.grid) + ", expected " + dims(want.grid) +
           ": along x enough tiles of 4 SOL_BLOCK_X columns to cover the width, along y enough tiles of SOL_BLOCK_Y "
           "SOL_ROWS_PER_THREAD rows to cover the height, each rounded up");
  return v;
}

// ---------------------------------------------------------------- running the kernel

struct Result {
  std::vector<float> P;  // width x height pixels, padding dropped
  int pitch = 0;
  Config config;
  std::string what;
  Verdict launch;   // the configuration, the launch and the instrumentation's diagnostics
  Verdict padding;  // P's padding still holds the poison
};

std::string describe(int width, int height, int pitch, int r, const Config& c) {
  const std::string f = std::to_string(filter_dim(r));
  return "convolution_2D_speed_of_light_kernel<" + std::to_string(r) + "> on a " + std::to_string(width) + " x " +
         std::to_string(height) + " image (width x height), pitch " + std::to_string(pitch) + ", " + f + " x " + f +
         " filter; grid " + dims(c.grid) + " and block " + dims(c.block) +
         " from convolution_2D_speed_of_light_launch_config";
}

Result run(const std::vector<float>& N, int width, int height, const std::vector<float>& F, int r) {
  auto dN = PitchedImage::input("N", N, width, height);
  auto dP = PitchedImage::output("P", width, height);
  Result res;
  res.pitch = dP.pitch_elements();
  REQUIRE(dN.pitch_elements() == res.pitch);  // one pitch for both images, as the kernel takes one
  require_ok(copy_filter_to_constant(F.data(), r), "copy_filter_to_constant");
  res.config = student_config(width, height, res.pitch, r);
  res.what = describe(width, height, res.pitch, r, res.config);
  if (res.config.error != cudaSuccess) {
    res.launch.fail(config_call(width, height, res.pitch, r) + " returned " + cudaGetErrorName(res.config.error) +
                    ": nothing was launched");
  } else {
    const auto kernel = convolution_2D_speed_of_light_kernel_for(r);
    REQUIRE_MESSAGE(bool(kernel), "convolution_2D_speed_of_light_kernel_for(r) gave no kernel");
    const float* in = dN.get();
    const cudaError_t err =
        halo::launch(kernel, res.config.grid, res.config.block, in, dP.get(), width, height, res.pitch);
    res.launch = judge_launch(err, res.what);
  }
  res.padding = dP.padding_untouched();
  res.P = dP.download();
  return res;
}

// ---------------------------------------------------------------- explaining wrong outputs

// The last vector of a row holds 1 to 3 pixels when the width is not a multiple of 4. When
// every wrong output sits in those columns, the partial vector was mishandled.
Verdict partial_vector_hint(const std::vector<float>& got, const Reference& want, int width, int height, int r) {
  Verdict v;
  if (width % 4 == 0 || width < 4) return v;  // narrower: every column is in the partial vector, nothing to tell apart
  const int last4 = width / 4 * 4;  // first column of the partial vector
  size_t wrong = 0;
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      const size_t i = size_t(row) * width + col;
      if (!is_poison(got[i]) && close_enough(got[i], want.value[i], want.magnitude[i])) continue;
      if (col < last4 - r) return v;  // a wrong output that the partial vector does not explain
      ++wrong;
    }
  if (wrong > 0)
    v.fail("hint: every wrong output lies within r columns of the last, partial vector of its row (columns " +
           std::to_string(last4) + " .. " + std::to_string(width - 1) +
           "): when width is not a multiple of 4, load_vector must load the pixels before width one at a time "
           "(and give 0 for the rest), and store_vector must store only those.");
  return v;
}

Verdict judge_output(const Result& res, const std::vector<float>& N, int width, int height,
                     const std::vector<float>& F, int r) {
  const int m = filter_dim(r);
  const Reference want = conv2d_reference(N, width, height, F, m);
  Verdict v = compare_outputs("P", res.P, want, [&](Fit fit) { return conv2d_misconceptions(N, width, height, F, m, fit); },
                              image_index("P", width));
  if (!v.ok) v.merge(partial_vector_hint(res.P, want, width, height, r));
  return v;
}

void check(const std::vector<Size>& sizes, std::initializer_list<int> radii, uint64_t salt) {
  Rng rng(salt);
  for (const Size& s : sizes)
    for (int r : radii) {
      const auto N = rng.signal(size_t(s.width) * size_t(s.height));
      const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
      const Result res = run(N, s.width, s.height, F, r);
      INFO(res.what);
      Verdict v = res.launch;
      if (v.ok) v.merge(judge_output(res, N, s.width, s.height, F, r));
      v.merge(res.padding);
      HALO_REQUIRE_VERDICT(v);
    }
}

}  // namespace

TEST_SUITE_BEGIN("7.9");

// ---------------------------------------------------------------- correct

TEST_CASE("7.9 speed-of-light / correct / the launch configuration: blocks, a grid covering the image, and its preconditions") {
  Verdict v;
  for (const Size& s : {Size{1, 1}, Size{kTileW, kTileH}, Size{kTileW + 1, kTileH + 1}, Size{1000, 700}})
    v.merge(config_verdict(s.width, s.height, (s.width + 3) / 4 * 4, 2));
  // What the kernel cannot do must be refused, not launched.
  struct Bad {
    int width, height, pitch, r;
    const char* why;
  };
  for (const Bad& b : {Bad{10, 10, 10, 2, "a pitch that is not a multiple of 4 floats (rows would not be 16-byte aligned)"},
                       Bad{10, 10, 8, 2, "a pitch smaller than the width"},
                       Bad{16, 16, 16, 0, "r = 0"},
                       Bad{16, 16, 16, 5, "r = 5 (the halo is one float4 wide, and F_c holds 9 x 9)"}}) {
    dim3 grid, block;
    const cudaError_t e = convolution_2D_speed_of_light_launch_config(b.width, b.height, b.pitch, b.r, &grid, &block);
    if (e != cudaErrorInvalidValue)
      v.fail(config_call(b.width, b.height, b.pitch, b.r) + " returned " + cudaGetErrorName(e) +
             ", expected cudaErrorInvalidValue: " + b.why);
  }
  HALO_REQUIRE_VERDICT(v);
}

TEST_CASE("7.9 speed-of-light / correct / a 1 x 1 image and images smaller than the filter") {
  check({{1, 1}, {2, 1}, {1, 3}, {3, 2}, {5, 7}, {8, 3}}, {1, 2, 3, 4}, 101);
}
TEST_CASE("7.9 speed-of-light / correct / widths that are not a multiple of 4: the last, partial vector") {
  check({{5, 6}, {6, 9}, {7, 4}, {13, 11}, {kTileW + 3, 17}, {2 * kTileW - 1, 9}}, {1, 2, 3, 4}, 110);
}
TEST_CASE("7.9 speed-of-light / correct / one tile, one tile minus one and one tile plus one") {
  check({{kTileW, kTileH}, {kTileW - 1, kTileH - 1}, {kTileW + 1, kTileH}, {kTileW, kTileH + 1}, {kTileW + 1, kTileH + 1}},
        {1, 2, 3, 4}, 120);
}
TEST_CASE("7.9 speed-of-light / correct / tall and thin, wide and flat images") {
  check({{1, 300}, {3, 517}, {4, 2 * kTileH + 5}, {1001, 2}, {3 * kTileW + 2, 1}}, {1, 4}, 130);
}
TEST_CASE("7.9 speed-of-light / correct / sizes that are not a multiple of the tile") {
  check({{3 * kTileW - 7, 2 * kTileH + 9}, {333, 222}}, {1, 2, 3, 4}, 140);
}
TEST_CASE("7.9 speed-of-light / correct / a large image of 1024 x 1024 (2^20 pixels)") { check({{1024, 1024}}, {2}, 150); }

// ---------------------------------------------------------------- diagnostics

TEST_CASE("7.9 speed-of-light / diagnostics / no out-of-bounds access, padding access or write to an input") {
  Rng rng(601);
  for (const Size& s : {Size{1, 1}, Size{3, 7}, Size{kTileW + 1, kTileH - 1}, Size{kTileW + 6, 2 * kTileH + 3}})
    for (int r : kRadii) {
      const Result res = run(rng.signal(size_t(s.width) * size_t(s.height)), s.width, s.height,
                             rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r))), r);
      Verdict v;
#if defined(HALO_BACKEND_CPU)  // the CPU backend stops each access to the padding and says where
      const auto& rec = halo::cpu::last_launch();
      const uint64_t count = rec.counts[int(halo::cpu::DiagnosticKind::pitch_padding)];
      if (rec.valid && count)
        v.fail("launch of " + res.what + ":\naccess to pitch padding: " +
               rec.first[int(halo::cpu::DiagnosticKind::pitch_padding)].full() + "\n    (" + std::to_string(count) +
               " accesses to the padding in this launch)");
#endif
      v.merge(res.launch);
      v.merge(res.padding);
      HALO_REQUIRE_VERDICT(v);
    }
}

#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.9 speed-of-light / diagnostics / the result does not depend on the order of the threads") {
  Rng rng(612);
  const int width = 2 * kTileW - 3, height = kTileH + 7, r = 2;
  const auto N = rng.signal(size_t(width) * height), F = rng.mask(size_t(filter_dim(r)) * filter_dim(r));
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, width, height, F, r); }));
}
#endif

// ---------------------------------------------------------------- loads
// Counted by the CPU backend's instrumentation, or on a GPU by the load-counting tool
// (measured_launch.hpp); access widths and the barrier split only by the CPU backend.

namespace {

// Linear id of block (x, y) of a launch on an image `width` pixels wide: x varies fastest.
size_t block_id(int width, unsigned x, unsigned y) {
  return size_t(y) * halo::blocks_for(unsigned(width), unsigned(kTileW)) + x;
}

const ArrayCounts& array_of(const char* name) {
  const auto* a = measured_launch().array(name);
  REQUIRE(a != nullptr);
  return *a;
}

// Runs the kernel, requiring a clean launch and a right P; the counts stay in measured_launch().
std::string measure(int width, int height, int r, Rng& rng) {
  const auto N = rng.signal(size_t(width) * size_t(height));
  const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
  const Result res = run(N, width, height, F, r);
  Verdict v = res.launch;
  if (v.ok) v.merge(judge_output(res, N, width, height, F, r));
  if (!v.ok) FAIL("the load counts are only meaningful for a kernel whose output is right\n" << failure_text(v));
  return res.what;
}

// Loads beyond the tile: the usual reason.
Verdict tile_hint(uint64_t measured, uint64_t expected) {
  Verdict v;
  if (measured > expected)
    v.fail("hint: the block loaded " + std::to_string(measured - expected) +
           " more elements of N than its input tile holds: load every vector of the tile once (thread t loads "
           "vectors t, t + THREADS, ...) and read the neighbours from N_s, never from N, after the barrier.");
  return v;
}

}  // namespace

TEST_CASE("7.9 speed-of-light / loads / N per block and in total against the input tile, for radii 1 to 4") {
  if (!load_counter_ready()) return;
  const auto& ms = data::measurements::sol_loads_large;
  // Block (1,1) is internal only on an image of at least 3 x 3 tiles: on a smaller one its "at most
  // the input tile" bound would hold for any kernel. The measurement is typed in questions.toml,
  // the tile follows the defines: a change to either must keep this true.
  const bool block_1_1_internal = int(ms.width) >= 3 * kTileW && int(ms.height) >= 3 * kTileH;
  REQUIRE_MESSAGE(block_1_1_internal, "measurement sol_loads_large is smaller than 3 x 3 tiles of the SOL_* block shape");
  Rng rng(701);
  for (int r : kRadii) {
    const bool headline = r == int(data::radius(ms.Mask_Width));
    const int width = int(ms.width), height = int(ms.height);
    const std::string what = measure(width, height, r, rng);
    const auto& a = array_of("N");
    const size_t internal = block_id(width, 1, 1);
    const auto tile = uint64_t(data::sol_loads_internal_block(kBlockX, kBlockY, kRows, r));
    LoadReport report("7.9", what);
    report.add({"N", "internal block (1,1)", a.block_load_elements(internal), tile, Bound::at_most});
    report.add({"N", "first block (0,0)", a.block_load_elements(0),
                uint64_t(data::sol_loads_first_block(kBlockX, kBlockY, kRows, r)), Bound::at_most});
    report.add({"N", "whole grid", a.load_elements(),
                uint64_t(data::sol_loads_total(width, height, kBlockX, kBlockY, kRows, r)), Bound::at_most});
#if defined(HALO_BACKEND_CPU)
    report.add({"N", "after the barrier, (1,1)", a.block_load_elements_after_barrier(internal), 0});
#endif
    report.set_output_correct(true);
    if (headline) report.publish();
    Verdict v = report.verdict();
    if (!v.ok) v.merge(tile_hint(a.block_load_elements(internal), tile));
    HALO_REQUIRE_VERDICT(v);
  }
}

#if defined(HALO_BACKEND_CPU)  // the tool on a GPU counts bytes, not accesses
TEST_CASE("7.9 speed-of-light / loads / 16-byte accesses: N is read and P written in whole vectors where they fit") {
  // The whole point of the section: a kernel that loads one float at a time moves the same
  // elements in four times the accesses. Every access but those of partial vectors is 16 bytes.
  Rng rng(702);
  const auto& ms = data::measurements::sol_loads_large;
  const int width = int(ms.width), height = int(ms.height), r = int(data::radius(ms.Mask_Width));
  const std::string what = measure(width, height, r, rng);
  const auto& n = array_of("N");
  const auto& p = array_of("P");
  Verdict v;
  // bytes / accesses = 16 when every access is a float4.
  if (n.loads.accesses == 0 || n.loads.bytes != 16 * n.loads.accesses)
    v.fail("N was read in " + std::to_string(n.loads.accesses) + " accesses of " + std::to_string(n.loads.bytes) +
           " bytes in all: with a width that is a multiple of 4, every load of N should be one 16-byte float4 "
           "(reinterpret_cast<const float4*>)\n  " + what);
  if (p.stores.accesses == 0 || p.stores.bytes != 16 * p.stores.accesses)
    v.fail("P was written in " + std::to_string(p.stores.accesses) + " accesses of " + std::to_string(p.stores.bytes) +
           " bytes in all: every store of P should be one 16-byte float4\n  " + what);
  HALO_REQUIRE_VERDICT(v);
}
#endif

TEST_CASE("7.9 speed-of-light / loads / P is written once per output and never read") {
  if (!load_counter_ready()) return;
  Rng rng(703);
  for (const Size& s : {Size{kTileW + 6, kTileH + 3}, Size{5, 3}}) {
    const std::string what = measure(s.width, s.height, 3, rng);
    HALO_REQUIRE_VERDICT(stored_once_never_read("P", uint64_t(s.width) * uint64_t(s.height), what));
  }
}

TEST_SUITE_END();
