// The copy engine of the CPU backend (grader/cpu/tensor_copy.cpp): tensor copies land with their
// ghost cells as zeros and are counted as loads of the image; each rule a GPU holds a kernel to
// (halo/given/tile_copy.cuh) is reported, with the line, when tile_copy_kernels.cu breaks it.
#include <fstream>
#include <string>
#include <vector>

#include "halo/given/tile_copy.cuh"
#include "halo_test.hpp"

HALO_GLOBAL void tile_walk(const halo::TensorMap map, float* out, int tiles_x, int tiles, int flaw);
HALO_GLOBAL void tile_copy_forged(float* out, int box_w, int box_h);

using namespace halo::test;
using halo::cpu::DiagnosticKind;
using halo::cpu::last_launch;

namespace {

// As in tile_copy_kernels.cu.
constexpr int kBoxW = 8, kBoxH = 4, kBoxElements = kBoxW * kBoxH;
enum Flaw { none = 0, no_wait, no_end_barrier, wrong_use, no_copy, unaligned, no_init_barrier, two_copies, forged_map, unwaited_copy };

// An image of 21 x 10 pixels, walked as 4 x 3 tiles whose boxes start 2 columns and 1 row before
// their tile: boxes reach past every edge.
constexpr int kWidth = 21, kHeight = 10, kTilesX = 4, kTilesY = 3, kTiles = kTilesX * kTilesY;

std::vector<float> pixels() {
  std::vector<float> v(size_t(kWidth) * kHeight);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0f + float(i % 97) * 0.5f;  // never 0: a zero is a ghost cell
  return v;
}

// What tile k's box holds: the pixels it covers, 0 outside the image.
std::vector<float> expected_boxes(const std::vector<float>& image, uint64_t* in_image, uint64_t* rows) {
  std::vector<float> out(size_t(kTiles) * kBoxElements, 0.0f);
  *in_image = *rows = 0;
  for (int k = 0; k < kTiles; ++k)
    for (int i = 0; i < kBoxH; ++i) {
      const int row = (k / kTilesX) * kBoxH - 1 + i;
      bool any = false;
      for (int j = 0; j < kBoxW; ++j) {
        const int col = (k % kTilesX) * kBoxW - 2 + j;
        if (row < 0 || row >= kHeight || col < 0 || col >= kWidth) continue;
        out[size_t(k) * kBoxElements + size_t(i) * kBoxW + j] = image[size_t(row) * kWidth + col];
        ++*in_image;
        any = true;
      }
      *rows += any;
    }
  return out;
}

struct Walk {
  cudaError_t error;
  std::vector<float> out;
};

Walk walk(int flaw, unsigned blocks = 5, halo::cpu::Schedule order = halo::cpu::Schedule::forward) {
  auto N = PitchedImage::input("N", pixels(), kWidth, kHeight);
  auto out = DeviceArray<float>::output("out", size_t(kTiles) * kBoxElements);
  halo::TensorMap map;
  REQUIRE(halo::make_tensor_map(N.get(), kWidth, kHeight, N.pitch_elements(), kBoxW, kBoxH, &map) == cudaSuccess);
  halo::cpu::set_schedule(order);
  const cudaError_t err = halo::launch(tile_walk, dim3(blocks), dim3(32), map, out.get(), kTilesX, kTiles, flaw);
  halo::cpu::set_schedule(halo::cpu::Schedule::forward);
  cudaGetLastError();
  return {err, out.download()};
}

std::string line_of(const std::string& snippet) {
  std::ifstream file(HALO_TILE_COPY_KERNELS_FILE);
  std::string text;
  for (int n = 1; std::getline(file, text); ++n)
    if (text.find(snippet) != std::string::npos) return "grader/cpu/tests/tile_copy_kernels.cu:" + std::to_string(n);
  return "(no line holds " + snippet + ")";
}

const halo::cpu::Diagnostic& first(DiagnosticKind k) {
  REQUIRE(last_launch().counts[int(k)] >= 1);
  return last_launch().first[int(k)];
}

}  // namespace

TEST_CASE("tile copy / boxes land with zeros outside the image, each in-image element counted once per copy") {
  uint64_t in_image = 0, rows = 0;
  const auto want = expected_boxes(pixels(), &in_image, &rows);
  for (unsigned blocks : {1u, 5u, 12u}) {  // one block walks all tiles; five share them unevenly; one each
    INFO("blocks: " << blocks);
    const Walk w = walk(none, blocks);
    REQUIRE(w.error == cudaSuccess);
    CHECK(last_launch().diagnostic_total() == 0);
    CHECK(w.out == want);
    const auto* n = measured_launch().array("N");
    REQUIRE(n != nullptr);
    CHECK(n->load_elements() == in_image);
    CHECK(n->loads.accesses == rows);  // one access per row of a box that holds image pixels
    CHECK(n->stores.accesses == 0);
  }
}

TEST_CASE("tile copy / reading a stage before waiting for its copy is reported at the read") {
  walk(no_wait);
  const auto& d = first(DiagnosticKind::tile_copy);
  CHECK(d.what.find("while the tensor copy into it is in flight: wait_tile() for its barrier first") != std::string::npos);
  CHECK(d.where().find(line_of("out[size_t(tile) * kBoxElements")) != std::string::npos);
}

TEST_CASE("tile copy / refilling a stage another thread reads in the same barrier interval is a race") {
  walk(no_end_barrier, 5, halo::cpu::Schedule::reverse);  // the readers run before thread 0 refills
  const auto& d = first(DiagnosticKind::shared_race);
  CHECK(d.what.find("tensor copy into element") != std::string::npos);
  CHECK(d.what.find("a __syncthreads() between the last use of a stage and the next copy into it") != std::string::npos);
}

TEST_CASE("tile copy / waiting for the wrong phase, or for a copy never issued, is reported") {
  walk(wrong_use);
  CHECK(first(DiagnosticKind::tile_copy).what.find("a GPU compares only the parity of the use") != std::string::npos);
  walk(no_copy);
  const auto& d = first(DiagnosticKind::tile_copy);
  CHECK(d.what.find("on a GPU this thread would wait forever") != std::string::npos);
  CHECK(d.where().find(line_of("if (flaw != flaw_no_wait) wait_tile")) != std::string::npos);
}

TEST_CASE("tile copy / an unaligned stage, a wait before the barrier is visible, two copies in one phase") {
  walk(unaligned);
  CHECK(first(DiagnosticKind::tile_copy).what.find("must be 128-byte aligned in shared memory (it is 4 bytes past") !=
        std::string::npos);
  walk(no_init_barrier, 1, halo::cpu::Schedule::reverse);  // thread 0 initialises after the others waited
  CHECK(last_launch().counts[int(DiagnosticKind::tile_copy)] >= 1);
  walk(two_copies);
  CHECK(first(DiagnosticKind::tile_copy).what.find("a second copy_tile_async() on a barrier") != std::string::npos);
}

TEST_CASE("tile copy / a copy nobody waits for is still read from memory, and reported when its block ends") {
  uint64_t in_image = 0, rows = 0;
  expected_boxes(pixels(), &in_image, &rows);
  const uint64_t first_box = uint64_t(kBoxW - 2) * uint64_t(kBoxH - 1);  // tile 0's box inside the image
  const unsigned blocks = 5;
  walk(unwaited_copy, blocks);
  CHECK(measured_launch().array("N")->load_elements() == in_image + blocks * first_box);
  const auto& d = first(DiagnosticKind::tile_copy);
  CHECK(d.what.find("the block ended with this tensor copy in flight") != std::string::npos);
  CHECK(d.thread.x == 31);  // the thread that issued it, not thread 0 that initialised the barrier
  CHECK(d.where().find(line_of("copy_tile_async(stages[mine % kStages]")) != std::string::npos);
}

TEST_CASE("tile copy / a map a kernel builds itself cannot reach past the array it names") {
  // The copy runs in the runtime, which no instrumentation watches: a forged map must be refused
  // before a byte is read.
  auto out = DeviceArray<float>::output("out", size_t(kTiles) * kBoxElements);
  halo::launch(tile_copy_forged, dim3(1), dim3(32), out.get(), kBoxW, kBoxH);
  cudaGetLastError();
  CHECK(first(DiagnosticKind::tile_copy).what.find("a tensor map that does not describe an image inside one array") !=
        std::string::npos);
  CHECK(last_launch().counts[int(DiagnosticKind::crash)] == 0);
  CHECK(measured_launch().array("out")->load_elements() == 0);
}

TEST_CASE("tile copy / a tensor map refuses what the driver refuses") {
  auto N = PitchedImage::input("N", pixels(), kWidth, kHeight);
  const int pitch = N.pitch_elements();
  halo::TensorMap map;
  CHECK(halo::make_tensor_map(N.get(), kWidth, kHeight, pitch, kBoxW, kBoxH, &map) == cudaSuccess);
  CHECK(halo::make_tensor_map(N.get(), kWidth, kHeight, pitch, 6, kBoxH, &map) == cudaErrorInvalidValue);  // 24-byte rows
  CHECK(halo::make_tensor_map(N.get(), kWidth, kHeight, pitch, 260, kBoxH, &map) == cudaErrorInvalidValue);
  CHECK(halo::make_tensor_map(N.get(), kWidth, kHeight, kWidth, kBoxW, kBoxH, &map) == cudaErrorInvalidValue);  // 84-byte pitch
  CHECK(halo::make_tensor_map(N.get() + 1, kWidth, kHeight, pitch, kBoxW, kBoxH, &map) == cudaErrorInvalidValue);
}
