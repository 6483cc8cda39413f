// Section 7.8, the chapter's 2D exercises: the basic, constant-memory, tiled and cached 2D
// kernels of the 4th edition. Correctness on the book's 2D example and on random images of
// awkward sizes (1 x 1, smaller than the filter, one tile, one tile plus one, non-square,
// large) for radii 1 to 4; and, on the CPU backend, their global loads of N and F and their
// constant reads against the chapter's formulas: exact for the basic kernels, at most the
// formula for the tiled ones, with the cached kernel's loads split at the barrier (its tile
// before, its halo after).
#include <cmath>
#include <string>
#include <vector>

#include "halo/chapter_data.hpp"
#include "halo_test.hpp"

#include "halo/entry_points.hpp"
#include "entry_points.inc"

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr int kInTile = data::defines::IN_TILE_DIM;
constexpr int kTile = data::defines::TILE_DIM;
constexpr int kMaxRadius = data::defines::MAX_FILTER_RADIUS;
// The grader's block for the two basic kernels: not square, so x and y mixed up shows.
constexpr unsigned kBasicX = unsigned(data::measurements::basic_2d_large.blockDimX);
constexpr unsigned kBasicY = unsigned(data::measurements::basic_2d_large.blockDimY);
const int kRadii[] = {1, 2, 3, 4};

enum class Kernel { basic, constant, tiled, cached };
const Kernel kKernels[] = {Kernel::basic, Kernel::constant, Kernel::tiled, Kernel::cached};

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::basic: return "convolution_2D_basic_kernel";
    case Kernel::constant: return "convolution_2D_const_mem_kernel";
    case Kernel::tiled: return "convolution_tiled_2D_const_mem_kernel";
    case Kernel::cached: return "convolution_cached_tiled_2D_const_mem_kernel";
  }
  return "?";
}

int filter_dim(int r) { return 2 * r + 1; }
int out_tile_dim(int r) { return int(data::tiled_in_2d_out_tile_dim(kInTile, r)); }

// The launch the grader makes for each kernel (the book's, with the tile sizes of [defines]).
struct Launch {
  dim3 grid, block;
};

Launch launch_for(Kernel k, int width, int height, int r) {
  switch (k) {
    case Kernel::basic:
    case Kernel::constant:
      return {dim3(halo::blocks_for(width, kBasicX), halo::blocks_for(height, kBasicY)), dim3(kBasicX, kBasicY)};
    case Kernel::tiled: {
      const unsigned out = unsigned(out_tile_dim(r));  // blocks step by OUT_TILE_DIM
      return {dim3(halo::blocks_for(width, out), halo::blocks_for(height, out)), dim3(kInTile, kInTile)};
    }
    case Kernel::cached:
      return {dim3(halo::blocks_for(width, kTile), halo::blocks_for(height, kTile)), dim3(kTile, kTile)};
  }
  return {};
}

std::string describe(Kernel k, int width, int height, int r, const Launch& l) {
  const std::string f = std::to_string(filter_dim(r));
  return std::string(kernel_name(k)) + " on a " + std::to_string(width) + " x " + std::to_string(height) +
         " image (width x height), r = " + std::to_string(r) + " (" + f + " x " + f + " filter), blocks of " +
         std::to_string(l.block.x) + " x " + std::to_string(l.block.y) + " threads, grid " + std::to_string(l.grid.x) +
         " x " + std::to_string(l.grid.y);
}

struct Result {
  std::vector<float> P;
  Verdict launch;
};

Result run(Kernel k, const std::vector<float>& N, int width, int height, const std::vector<float>& F, int r,
           const Launch& l) {
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", N.size());
  cudaError_t err;
  if (k == Kernel::basic) {
    auto dF = DeviceArray<float>::input("F", F);
    err = halo::launch(convolution_2D_basic_kernel, l.grid, l.block, dN.get(), dF.get(), dP.get(), r, width, height);
  } else {
    require_ok(copy_filter_to_constant(F.data(), r), "copy_filter_to_constant");
    auto kernel = k == Kernel::constant ? convolution_2D_const_mem_kernel
                  : k == Kernel::tiled  ? convolution_tiled_2D_const_mem_kernel
                                        : convolution_cached_tiled_2D_const_mem_kernel;
    err = halo::launch(kernel, l.grid, l.block, input_tile_bytes(l.block, r), dN.get(), dP.get(), r, width, height);
  }
  return {dP.download(), judge_launch(err, describe(k, width, height, r, l))};
}

// ---------------------------------------------------------------- hints for this section's traps

// The 4th edition's Fig. 7.15 reads N_s[threadIdx.y + fRow][threadIdx.x + fCol] although its guard
// tests threadIdx.x - r + fCol. Threads at least r from the tile's top and left edges and 2r from
// its far edges then read only tile elements, r rows and r columns too far on: their outputs
// equal the right result at [row + r][col + r].
Verdict cached_index_hint(const std::vector<float>& got, const Reference& want, int width, int height, int r) {
  Verdict v;
  size_t shifted = 0, plain = 0;
  for (int row = 0; row + r < height; ++row)
    for (int col = 0; col + r < width; ++col) {
      const int ty = row % kTile, tx = col % kTile;
      if (ty < r || tx < r || ty >= kTile - 2 * r || tx >= kTile - 2 * r) continue;
      const size_t i = size_t(row) * width + col, moved = size_t(row + r) * width + (col + r);
      if (is_poison(got[i]) || !close_enough(got[i], want.value[moved], want.magnitude[moved])) return v;
      ++shifted;
      if (close_enough(got[i], want.value[i], want.magnitude[i])) ++plain;
    }
  if (shifted > 0 && plain < shifted)
    v.fail("hint: inside each tile, P[row][col] equals the right result for P[row + r][col + r]: the tile is read r "
           "rows and r columns too far on. The neighbour at fRow, fCol sits in the tile at "
           "N_s[threadIdx.y - r + fRow][threadIdx.x - r + fCol]: subtract r in both indices, as the guard does (the "
           "4th edition's Fig. 7.15 leaves it out).");
  return v;
}

// Tiled blocks must step by OUT_TILE_DIM: with IN_TILE_DIM, each output tile lands IN_TILE_DIM
// after the previous one and the 2r columns (and rows) between them are never written.
Verdict tiled_stride_hint(const std::vector<float>& got, int width, int height, int r) {
  Verdict v;
  const int out = out_tile_dim(r);
  size_t unwritten = 0;
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      const bool in_gap = row % kInTile >= out || col % kInTile >= out;
      if (is_poison(got[size_t(row) * width + col]) != in_gap) return v;
      unwritten += in_gap;
    }
  if (unwritten > 0)
    v.fail("hint: the unwritten outputs are bands " + std::to_string(2 * r) + " columns wide (and " +
           std::to_string(2 * r) + " rows high) after every " + std::to_string(kInTile) +
           ": the output tiles were placed IN_TILE_DIM apart. Neighbouring input tiles overlap by 2r, so each "
           "block's output tile starts OUT_TILE_DIM = IN_TILE_DIM - 2r = " +
           std::to_string(out) + " after the previous one: blockIdx.x * OUT_TILE_DIM + threadIdx.x - r.");
  return v;
}

// A cached kernel reads its halo from global memory after the barrier. When every load of N came
// before the first __syncthreads() and there were more of them than tile elements, the halo was
// read with no barrier at all: the tile was read before the other threads had stored it.
Verdict cached_barrier_hint(int width, int height) {
  Verdict v;
#if defined(HALO_BACKEND_CPU)
  const auto& rec = halo::cpu::last_launch();
  const auto* a = rec.array("N");
  if (!a || a->block_loads_phase[0].size() != rec.block_count()) return v;
  uint64_t before = 0, after = 0;
  for (size_t b = 0; b < rec.block_count(); ++b) {
    before += a->block_load_elements_before_barrier(b);
    after += a->block_load_elements_after_barrier(b);
  }
  if (after == 0 && before > uint64_t(width) * uint64_t(height))
    v.fail("hint: every load of N, halo cells included, came before any __syncthreads(): the threads read N_s "
           "without waiting for the others to store their elements. Call __syncthreads() after loading the tile and "
           "before the loop that reads it.");
#else
  (void)width, (void)height;
#endif
  return v;
}

// Compares P with the double-precision reference, the 2D misconceptions, and this section's traps.
Verdict judge_output(Kernel k, const std::vector<float>& got, const std::vector<float>& N, int width, int height,
                     const std::vector<float>& F, int r) {
  const int m = filter_dim(r);
  const Reference want = conv2d_reference(N, width, height, F, m);
  if (compare_outputs("P", got, want).ok) return {};  // the alternatives cost time: only for a failure
  Verdict v = compare_outputs("P", got, want, [&](Fit fit) {
    auto misconceptions = conv2d_misconceptions(N, width, height, F, m, fit);
    if (k == Kernel::tiled)
      for (auto& t : transposed_tile(N, width, height, F, m, out_tile_dim(r), fit)) misconceptions.push_back(std::move(t));
    return misconceptions;
  }, image_index("P", width));
  if (k == Kernel::cached) {
    v.merge(cached_index_hint(got, want, width, height, r));
    v.merge(cached_barrier_hint(width, height));
  }
  if (k == Kernel::tiled) v.merge(tiled_stride_hint(got, width, height, r));
  const Launch l = launch_for(k, width, height, r);
  const int per_block = k == Kernel::tiled ? out_tile_dim(r) : 0;  // outputs per block along x and y
  v.merge(same_row_in_every_thread_hint(got, width, height, per_block ? per_block : int(l.block.x),
                                        per_block ? per_block : int(l.block.y)));
  v.merge(axes_swapped_hint(got, want, width, height, l.grid, per_block ? per_block : int(l.block.x),
                            per_block ? per_block : int(l.block.y)));
  return v;
}

// The book's other tiled design: blocks the size of the output tile, each thread loading several
// input-tile elements. A kernel written that way fails under this exercise's input-tile launch;
// when the same inputs give the right P, cleanly, at the output-tile launch, say that is why.
Verdict other_design_hint(const std::vector<float>& N, int width, int height, const std::vector<float>& F, int r) {
  Verdict v;
  const unsigned out = unsigned(out_tile_dim(r));
  const Launch l{dim3(halo::blocks_for(width, out), halo::blocks_for(height, out)), dim3(out, out)};
  const Result res = run(Kernel::tiled, N, width, height, F, r, l);
  const int m = filter_dim(r);
  if (res.launch.ok && compare_outputs("P", res.P, conv2d_reference(N, width, height, F, m)).ok)
    v.fail("hint: the same inputs give the right P when the kernel is launched with blocks of the output tile (" +
           std::to_string(out) + " x " + std::to_string(out) + " threads, each loading several tile elements: the "
           "book's other design), but this exercise launches blocks of the input tile, IN_TILE_DIM x IN_TILE_DIM = " +
           std::to_string(kInTile) + " x " + std::to_string(kInTile) + " threads: each thread loads one element of "
           "the input tile, and only the inner OUT_TILE_DIM x OUT_TILE_DIM threads compute an output");
  return v;
}

// The verdict of one run of kernel k: its launch, its outputs, and the hints that explain them.
Verdict judge_run(Kernel k, const Result& res, const std::vector<float>& N, int width, int height,
                  const std::vector<float>& F, int r) {
  const Verdict output = judge_output(k, res.P, N, width, height, F, r);
  Verdict v;
  if (k == Kernel::tiled && !(res.launch.ok && output.ok)) v = other_design_hint(N, width, height, F, r);
  v.merge(res.launch);
  v.merge(output);
  return v;
}

struct Size {
  int width, height;
};

// Runs kernel k on random inputs of each size and radius and checks P.
void check(Kernel k, const std::vector<Size>& sizes, std::initializer_list<int> radii, uint64_t salt) {
  Rng rng(salt);
  for (const Size& s : sizes)
    for (int r : radii) {
      const auto N = rng.signal(size_t(s.width) * size_t(s.height));
      const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
      const Launch l = launch_for(k, s.width, s.height, r);
      INFO(describe(k, s.width, s.height, r, l));
      HALO_REQUIRE_VERDICT(judge_run(k, run(k, N, s.width, s.height, F, r, l), N, s.width, s.height, F, r));
    }
}

// The 3rd edition's Fig. 7.4: the grader's reference must give the book's P[2][2], the kernel the reference.
void check_book_example(Kernel k) {
  const auto& ex = data::examples::exercises_2d_fig_7_4;
  const auto N = as_floats(ex.N), F = as_floats(ex.M);
  const int m = int(std::lround(std::sqrt(double(F.size())))), r = m / 2, width = m, height = int(N.size()) / width;
  require_book_values(ex, conv2d_reference(N, width, height, F, m));
  const Launch l = launch_for(k, width, height, r);
  INFO(describe(k, width, height, r, l));
  HALO_REQUIRE_VERDICT(judge_run(k, run(k, N, width, height, F, r, l), N, width, height, F, r));
}

const std::vector<Size> kTiny = {{1, 1}, {2, 1}, {1, 3}, {3, 2}, {2, 5}, {7, 3}};
const std::vector<Size> kNonSquare = {{100, 37}, {37, 100}, {129, 65}};
// The large tests' point is the image's size (a grid of hundreds of blocks): they run radius 1,
// the cheapest, since every radius runs on the non-square images above. 500 x 350 is 704 blocks of
// the basic kernel, 204 of the tiled and 176 of the cached, no side a multiple of any tile: a
// quarter of the pixels of the 1000 x 700 it was, which made these four tests 57 % of the CPU
// time of the section's whole binary (each known-wrong and learner kernel runs it whole).
const Size kLarge = {500, 350};
constexpr int kLargeRadius = 1;

// One block (or tile) exactly, and one element more in each direction.
std::vector<Size> tile_sizes(Kernel k, int r) {
  int w = kTile, h = kTile;
  if (k == Kernel::basic || k == Kernel::constant) w = int(kBasicX), h = int(kBasicY);
  if (k == Kernel::tiled) w = h = out_tile_dim(r);
  return {{w, h}, {w + 1, h}, {w, h + 1}, {w + 1, h + 1}};
}

void check_tile_sizes(Kernel k, uint64_t salt) {
  for (int r : kRadii) check(k, tile_sizes(k, r), {r}, salt + uint64_t(r));
}

}  // namespace

TEST_SUITE_BEGIN("7.8");

// ---------------------------------------------------------------- correct: exercise 8, the basic kernel

TEST_CASE("7.8 exercises-2d / correct / basic kernel: the book's 2D example") { check_book_example(Kernel::basic); }
TEST_CASE("7.8 exercises-2d / correct / basic kernel: 1 x 1 and images smaller than the filter") {
  check(Kernel::basic, kTiny, {1, 2, 3, 4}, 101);
}
TEST_CASE("7.8 exercises-2d / correct / basic kernel: one block and one block plus one") {
  check_tile_sizes(Kernel::basic, 110);
}
TEST_CASE("7.8 exercises-2d / correct / basic kernel: non-square images") {
  check(Kernel::basic, kNonSquare, {1, 2, 3, 4}, 120);
}
TEST_CASE("7.8 exercises-2d / correct / basic kernel: a 500 x 350 image") { check(Kernel::basic, {kLarge}, {kLargeRadius}, 130); }

// ---------------------------------------------------------------- correct: the filter in constant memory

TEST_CASE("7.8 exercises-2d / correct / constant-memory kernel: the book's 2D example") {
  check_book_example(Kernel::constant);
}
TEST_CASE("7.8 exercises-2d / correct / constant-memory kernel: 1 x 1 and images smaller than the filter") {
  check(Kernel::constant, kTiny, {1, 2, 3, 4}, 201);
}
TEST_CASE("7.8 exercises-2d / correct / constant-memory kernel: one block and one block plus one") {
  check_tile_sizes(Kernel::constant, 210);
}
TEST_CASE("7.8 exercises-2d / correct / constant-memory kernel: non-square images") {
  check(Kernel::constant, kNonSquare, {1, 2, 3, 4}, 220);
}
TEST_CASE("7.8 exercises-2d / correct / constant-memory kernel: a 500 x 350 image") {
  check(Kernel::constant, {kLarge}, {kLargeRadius}, 230);
}

// ---------------------------------------------------------------- correct: exercise 9, the tiled kernel

TEST_CASE("7.8 exercises-2d / correct / tiled kernel: the book's 2D example") { check_book_example(Kernel::tiled); }
TEST_CASE("7.8 exercises-2d / correct / tiled kernel: 1 x 1 and images smaller than the filter") {
  check(Kernel::tiled, kTiny, {1, 2, 3, 4}, 301);
}
TEST_CASE("7.8 exercises-2d / correct / tiled kernel: one output tile and one tile plus one") {
  check_tile_sizes(Kernel::tiled, 310);
}
TEST_CASE("7.8 exercises-2d / correct / tiled kernel: non-square images") {
  check(Kernel::tiled, kNonSquare, {1, kMaxRadius}, 320);
}
TEST_CASE("7.8 exercises-2d / correct / tiled kernel: a 500 x 350 image") { check(Kernel::tiled, {kLarge}, {kLargeRadius}, 330); }

// ---------------------------------------------------------------- correct: exercise 10, the cached kernel

TEST_CASE("7.8 exercises-2d / correct / cached kernel: the book's 2D example") { check_book_example(Kernel::cached); }
TEST_CASE("7.8 exercises-2d / correct / cached kernel: 1 x 1 and images smaller than the filter") {
  check(Kernel::cached, kTiny, {1, 2, 3, 4}, 401);
}
TEST_CASE("7.8 exercises-2d / correct / cached kernel: one tile and one tile plus one") {
  check_tile_sizes(Kernel::cached, 410);
}
TEST_CASE("7.8 exercises-2d / correct / cached kernel: non-square images") {
  check(Kernel::cached, kNonSquare, {1, kMaxRadius}, 420);
}
TEST_CASE("7.8 exercises-2d / correct / cached kernel: a 500 x 350 image") {
  check(Kernel::cached, {kLarge}, {kLargeRadius}, 430);
}

// Load counts come from the CPU backend's instrumentation, or on a GPU from the load-counting
// tool (measured_launch.hpp). Only the CPU backend also measures per thread, splits loads at
// the barrier and sees constant-memory reads: those rows and tests are the CPU's alone.

namespace {

// Linear id of block (x, y) of a launch: x varies fastest, as in CUDA.
size_t block_id(const dim3& grid, unsigned x, unsigned y) { return size_t(y) * grid.x + x; }

#if defined(HALO_BACKEND_CPU)
using halo::cpu::Space;

uint64_t constant_reads(const halo::cpu::LaunchRecord& rec, size_t block) {
  return rec.block_space_loads[int(Space::constant)].at(block).bytes / sizeof(float);
}
#endif

// Global loads of block `block` from arrays other than N (the filter F where there is one, P).
uint64_t other_global_loads(const LaunchCounts& rec, size_t block, const char* except = "N") {
  uint64_t n = 0;
  for (const auto& a : rec.arrays)
    if (a.name != except) n += a.block_load_elements(block);
#if defined(HALO_BACKEND_CUDA)  // and memory the grader did not allocate (on the CPU every array is named)
  n += rec.unnamed_block_load_bytes.at(block) / sizeof(float);
#endif
  return n;
}

// Runs a kernel on random inputs, requiring a clean launch and a right P; the record stays in last_launch().
struct Measured {
  int width, height, r;
  Launch launch;
  std::string what;
};

Measured measure(Kernel k, int width, int height, int r, Rng& rng, bool per_thread = false) {
  const auto N = rng.signal(size_t(width) * size_t(height));
  const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
  Measured m{width, height, r, launch_for(k, width, height, r), ""};
  m.what = describe(k, width, height, r, m.launch);
#if defined(HALO_BACKEND_CPU)
  halo::cpu::set_count_per_thread(per_thread);
#else
  REQUIRE_MESSAGE(!per_thread, "per-thread counts come from the CPU backend only");
#endif
  Result res = run(k, N, width, height, F, r, m.launch);
#if defined(HALO_BACKEND_CPU)
  halo::cpu::set_count_per_thread(false);
#endif
  Verdict v = res.launch;
  v.merge(judge_output(k, res.P, N, width, height, F, r));
  if (!v.ok) FAIL("the load counts are only meaningful for a kernel whose output is right\n" << failure_text(v));
  return m;
}

const ArrayCounts& array_of(const char* name) {
  const auto* a = measured_launch().array(name);
  REQUIRE(a != nullptr);
  return *a;
}

// The rows both basic kernels share: N per internal block, first block and whole grid (exact).
void add_basic_rows(LoadReport& report, const char* array, const ArrayCounts& a, const Measured& m) {
  const double bx = m.launch.block.x, by = m.launch.block.y, mask = filter_dim(m.r);
  report.add({array, "internal block (1,1)", a.block_load_elements(block_id(m.launch.grid, 1, 1)),
              uint64_t(data::basic_2d_loads_internal_block(bx, by, mask))});
  report.add({array, "first block (0,0)", a.block_load_elements(0),
              uint64_t(data::basic_2d_loads_first_block(bx, by, mask))});
  report.add({array, "whole grid", a.load_elements(), uint64_t(data::basic_2d_loads_total(m.width, m.height, mask))});
}

// Loads of the cached kernel after the barrier that the halo does not need: a hint for the
// tile test, the usual reason.
Verdict cached_halo_hint(uint64_t measured, uint64_t expected) {
  Verdict v;
  if (measured > expected)
    v.fail("hint: the block read " + std::to_string(measured - expected) +
           " more elements of N from global memory after the barrier than its halo holds: neighbours inside the "
           "tile should come from N_s. Check the test that decides whether a neighbour is in the tile; threadIdx "
           "is unsigned, so a comparison like threadIdx.x >= r - fCol or threadIdx.x - r + fCol >= 0 is made in "
           "unsigned arithmetic. Compute the tile indices in int.");
  return v;
}

}  // namespace

// ---------------------------------------------------------------- loads: the basic kernels

#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.8 exercises-2d / loads / basic and constant-memory kernels: each thread with an output loads exactly its non-ghost neighbours") {
  Rng rng(501);
  uint64_t idle_loads = 0;  // by threads outside the image: more work than the book's kernel, not a mistake
  for (Kernel k : {Kernel::basic, Kernel::constant})
    for (Size s : {Size{37, 11}, Size{3, 2}})
      for (int r : kRadii) {
        const Measured m = measure(k, s.width, s.height, r, rng, true);
        const auto& rec = halo::cpu::last_launch();
        const size_t per_block = rec.threads_per_block();
        for (const char* array : {"N", "F"}) {
          if (k == Kernel::constant && std::string(array) == "F") continue;  // no F in global memory
          const auto& a = array_of(array);
          for (unsigned by = 0; by < rec.grid.y; ++by)
            for (unsigned bx = 0; bx < rec.grid.x; ++bx)
              for (unsigned ty = 0; ty < rec.block.y; ++ty)
                for (unsigned tx = 0; tx < rec.block.x; ++tx) {
                  const int row = int(by * rec.block.y + ty), col = int(bx * rec.block.x + tx);
                  const size_t t = block_id(rec.grid, bx, by) * per_block + size_t(ty) * rec.block.x + tx;
                  const bool inside = row < m.height && col < m.width;
                  const auto want = inside ? uint32_t(data::basic_2d_loads_thread(row, col, m.width, m.height,
                                                                                  filter_dim(r)))
                                           : 0u;
                  if (!inside) {
                    idle_loads += a.thread_loads[t];
                    continue;
                  }
                  if (a.thread_loads[t] == want) continue;
                  // Built as one std::string: doctest prints a streamed const char* as a pointer.
                  const std::string message = "the thread of P[row " + std::to_string(row) + "][col " +
                                              std::to_string(col) + "] loaded " + std::to_string(a.thread_loads[t]) +
                                              " elements of " + array + "; it should load exactly " +
                                              std::to_string(want) + ", its neighbours that are not ghost cells\n  " +
                                              m.what;
                  FAIL(message);
                }
        }
      }
  if (idle_loads)
    advise("7.8", "threads with no output (outside the image) loaded " + std::to_string(idle_loads) +
                      " elements in this test's launches of the basic and constant-memory kernels; the book's "
                      "kernels test row < height && col < width before their loops, so those threads load nothing");
}
#endif

TEST_CASE("7.8 exercises-2d / loads / basic kernel: N and F per block and in total") {
  if (!load_counter_ready()) return;
  const auto& ms = data::measurements::basic_2d_large;
  Rng rng(502);
  const Measured m = measure(Kernel::basic, int(ms.width), int(ms.height), int(data::radius(ms.Mask_Width)), rng);
  REQUIRE_MESSAGE(m.launch.block.x == unsigned(ms.blockDimX), "the measurement's block must be the grader's launch");
  LoadReport report("7.8", m.what);
  add_basic_rows(report, "N", array_of("N"), m);
  add_basic_rows(report, "F", array_of("F"), m);
  report.set_output_correct(true);
  report.publish();
  HALO_REQUIRE_VERDICT(report.verdict());
}

// The 2D reduction-ratio launch of section 7.6: the basic kernel's side, with T x T blocks so
// that one block computes one T x T output tile, saved (tagged) for 7.6's ratio answers.
TEST_CASE("7.8 exercises-2d / loads / basic kernel: N per block at the 2D reduction-ratio launch of 7.6") {
  if (!load_counter_ready()) return;
  const auto& ms = data::measurements::ratio_2d_t16_m5;
  const int width = int(ms.width), height = int(ms.height), r = int(data::radius(ms.Mask_Width));
  const unsigned T = unsigned(ms.T);
  Rng rng(503);
  const auto N = rng.signal(size_t(width) * size_t(height));
  const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
  const Launch l{dim3(halo::blocks_for(width, T), halo::blocks_for(height, T)), dim3(T, T)};
  Result res = run(Kernel::basic, N, width, height, F, r, l);
  Verdict v = res.launch;
  v.merge(judge_output(Kernel::basic, res.P, N, width, height, F, r));
  HALO_REQUIRE_VERDICT(v);
  const auto& a = array_of("N");
  LoadReport report("7.8", describe(Kernel::basic, width, height, r, l));
  report.add({"N", "internal block (1,1)", a.block_load_elements(block_id(l.grid, 1, 1)),
              uint64_t(data::basic_2d_loads_internal_block(T, T, ms.Mask_Width)), Bound::exact,
              "basic_2d@ratio_2d_t16_m5:N:internal"});
  report.add({"N", "first block (0,0)", a.block_load_elements(0),
              uint64_t(data::basic_2d_loads_first_block(T, T, ms.Mask_Width))});
  report.set_output_correct(true);
  report.publish();
  HALO_REQUIRE_VERDICT(report.verdict());
}

TEST_CASE("7.8 exercises-2d / loads / constant-memory kernel: N per block and no global loads of the filter") {
  if (!load_counter_ready()) return;
  const auto& ms = data::measurements::basic_2d_large;
  Rng rng(504);
  const Measured m = measure(Kernel::constant, int(ms.width), int(ms.height), int(data::radius(ms.Mask_Width)), rng);
  const auto& rec = measured_launch();
  const size_t internal = block_id(m.launch.grid, 1, 1);
  LoadReport report("7.8", m.what);
  add_basic_rows(report, "N", array_of("N"), m);
  report.add({"F", "global (any but N), (1,1)", other_global_loads(rec, internal), 0});
#if defined(HALO_BACKEND_CPU)  // a GPU's constant cache is not global memory: the tool does not see it
  report.add({"F_c", "constant reads, internal (1,1)", constant_reads(rec, internal),
              uint64_t(data::basic_2d_loads_internal_block(ms.blockDimX, ms.blockDimY, ms.Mask_Width))});
#endif
  report.set_output_correct(true);
  report.publish();
  HALO_REQUIRE_VERDICT(report.verdict());
}

// ---------------------------------------------------------------- loads: the tiled kernel

TEST_CASE("7.8 exercises-2d / loads / tiled kernel: N per block against its input tile") {
  if (!load_counter_ready()) return;
  const auto& ms = data::measurements::tiled_2d_large;
  Rng rng(505);
  for (int r : kRadii) {
    const bool headline = r == int(data::radius(ms.Mask_Width));
    const int out = out_tile_dim(r);
    // The headline image of the measurement; for the other radii, 3 x 3 output tiles (block (1,1) internal).
    const int width = headline ? int(ms.width) : 3 * out, height = headline ? int(ms.height) : 3 * out;
    const Measured m = measure(Kernel::tiled, width, height, r, rng);
    const auto& rec = measured_launch();
    const auto& a = array_of("N");
    const size_t internal = block_id(m.launch.grid, 1, 1);
    LoadReport report("7.8", m.what);
    report.add({"N", "internal block (1,1)", a.block_load_elements(internal),
                uint64_t(data::tiled_in_2d_loads_internal_block(kInTile)), Bound::at_most});
    report.add({"N", "first block (0,0)", a.block_load_elements(0),
                uint64_t(data::tiled_in_2d_loads_first_block(kInTile, r)), Bound::at_most});
    report.add({"N", "whole grid", a.load_elements(), uint64_t(data::tiled_in_2d_loads_total(width, height, kInTile, r)),
                Bound::at_most});
    report.add({"F", "global (any but N), (1,1)", other_global_loads(rec, internal), 0});
#if defined(HALO_BACKEND_CPU)  // the barrier split and constant reads: the CPU backend only
    report.add({"N", "after the barrier, (1,1)", a.block_load_elements_after_barrier(internal), 0});
    const double out_d = out;
    report.add({"F_c", "constant reads, internal (1,1)", constant_reads(rec, internal),
                uint64_t(data::basic_2d_loads_internal_block(out_d, out_d, filter_dim(r)))});
#endif
    report.set_output_correct(true);
    if (headline) report.publish();
    HALO_REQUIRE_VERDICT(report.verdict());
  }
}

// ---------------------------------------------------------------- loads: the cached kernel

TEST_CASE("7.8 exercises-2d / loads / cached kernel: tile loads before the barrier and halo reads after it") {
  if (!load_counter_ready()) return;
  const auto& ms = data::measurements::cached_2d_large;
  Rng rng(506);
  for (int r : kRadii) {
    const bool headline = r == int(data::radius(ms.Mask_Width));
    const int width = headline ? int(ms.width) : 3 * kTile, height = headline ? int(ms.height) : 3 * kTile;
    const double mask = filter_dim(r);
    const Measured m = measure(Kernel::cached, width, height, r, rng);
    const auto& rec = measured_launch();
    const auto& a = array_of("N");
    const size_t internal = block_id(m.launch.grid, 1, 1);
    const auto halo_expected = uint64_t(data::cached_2d_halo_loads_internal_block(kTile, mask));
    const auto tile_expected = uint64_t(data::cached_2d_tile_loads_internal_block(kTile));
    LoadReport report("7.8", m.what);
    // One count per block on both backends (all a GPU can tell), then the CPU's split at the barrier.
    report.add({"N", "tile and halo, internal block (1,1)", a.block_load_elements(internal),
                tile_expected + halo_expected, Bound::at_most});
    report.add({"N", "tile and halo, first block (0,0)", a.block_load_elements(0),
                tile_expected + uint64_t(data::cached_2d_halo_loads_first_block(kTile, mask)), Bound::at_most});
    report.add({"N", "whole grid", a.load_elements(),
                uint64_t(m.width) * uint64_t(m.height) +
                    uint64_t(data::cached_2d_halo_loads_total(width, height, kTile, mask)),
                Bound::at_most});
#if defined(HALO_BACKEND_CPU)
    report.add({"N", "tile, internal block (1,1)", a.block_load_elements_before_barrier(internal), tile_expected,
                Bound::at_most});
    report.add({"N", "halo, internal block (1,1)", a.block_load_elements_after_barrier(internal), halo_expected,
                Bound::at_most});
    report.add({"N", "tile, first block (0,0)", a.block_load_elements_before_barrier(0), tile_expected, Bound::at_most});
    report.add({"N", "halo, first block (0,0)", a.block_load_elements_after_barrier(0),
                uint64_t(data::cached_2d_halo_loads_first_block(kTile, mask)), Bound::at_most});
    uint64_t tile_total = 0, halo_total = 0;
    for (size_t b = 0; b < rec.block_count(); ++b) {
      tile_total += a.block_load_elements_before_barrier(b);
      halo_total += a.block_load_elements_after_barrier(b);
    }
    report.add({"N", "tiles, whole grid", tile_total, uint64_t(m.width) * uint64_t(m.height), Bound::at_most});
    report.add({"N", "halos, whole grid", halo_total,
                uint64_t(data::cached_2d_halo_loads_total(width, height, kTile, mask)), Bound::at_most});
    report.add({"F_c", "constant reads, internal (1,1)", constant_reads(rec, internal),
                uint64_t(data::basic_2d_loads_internal_block(kTile, kTile, mask))});
#endif
    report.add({"F", "global (any but N), (1,1)", other_global_loads(rec, internal), 0});
    report.set_output_correct(true);
    if (headline) report.publish();
    Verdict v = report.verdict();
#if defined(HALO_BACKEND_CPU)
    if (!v.ok) v.merge(cached_halo_hint(a.block_load_elements_after_barrier(internal), halo_expected));
#endif
    HALO_REQUIRE_VERDICT(v);
  }
}

// ---------------------------------------------------------------- loads: P, for every kernel

TEST_CASE("7.8 exercises-2d / loads / every kernel: P is written once per output and never read") {
  if (!load_counter_ready()) return;
  Rng rng(507);
  for (Kernel k : kKernels)
    for (Size s : {Size{70, 45}, Size{5, 3}}) {
      const Measured m = measure(k, s.width, s.height, 3, rng);
      HALO_REQUIRE_VERDICT(stored_once_never_read("P", uint64_t(s.width) * uint64_t(s.height), m.what));
    }
}

// ---------------------------------------------------------------- diagnostics

#if defined(HALO_BACKEND_CPU)  // what the CPU backend's instrumentation saw
TEST_CASE("7.8 exercises-2d / diagnostics / every kernel: no out-of-bounds access or write to an input") {
  // Judges only what the instrumentation saw, at the sizes where guards matter most.
  Rng rng(601);
  for (Kernel k : kKernels)
    for (Size s : {Size{1, 1}, Size{3, 7}, Size{kInTile + 1, kTile - 1}, Size{kTile + 1, 2 * kTile + 3}})
      for (int r : {1, kMaxRadius}) {
        const auto N = rng.signal(size_t(s.width) * size_t(s.height));
        const auto F = rng.mask(size_t(filter_dim(r)) * size_t(filter_dim(r)));
        HALO_REQUIRE_VERDICT(run(k, N, s.width, s.height, F, r, launch_for(k, s.width, s.height, r)).launch);
      }
}

TEST_CASE("7.8 exercises-2d / diagnostics / every kernel: the result does not depend on the order of the threads") {
  Rng rng(512);
  const int width = 75, height = 41, r = 2;
  const auto N = rng.signal(size_t(width) * height), F = rng.mask(size_t(2 * r + 1) * (2 * r + 1));
  for (Kernel k : kKernels)
    HALO_REQUIRE_VERDICT(same_in_both_orders("P", [&] { return run(k, N, width, height, F, r, launch_for(k, width, height, r)); }));
}
#endif

TEST_SUITE_END();
