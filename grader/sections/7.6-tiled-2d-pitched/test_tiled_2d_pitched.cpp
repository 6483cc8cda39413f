// Section 7.6, tiled 2D convolution on a pitched image: correctness on images of awkward sizes
// (input and output are pitched, pitch > width, padding poisoned), the student's launch
// configuration, no access to the padding, and the global loads of N per block against the
// input tile (at most: ghost cells are set to 0, not loaded).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr int kT = data::defines::O_TILE_WIDTH;
const int kMaskWidths[] = {3, 5, 7, 9};

struct Size {
  int width, height;
};

std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
bool same(dim3 a, dim3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

// ---------------------------------------------------------------- the launch configuration

struct Config {
  dim3 grid{0, 0, 0}, block{0, 0, 0};  // zero: a stub that sets nothing cannot launch
};

Config student_config(int width, int height, int mask) {
  Config c;
  convolution_2D_tiled_launch_config(width, height, mask, &c.grid, &c.block);
  return c;
}

Config expected_config(int width, int height, int mask) {
  const auto side = unsigned(data::tiled_2d_block_width(kT, mask));
  Config c;
  c.grid = dim3(unsigned(data::tiled_2d_grid_blocks(width, kT)), unsigned(data::tiled_2d_grid_blocks(height, kT)), 1);
  c.block = dim3(side, side, 1);
  return c;
}

// The other design's block: one thread per output of the tile.
dim3 output_tile_block() { return dim3(unsigned(kT), unsigned(kT), 1); }

std::string config_call(int width, int height, int mask) {
  return "convolution_2D_tiled_launch_config(width = " + std::to_string(width) + ", height = " +
         std::to_string(height) + ", Mask_Width = " + std::to_string(mask) + ")";
}

bool is_zero(const Config& c) {
  return c.grid.x == 0 && c.grid.y == 0 && c.grid.z == 0 && c.block.x == 0 && c.block.y == 0 && c.block.z == 0;
}

// What is wrong with the student's configuration for one image, or ok.
Verdict config_verdict(int width, int height, int mask) {
  Verdict v;
  const Config got = student_config(width, height, mask), want = expected_config(width, height, mask);
  if (is_zero(got)) {
    v.fail(config_call(width, height, mask) +
           " left grid and block at zero: the launch configuration is still the stub, and nothing can launch");
    return v;
  }
  // The book's two designs: one thread per input-tile element, or one per output (each loading
  // several tile elements); the grid is one block per output tile in both.
  if (!same(got.block, want.block) && !same(got.block, output_tile_block()))
    v.fail(config_call(width, height, mask) + " gave block " + dims(got.block) + ", expected " + dims(want.block) +
           " (one thread per element of the input tile, BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1 threads per "
           "side) or " + dims(output_tile_block()) + " (one thread per output of the O_TILE_WIDTH x O_TILE_WIDTH "
           "tile, each loading several elements of the input tile)");
  if (!same(got.grid, want.grid))
    v.fail(config_call(width, height, mask) + " gave grid " + dims(got.grid) + ", expected " + dims(want.grid) +
           ": along x enough output tiles of O_TILE_WIDTH columns to cover the width, along y enough to cover the "
           "height, each rounded up");
  return v;
}

// ---------------------------------------------------------------- running the kernel

std::string describe(int width, int height, int pitch, int mask, const Config& c) {
  return "width = " + std::to_string(width) + ", height = " + std::to_string(height) +
         ", pitch = " + std::to_string(pitch) + ", Mask_Width = " + std::to_string(mask) + "; grid " + dims(c.grid) +
         " and block " + dims(c.block) + " from convolution_2D_tiled_launch_config";
}

// Why a configuration was refused with cudaErrorInvalidConfiguration.
std::string why_not_launched(const Config& c, int width, int height, int mask) {
  if (is_zero(c))
    return "the launch configuration is still the stub: " + config_call(width, height, mask) +
           " left grid and block at zero";
  const std::string given = config_call(width, height, mask) + " gave grid " + dims(c.grid) + " and block " +
                            dims(c.block) + ": ";
  if (c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0) return given + "a grid needs at least one block along x, y and z";
  if (c.block.x == 0 || c.block.y == 0 || c.block.z == 0)
    return given + "a block needs at least one thread along x, y and z";
  return given + "a block holds at most 1024 threads";
}

struct Result {
  std::vector<float> P;    // width x height pixels, padding dropped
  std::vector<float> raw;  // all pitch x height elements of P's memory, as the kernel left them
  int pitch = 0;
  Config config;
  std::string what;        // the launch, for messages
  bool launched = false;   // false when the configuration could not launch
  Verdict launch;          // the launch itself and the instrumentation's diagnostics
  Verdict padding;         // P's padding still holds the poison (the GPU's only way to see it)
};

Result run(const std::vector<float>& N, int width, int height, const std::vector<float>& M, int mask) {
  auto dN = PitchedImage::input("N", N, width, height);
  auto dP = PitchedImage::output("P", width, height);
  auto dM = DeviceArray<float>::input("M", M);
  Result r;
  r.pitch = dP.pitch_elements();
  REQUIRE(dN.pitch_elements() == r.pitch);  // one pitch for both images, as the kernel takes one
  r.config = student_config(width, height, mask);
  r.what = describe(width, height, r.pitch, mask, r.config);
  const float* in = dN.get();
  const float* mask_ptr = dM.get();
  const cudaError_t err = halo::launch(convolution_2D_tiled_kernel, r.config.grid, r.config.block,
                                       input_tile_bytes(r.config.block, mask / 2), in, dP.get(), height, width, r.pitch,
                                       mask, mask_ptr);
  r.launched = err != cudaErrorInvalidConfiguration;
  r.launch = judge_launch(err, r.what);
  if (!r.launched) r.launch.fail(why_not_launched(r.config, width, height, mask));
  r.padding = dP.padding_untouched();
  r.P = dP.download();
  r.raw.resize(size_t(r.pitch) * size_t(height));
  require_ok(cudaMemcpy(r.raw.data(), dP.get(), r.raw.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return r;
}

// ---------------------------------------------------------------- explaining wrong outputs

// The convolution with the input tile's corner moved by `shift` rows and columns: output
// (row, col) weighs N[row - n + shift + i][col - n + shift + j] with M[i][j], 0 outside. Made
// against the kernel's outputs `fit` (ReferenceMaker in compare.hpp).
Reference shifted_reference(const std::vector<float>& N, int width, int height, const std::vector<float>& M, int m,
                            int shift, const std::vector<float>* fit) {
  const int n = m / 2;
  ReferenceMaker out(N.size(), fit);
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      double sum = 0, magnitude = 0;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
          const int r = row - n + shift + i, c = col - n + shift + j;
          if (r < 0 || r >= height || c < 0 || c >= width) continue;
          const double term = double(N[size_t(r) * width + c]) * double(M[size_t(i) * m + j]);
          sum += term;
          magnitude += std::fabs(term);
        }
      if (!out.add(sum, magnitude)) return out.take();
    }
  return out.take();
}

// The shared 2D mistakes, and the two ways the book itself misplaces the input tile.
std::vector<Misconception> misconceptions(const std::vector<float>& N, int width, int height,
                                          const std::vector<float>& M, int m, const std::vector<float>* fit) {
  auto out = conv2d_misconceptions(N, width, height, M, m, fit);
  for (auto& t : transposed_tile(N, width, height, M, m, kT, fit)) out.push_back(std::move(t));
  out.push_back({"the result with the input tile shifted by one row and one column: its corner is at row_o - n + 1, "
                 "col_o - n + 1 (the book's Figure 7.19 writes row_o - Mask_Width/2 + 1); the input tile starts n = "
                 "Mask_Width/2 above and left of the output tile: row_i = row_o - n",
                 shifted_reference(N, width, height, M, m, 1, fit)});
  out.push_back({"the result with the input tile shifted by one row and one column: its corner is at row_o - n - 1, "
                 "col_o - n - 1 (the book's text subtracts Mask_Width/2 + 1); the input tile starts n = Mask_Width/2 "
                 "above and left of the output tile: row_i = row_o - n",
                 shifted_reference(N, width, height, M, m, -1, fit)});
  // On an image of one row or column some alternatives are all zeros, which any kernel that
  // writes only zeros matches: such a hint would explain nothing.
  std::vector<Misconception> telling;
  for (auto& c : out)
    if (std::any_of(c.reference.value.begin(), c.reference.value.end(), [](double x) { return x != 0; }))
      telling.push_back(std::move(c));
  return telling;
}

// P's memory holds output (row, col) at row * width + col: rows were placed width apart.
bool rows_placed_width_apart(const Result& r, const Reference& ref, int width, int height) {
  if (r.pitch <= width || height < 2) return false;
  size_t compared = 0;
  for (size_t k = size_t(width); k < size_t(width) * size_t(height); ++k) {
    if (k % size_t(r.pitch) >= size_t(width)) continue;  // padding: the CPU backend refuses writes there
    ++compared;
    if (is_poison(r.raw[k]) || !close_enough(r.raw[k], ref.value[k], ref.magnitude[k])) return false;
  }
  return compared > 0;
}

// Extra lines for a failed comparison: what the memory and the instrumentation say happened.
Verdict hints(const Result& r, const Reference& ref, int width, int height) {
  Verdict v;
  if (rows_placed_width_apart(r, ref, width, height))
    v.fail("hint: P's memory holds output (row, col) at element row * width + col, as if P were not pitched; rows "
           "of a pitched image start pitch elements apart (here width " + std::to_string(width) + ", pitch " +
           std::to_string(r.pitch) + "): index P with row_o * pitch + col_o");
#if defined(HALO_BACKEND_CPU)
  const auto& rec = halo::cpu::last_launch();
  uint64_t after_barrier = 0;
  for (const auto& a : rec.arrays)
    for (const auto& t : a.block_loads_phase[1]) after_barrier += t.bytes;
  // Output-tile blocks with a kernel that loads one element per thread: part of the tile is never loaded.
  if (rec.valid && same(r.config.block, output_tile_block()) &&
      rec.counts[int(halo::cpu::DiagnosticKind::uninitialised_shared_read)] > 0)
    v.fail("hint: convolution_2D_tiled_launch_config gives blocks of the output tile, " + dims(r.config.block) +
           " (the book's other design), but the kernel leaves part of the input tile unloaded: with that launch "
           "each thread must load several of its (O_TILE_WIDTH + Mask_Width - 1)^2 elements (a strided loop); a "
           "kernel that loads one element per thread needs blocks of the input tile, BLOCK_WIDTH x BLOCK_WIDTH");
  if (rec.valid && after_barrier == 0)
    v.fail("hint: no thread loaded anything from global memory after a __syncthreads(), so no thread waited for "
           "the tile before reading M and N_ds: without the barrier between filling N_ds and reading it, a thread "
           "reads elements of N_ds other threads have not loaded yet");
#endif
  v.merge(same_row_in_every_thread_hint(r.P, width, height, kT, kT));
  if (r.launched && same(r.config.grid, expected_config(width, height, 3).grid))
    v.merge(axes_swapped_hint(r.P, ref, width, height, r.config.grid, kT, kT));
  if (r.launched && !same(r.config.grid, expected_config(width, height, 3).grid))
    v.fail("hint: convolution_2D_tiled_launch_config gave grid " + dims(r.config.grid) +
           ": outputs outside the launched output tiles are never written (see the launch configuration test)");
  return v;
}

// Runs the kernel on random inputs and checks P against the double-precision reference.
void check(int width, int height, int mask, Rng& rng) {
  const auto N = rng.signal(size_t(width) * size_t(height));
  const auto M = rng.mask(size_t(mask) * size_t(mask));
  const Result r = run(N, width, height, M, mask);
  INFO(r.what);
  Verdict v = r.launch;
  if (r.launched) {
    v.merge(r.padding);
    const Reference ref = conv2d_reference(N, width, height, M, mask);
    if (!compare_outputs("P", r.P, ref).ok) {  // the alternatives cost time: only for a failure
      v.merge(compare_outputs("P", r.P, ref, [&](Fit fit) { return misconceptions(N, width, height, M, mask, fit); },
                              image_index("P", width)));
      v.merge(hints(r, ref, width, height));
    }
  }
  HALO_REQUIRE_VERDICT(v);
}

void check_sizes(std::initializer_list<Size> sizes, uint64_t salt) {
  Rng rng(salt);
  for (const Size& s : sizes)
    for (int mask : kMaskWidths) check(s.width, s.height, mask, rng);
}

}  // namespace

TEST_SUITE_BEGIN("7.6");

TEST_CASE("7.6 tiled-2d-pitched / correct / the launch configuration: input-tile or output-tile blocks and a grid covering the image") {
  Verdict v;
  const Size sizes[] = {{1, 1}, {kT, kT}, {kT + 1, kT}, {kT, kT + 1}, {37, 23}, {9, 70}, {1000, 700}};
  for (const Size& s : sizes)
    for (int mask : kMaskWidths) {
      if (!v.ok) break;  // one image is enough to explain it
      v.merge(config_verdict(s.width, s.height, mask));
    }
  HALO_REQUIRE_VERDICT(v);
}

TEST_CASE("7.6 tiled-2d-pitched / correct / a 1x1 image: every neighbour is a ghost cell") { check_sizes({{1, 1}}, 1); }
TEST_CASE("7.6 tiled-2d-pitched / correct / images smaller than the mask") {
  check_sizes({{2, 1}, {1, 2}, {2, 2}, {4, 3}, {3, 8}}, 2);
}
TEST_CASE("7.6 tiled-2d-pitched / correct / exactly one output tile") { check_sizes({{kT, kT}}, 3); }
TEST_CASE("7.6 tiled-2d-pitched / correct / one output tile plus one row or column") {
  check_sizes({{kT + 1, kT + 1}, {kT + 1, kT}, {kT, kT + 1}}, 4);
}
TEST_CASE("7.6 tiled-2d-pitched / correct / sizes that are not a multiple of the tile") {
  check_sizes({{37, 23}, {50, 41}, {3 * kT - 1, 2 * kT + 5}}, 5);
}
TEST_CASE("7.6 tiled-2d-pitched / correct / wide and tall images: x runs along a row and y down a column") {
  check_sizes({{70, 9}, {9, 70}}, 6);
}
TEST_CASE("7.6 tiled-2d-pitched / correct / the largest odd mask N_ds holds") {
  const int largest = data::defines::MAX_MASK_WIDTH % 2 ? data::defines::MAX_MASK_WIDTH : data::defines::MAX_MASK_WIDTH - 1;
  REQUIRE_MESSAGE(data::tiled_2d_input_tile_elements(kT, largest) <= 1024, "a block of the largest mask must launch");
  Rng rng(7);
  for (const Size& s : {Size{1, 1}, Size{40, 35}}) check(s.width, s.height, largest, rng);
}
// A grid of hundreds of tiles, neither side a multiple of the tile, and rows with pitch padding
// (500 floats in a 512-float pitch): a quarter of the pixels of the 1000 x 700 it was, the test
// that was 69 % of the CPU time of the section's whole binary.
TEST_CASE("7.6 tiled-2d-pitched / correct / a large image of 500x350") {
  Rng rng(8);
  check(500, 350, 5, rng);
  // The wider mask on a smaller image that still has many tiles (random_inputs.hpp's
  // kManyBlocksWidth says why), a quarter of the large one's pixels: neither side a multiple of the tile.
  check(250, 175, 9, rng);
}

TEST_CASE("7.6 tiled-2d-pitched / diagnostics / no access to the pitch padding of N or P") {
  Rng rng(9);
  // Odd widths: the row's bytes are no multiple of any pitch alignment, so pitch > width on every GPU too.
  for (const Size& s : {Size{1, 1}, Size{kT + 1, kT + 1}, Size{37, 23}, Size{101, 75}})
    for (int mask : kMaskWidths) {
      const Result r = run(rng.signal(size_t(s.width) * size_t(s.height)), s.width, s.height,
                           rng.mask(size_t(mask) * size_t(mask)), mask);
      REQUIRE_MESSAGE(r.pitch > s.width, "the test needs images whose pitch exceeds their width");
      Verdict v;
#if defined(HALO_BACKEND_CPU)  // the CPU backend stops each access to the padding and says where
      const auto& rec = halo::cpu::last_launch();
      const uint64_t count = rec.counts[int(halo::cpu::DiagnosticKind::pitch_padding)];
      if (rec.valid && count)
        v.fail("launch with " + r.what + ":\naccess to pitch padding: " +
               rec.first[int(halo::cpu::DiagnosticKind::pitch_padding)].full() + "\n    (" + std::to_string(count) +
               " accesses to the padding in this launch)");
#endif
      v.merge(r.padding);
      v.merge(r.launch);
      HALO_REQUIRE_VERDICT(v);
    }
}

TEST_CASE("7.6 tiled-2d-pitched / diagnostics / no out-of-bounds access or write to an input") {
  // Judges only what the launch reported, at the sizes where the guards matter most.
  Rng rng(10);
  for (const Size& s : {Size{1, 1}, Size{2, 3}, Size{kT, kT}, Size{kT + 1, kT - 1}, Size{50, 41}})
    for (int mask : kMaskWidths) {
      const Result r = run(rng.signal(size_t(s.width) * size_t(s.height)), s.width, s.height,
                           rng.mask(size_t(mask) * size_t(mask)), mask);
      HALO_REQUIRE_VERDICT(r.launch);
    }
}

#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.6 tiled-2d-pitched / diagnostics / the result does not depend on the order of the threads") {
  Rng rng(412);
  const int width = 45, height = 37, mask = 5;
  const auto N = rng.signal(size_t(width) * height), M = rng.mask(size_t(mask) * mask);
  HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(N, width, height, M, mask); }));
}
#endif

// Load counts come from the CPU backend's instrumentation, or on a GPU from the load-counting
// tool (measured_launch.hpp); per-thread store counts only from the CPU backend.

namespace {

// Elements of `array` loaded by block (blockRow, blockCol) of the last launch, `r`.
uint64_t block_loads(const char* array, const Result& r, int blockRow, int blockCol) {
  const auto* a = measured_launch().array(array);
  REQUIRE(a != nullptr);
  return a->block_load_elements(size_t(blockRow) * r.config.grid.x + size_t(blockCol));
}

std::string block_name(int blockRow, int blockCol) {
  // CUDA order: blockIdx.x (the column) first.
  return "(" + std::to_string(blockCol) + "," + std::to_string(blockRow) + ")";
}

}  // namespace

TEST_CASE("7.6 tiled-2d-pitched / loads / N per block: the input tile inside the image for masks 3 to 9") {
  if (!load_counter_ready()) return;
  const int width = 100, height = 75;  // not multiples of the tile; block (1,1) is internal for every mask
  Rng rng(11);
  for (int mask : kMaskWidths) {
    HALO_REQUIRE_VERDICT(config_verdict(width, height, mask));
    const auto N = rng.signal(size_t(width) * height), M = rng.mask(size_t(mask) * mask);
    const Result r = run(N, width, height, M, mask);
    // "At most" the formula means something only for a kernel that computed P.
    Verdict v = r.launch;
    v.merge(compare_outputs("P", r.P, conv2d_reference(N, width, height, M, mask), {}, image_index("P", width)));
    HALO_REQUIRE_VERDICT(v);
    const int last_row = int(data::tiled_2d_grid_blocks(height, kT)) - 1;
    const int last_col = int(data::tiled_2d_grid_blocks(width, kT)) - 1;
    const auto tile = uint64_t(data::tiled_2d_input_tile_elements(kT, mask));
    REQUIRE_MESSAGE(uint64_t(data::tiled_2d_loads_block(1, 1, width, height, kT, mask)) == tile,
                    "block (1,1) must be internal for the test to mean anything");
    LoadReport report("7.6", r.what);
    report.add({"N", "internal block " + block_name(1, 1), block_loads("N", r, 1, 1), tile, Bound::at_most});
    report.add({"N", "first block " + block_name(0, 0), block_loads("N", r, 0, 0),
                uint64_t(data::tiled_2d_loads_block(0, 0, width, height, kT, mask)), Bound::at_most});
    report.add({"N", "last block " + block_name(last_row, last_col), block_loads("N", r, last_row, last_col),
                uint64_t(data::tiled_2d_loads_block(last_row, last_col, width, height, kT, mask)), Bound::at_most});
    report.publish();
    HALO_REQUIRE_VERDICT(report.verdict());
  }
}

// The launch of the 2D reduction ratio: the tiled kernel's side, measured here and saved
// (tagged) for the ratio question; section 7.8's tests save the basic 2D kernel's side.
TEST_CASE("7.6 tiled-2d-pitched / loads / N per block at the 2D reduction-ratio launch") {
  if (!load_counter_ready()) return;
  const auto& m = data::measurements::ratio_2d_t16_m5;
  REQUIRE_MESSAGE(int(m.T) == kT, "the measurement's T must be O_TILE_WIDTH, the tile the kernel is built with");
  const int width = int(m.width), height = int(m.height), mask = int(m.Mask_Width);
  HALO_REQUIRE_VERDICT(config_verdict(width, height, mask));
  Rng rng(12);
  const auto N = rng.signal(size_t(width) * height), M = rng.mask(size_t(mask) * mask);
  const Result r = run(N, width, height, M, mask);
  Verdict v = r.launch;
  v.merge(r.padding);
  v.merge(compare_outputs("P", r.P, conv2d_reference(N, width, height, M, mask), {}, image_index("P", width)));
  HALO_REQUIRE_VERDICT(v);
  LoadReport report("7.6", r.what);
  report.add({"N", "internal block " + block_name(1, 1), block_loads("N", r, 1, 1),
              uint64_t(data::tiled_2d_input_tile_elements(m.T, m.Mask_Width)), Bound::at_most,
              "tiled_2d@ratio_2d_t16_m5:N:internal"});
  report.add({"N", "first block " + block_name(0, 0), block_loads("N", r, 0, 0),
              uint64_t(data::tiled_2d_loads_block(0, 0, m.width, m.height, m.T, m.Mask_Width)), Bound::at_most});
  report.set_output_correct(true);  // checked above
  report.publish();
  HALO_REQUIRE_VERDICT(report.verdict());
}

#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.6 tiled-2d-pitched / loads / P is written once per output by the inner threads and never read") {
  Rng rng(13);
  for (const Size& s : {Size{kT + 1, kT + 1}, Size{37, 23}})
    for (int mask : kMaskWidths) {
      HALO_REQUIRE_VERDICT(config_verdict(s.width, s.height, mask));
      halo::cpu::set_count_per_thread(true);
      const Result r = run(rng.signal(size_t(s.width) * size_t(s.height)), s.width, s.height,
                           rng.mask(size_t(mask) * size_t(mask)), mask);
      halo::cpu::set_count_per_thread(false);
      HALO_REQUIRE_VERDICT(r.launch);
      const auto& rec = halo::cpu::last_launch();
      const auto* P = rec.array("P");
      REQUIRE(P != nullptr);
      if (P->load_elements() != 0)
        FAIL("launch with " << r.what << ":\nthe kernel read P " << P->load_elements()
                            << " times; P is only an output (what it holds before the launch is no value to "
                               "build on): keep the sum in a register and store it once");
      const size_t per_block = rec.threads_per_block();
      for (size_t t = 0; t < P->thread_stores.size(); ++t) {
        const size_t b = t / per_block, local = t % per_block;
        const unsigned tx = unsigned(local % rec.block.x), ty = unsigned(local / rec.block.x);
        const unsigned bx = unsigned(b % rec.grid.x), by = unsigned(b / rec.grid.x);
        const long row_o = long(by) * kT + ty, col_o = long(bx) * kT + tx;
        const bool owns = tx < unsigned(kT) && ty < unsigned(kT) && row_o < s.height && col_o < s.width;
        if (P->thread_stores[t] != (owns ? 1u : 0u))
          FAIL("launch with " << r.what << ":\nthread (" << tx << "," << ty << ",0) of block (" << bx << "," << by
                              << ",0) stored " << P->thread_stores[t] << " elements of P; "
                              << (owns ? "it owns output P[row " + std::to_string(row_o) + "][col " +
                                             std::to_string(col_o) + "] and must store it exactly once"
                                       : std::string("only the threads with tx and ty below O_TILE_WIDTH store, each "
                                                     "its own output, and only when it lies inside the image")));
      }
    }
}

#endif

TEST_SUITE_END();
