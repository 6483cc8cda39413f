// Per-element load counts of the reference kernels, measured by the CPU backend: how many times
// each element of the input N is loaded from global memory, for the heat maps of the lessons.
// Not a test, but it checks what it measures: every output against the double-precision
// reference, no diagnostics, and each kernel's total against the chapter's formula (exit 1 when
// one differs). Small sizes, so that every element is a readable cell of a figure:
//
//   1D (7.2 basic, 7.4 tiled, 7.5 cached): Width 48, Mask_Width 5, blocks of 16 threads
//   7.6 tiled 2D: a 40 x 24 pitched image, Mask_Width 5, launched as
//       convolution_2D_tiled_launch_config says (O_TILE_WIDTH 16: blocks of 20 x 20)
//   7.8 basic 2D: the same 40 x 24 image size, r = 2, blocks of 32 x 8
//   7.8 cached 2D: 64 x 32 (TILE_DIM 32 must divide the image for the chapter's total), r = 2
//
//     cmake --build build/check --target load_heatmaps && build/check/grader/bench/load_heatmaps OUT.json
//
// ./workbook internal load-heatmaps runs it and writes docs/results/cpu-load-heatmaps.json.
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "conv1d.hpp"
#include "conv2d.hpp"
#include "device_array.hpp"
#include "halo/chapter_data.hpp"
#include "pitched_image.hpp"
#include "random_inputs.hpp"

void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width);
void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width);
cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width);  // 7.4's copy of the given M
namespace halo_heatmaps_7_5 {  // 7.5 defines M too: compiled inside a namespace (CMakeLists.txt)
void convolution_1D_cached_kernel(const float* N, float* P, int Mask_Width, int Width);
cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width);
}  // namespace halo_heatmaps_7_5
void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                 const float* __restrict__ M);
void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block);
void convolution_2D_basic_kernel(const float* N, const float* F, float* P, int r, int width, int height);
void convolution_cached_tiled_2D_const_mem_kernel(const float* N, float* P, int r, int width, int height);
cudaError_t copy_filter_to_constant(const float* h_F, int r);

namespace {

using namespace halo::test;
namespace data = halo::data;

constexpr int kWidth1D = 48, kMask1D = 5, kBlock1D = 16;
constexpr int kWidth2D = 40, kHeight2D = 24, kMask2D = 5;
constexpr int kCachedWidth2D = 64, kCachedHeight2D = 32;

struct Entry {
  std::string section, kernel, note;
  int width = 0, height = 1, mask = 0;
  dim3 grid, block;
  dim3 tile;                     // elements of N (outputs) per block along x and y: where tiles meet
  std::vector<uint32_t> counts;  // per element of N, row by row
  uint64_t total = 0;            // the launch's load_elements() of N
  double formula_total = 0;
  std::string formula;           // how formula_total was computed, e.g. "tiled_1d_loads_total(48, 16, 5)"
};

std::vector<std::string> problems;

void problem(const std::string& what) {
  problems.push_back(what);
  std::fprintf(stderr, "load_heatmaps: %s\n", what.c_str());
}

void require(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + " failed: " + cudaGetErrorName(e));
}

// After a launch: no diagnostics, and N's counts (width elements per row, `pitch` apart; the
// padding between must stay unread) with their sum, which must equal the launch's total.
void take_counts(Entry& e, cudaError_t launch_error, int pitch) {
  const std::string who = e.section + " " + e.kernel;
  require(launch_error, who + " launch");
  const auto& rec = halo::cpu::last_launch();
  if (rec.diagnostic_total() != 0) problem(who + ": " + rec.diagnostics_report());
  const auto* N = rec.array("N");
  if (!N || N->element_loads.size() < size_t(pitch) * size_t(e.height)) {
    problem(who + ": no per-element counts of N");
    return;
  }
  e.grid = rec.grid;
  e.block = rec.block;
  e.tile = rec.block;  // one output per thread; 7.6 says otherwise
  e.total = N->load_elements();
  e.counts.clear();
  for (int row = 0; row < e.height; ++row)
    for (int col = 0; col < pitch; ++col) {
      const uint32_t c = N->element_loads[size_t(row) * size_t(pitch) + size_t(col)];
      if (col < e.width) e.counts.push_back(c);
      else if (c != 0) problem(who + ": padding of row " + std::to_string(row) + " was read");
    }
  const uint64_t sum = std::accumulate(e.counts.begin(), e.counts.end(), uint64_t(0));
  if (sum != e.total)
    problem(who + ": per-element counts add up to " + std::to_string(sum) + ", the launch counted " +
            std::to_string(e.total));
}

void check_output(const Entry& e, const std::vector<float>& P, const Reference& want) {
  const Verdict v = compare_outputs("P", P, want);
  if (!v.ok) problem(e.section + " " + e.kernel + ": wrong output: " + v.message);
}

std::string args(std::initializer_list<double> values) {
  std::string s;
  for (double v : values) {
    if (!s.empty()) s += ", ";
    std::ostringstream o;
    o << v;
    s += o.str();
  }
  return s;
}

Entry basic_1d(Rng& rng) {
  Entry e{"7.2", "convolution_1D_basic_kernel", "", kWidth1D, 1, kMask1D};
  const auto N = rng.signal(kWidth1D), M = rng.mask(kMask1D);
  auto dN = DeviceArray<float>::input("N", N);
  auto dM = DeviceArray<float>::input("M", M);
  auto dP = DeviceArray<float>::output("P", kWidth1D);
  take_counts(e,
              halo::launch(convolution_1D_basic_kernel, dim3(halo::blocks_for(kWidth1D, kBlock1D)), dim3(kBlock1D),
                           dN.get(), dM.get(), dP.get(), kMask1D, kWidth1D),
              kWidth1D);
  check_output(e, dP.download(), conv1d_reference(N, M));
  e.formula = "basic_1d_loads_total(" + args({kWidth1D, kMask1D}) + ")";
  e.formula_total = data::basic_1d_loads_total(kWidth1D, kMask1D);
  return e;
}

Entry tiled_1d(Rng& rng) {
  Entry e{"7.4", "convolution_1D_tiled_kernel", "", kWidth1D, 1, kMask1D};
  const auto N = rng.signal(kWidth1D), M = rng.mask(kMask1D);
  require(copy_mask_to_constant(M.data(), kMask1D), "copy_mask_to_constant");
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", kWidth1D);
  take_counts(e,
              halo::launch(convolution_1D_tiled_kernel, dim3(halo::blocks_for(kWidth1D, kBlock1D)), dim3(kBlock1D),
                           dN.get(), dP.get(), kMask1D, kWidth1D),
              kWidth1D);
  check_output(e, dP.download(), conv1d_reference(N, M));
  e.formula = "tiled_1d_loads_total(" + args({kWidth1D, kBlock1D, kMask1D}) + ")";
  e.formula_total = data::tiled_1d_loads_total(kWidth1D, kBlock1D, kMask1D);
  return e;
}

Entry cached_1d(Rng& rng) {
  Entry e{"7.5", "convolution_1D_cached_kernel", "", kWidth1D, 1, kMask1D};
  const auto N = rng.signal(kWidth1D), M = rng.mask(kMask1D);
  require(halo_heatmaps_7_5::copy_mask_to_constant(M.data(), kMask1D), "copy_mask_to_constant");
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", kWidth1D);
  take_counts(e,
              halo::launch(halo_heatmaps_7_5::convolution_1D_cached_kernel, dim3(halo::blocks_for(kWidth1D, kBlock1D)),
                           dim3(kBlock1D), dN.get(), dP.get(), kMask1D, kWidth1D),
              kWidth1D);
  check_output(e, dP.download(), conv1d_reference(N, M));
  e.formula = "cached_1d_global_accesses_total(" + args({kWidth1D, kBlock1D, kMask1D}) + ")";
  e.formula_total = data::cached_1d_global_accesses_total(kWidth1D, kBlock1D, kMask1D);
  return e;
}

Entry tiled_2d(Rng& rng) {
  Entry e{"7.6", "convolution_2D_tiled_kernel", "pitched image: N's padding columns are never read and not shown",
          kWidth2D, kHeight2D, kMask2D};
  const auto N = rng.signal(size_t(kWidth2D) * kHeight2D), M = rng.mask(size_t(kMask2D) * kMask2D);
  auto dN = PitchedImage::input("N", N, kWidth2D, kHeight2D);
  auto dP = PitchedImage::output("P", kWidth2D, kHeight2D);
  auto dM = DeviceArray<float>::input("M", M);
  dim3 grid{0, 0, 0}, block{0, 0, 0};
  convolution_2D_tiled_launch_config(kWidth2D, kHeight2D, kMask2D, &grid, &block);
  const float* in = dN.get();
  const float* mask = dM.get();
  take_counts(e,
              halo::launch(convolution_2D_tiled_kernel, grid, block, in, dP.get(), kHeight2D, kWidth2D,
                           dP.pitch_elements(), kMask2D, mask),
              dN.pitch_elements());
  check_output(e, dP.download(), conv2d_reference(N, kWidth2D, kHeight2D, M, kMask2D));
  if (!dP.padding_untouched().ok) problem("7.6: P's padding was written");
  e.tile = dim3(data::defines::O_TILE_WIDTH, data::defines::O_TILE_WIDTH);  // blocks are wider than their output tiles
  // The chapter has the count per block; the total is their sum over the grid.
  const double T = data::defines::O_TILE_WIDTH;
  e.formula = "sum of tiled_2d_loads_block(blockRow, blockCol, " + args({kWidth2D, kHeight2D, T, kMask2D}) +
              ") over blockRow < " + std::to_string(grid.y) + ", blockCol < " + std::to_string(grid.x);
  for (unsigned row = 0; row < grid.y; ++row)
    for (unsigned col = 0; col < grid.x; ++col)
      e.formula_total += data::tiled_2d_loads_block(row, col, kWidth2D, kHeight2D, T, kMask2D);
  return e;
}

Entry basic_2d(Rng& rng) {
  Entry e{"7.8", "convolution_2D_basic_kernel", "", kWidth2D, kHeight2D, kMask2D};
  const int r = kMask2D / 2;
  const auto N = rng.signal(size_t(kWidth2D) * kHeight2D), F = rng.mask(size_t(kMask2D) * kMask2D);
  auto dN = DeviceArray<float>::input("N", N);
  auto dF = DeviceArray<float>::input("F", F);
  auto dP = DeviceArray<float>::output("P", size_t(kWidth2D) * kHeight2D);
  const unsigned bx = unsigned(data::measurements::basic_2d_large.blockDimX);
  const unsigned by = unsigned(data::measurements::basic_2d_large.blockDimY);
  take_counts(e,
              halo::launch(convolution_2D_basic_kernel, dim3(halo::blocks_for(kWidth2D, bx), halo::blocks_for(kHeight2D, by)),
                           dim3(bx, by), dN.get(), dF.get(), dP.get(), r, kWidth2D, kHeight2D),
              kWidth2D);
  check_output(e, dP.download(), conv2d_reference(N, kWidth2D, kHeight2D, F, kMask2D));
  e.formula = "basic_2d_loads_total(" + args({kWidth2D, kHeight2D, kMask2D}) + ")";
  e.formula_total = data::basic_2d_loads_total(kWidth2D, kHeight2D, kMask2D);
  return e;
}

Entry cached_2d(Rng& rng) {
  const int w = kCachedWidth2D, h = kCachedHeight2D, r = kMask2D / 2;
  Entry e{"7.8", "convolution_cached_tiled_2D_const_mem_kernel", "", w, h, kMask2D};
  const auto N = rng.signal(size_t(w) * h), F = rng.mask(size_t(kMask2D) * kMask2D);
  require(copy_filter_to_constant(F.data(), r), "copy_filter_to_constant");
  auto dN = DeviceArray<float>::input("N", N);
  auto dP = DeviceArray<float>::output("P", size_t(w) * h);
  const unsigned T = data::defines::TILE_DIM;
  take_counts(e,
              halo::launch(convolution_cached_tiled_2D_const_mem_kernel, dim3(halo::blocks_for(w, T), halo::blocks_for(h, T)),
                           dim3(T, T), dN.get(), dP.get(), r, w, h),
              w);
  check_output(e, dP.download(), conv2d_reference(N, w, h, F, kMask2D));
  e.formula = "cached_2d_blocks(" + args({double(w), double(h), double(T)}) + ") * cached_2d_tile_loads_internal_block(" +
              args({double(T)}) + ") + cached_2d_halo_loads_total(" + args({double(w), double(h), double(T), kMask2D}) + ")";
  e.formula_total = data::cached_2d_blocks(w, h, T) * data::cached_2d_tile_loads_internal_block(T) +
                    data::cached_2d_halo_loads_total(w, h, T, kMask2D);
  return e;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One kernel per object; counts one image row per line, so the file reads like the figure.
std::string to_json(const std::vector<Entry>& entries) {
  std::ostringstream o;
  o << "{\n  \"generated_by\": \"./workbook internal load-heatmaps (grader/bench/load_heatmaps.cpp)\",\n"
    << "  \"what\": \"global loads of each element of the input N by the reference kernels, measured by the CPU "
       "backend; counts are row by row, width per row\",\n  \"kernels\": [\n";
  for (size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    o << "    {\n      \"section\": " << quoted(e.section) << ",\n      \"kernel\": " << quoted(e.kernel)
      << ",\n      \"array\": \"N\",\n      \"width\": " << e.width << ",\n      \"height\": " << e.height
      << ",\n      \"mask\": " << e.mask << ",\n      \"block\": [" << e.block.x << ", " << e.block.y
      << "],\n      \"grid\": [" << e.grid.x << ", " << e.grid.y << "],\n      \"tile\": [" << e.tile.x << ", "
      << e.tile.y << "],\n";
    if (!e.note.empty()) o << "      \"note\": " << quoted(e.note) << ",\n";
    o << "      \"total\": " << e.total << ",\n      \"formula\": " << quoted(e.formula)
      << ",\n      \"formula_total\": " << uint64_t(e.formula_total) << ",\n      \"counts\": [";
    for (int row = 0; row < e.height; ++row) {
      o << (e.height > 1 ? "\n        " : "");
      for (int col = 0; col < e.width; ++col) {
        const size_t i = size_t(row) * size_t(e.width) + size_t(col);
        o << (i < e.counts.size() ? e.counts[i] : 0) << (i + 1 < size_t(e.width) * e.height ? ", " : "");
      }
    }
    o << (e.height > 1 ? "\n      ]" : "]") << "\n    }" << (k + 1 < entries.size() ? "," : "") << "\n";
  }
  o << "  ]\n}\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
    return 2;
  }
  halo::cpu::set_count_per_element(true);
  Rng rng(0x4EA7);
  std::vector<Entry> entries;
  try {
    for (auto run : {basic_1d, tiled_1d, cached_1d, tiled_2d, basic_2d, cached_2d}) entries.push_back(run(rng));
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "load_heatmaps: %s\n", ex.what());
    return 1;
  }
  std::printf("per-element loads of N (inputs from HALO_SEED=%llu; the counts do not depend on them)\n",
              static_cast<unsigned long long>(run_seed()));
  for (const Entry& e : entries) {
    const bool same = double(e.total) == e.formula_total;
    std::printf("  %s %-46s %2d x %-2d mask %d, blocks of %u x %u: %6llu loads; %s = %.0f%s\n", e.section.c_str(),
                e.kernel.c_str(), e.width, e.height, e.mask, e.block.x, e.block.y,
                static_cast<unsigned long long>(e.total), e.formula.c_str(), e.formula_total, same ? "" : "  DIFFERS");
    if (!same) problem(e.section + " " + e.kernel + ": the total differs from the chapter's formula");
  }
  if (!problems.empty()) return 1;
  std::ofstream out(argv[1]);
  out << to_json(entries);
  if (!out) {
    std::fprintf(stderr, "load_heatmaps: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("wrote %s\n", argv[1]);
  return 0;
}
