// Section 7.9's tuning program: times each step of the speed-of-light kernel on a GPU against
// a device-to-device copy of the same bytes, on 8192 x 8192 floats with 3 x 3 to 9 x 9
// filters, and writes what it measured as JSON and Markdown. Build and run it with run.sh
// (nvcc only, from the repository root).
//
//   v0  one output per thread, N read from global memory (through L1), F in constant memory
//   v1  a shared tile; each thread computes a 4 x ROWS strip, a row of the tile in registers
//       reused for every output row that needs it; 4-byte loads and stores
//   v2  v1 with 16-byte (float4) loads and stores, one load in flight per thread at a time
//   v3  v2 with all of a thread's tile loads issued before its first shared store
//   v4  the solution (solutions/7.9-speed-of-light, included below, not copied): v3 where a
//       block wholly inside the image loads and stores without a bounds test per vector
//   v5  part 2 of the solution (convolution_2d_tensor_copies.cu, included below), Hopper only:
//       the tile comes by one tensor copy, several tiles ahead, on a persistent grid
//   sweep  v4 with other block shapes and rows per thread, 5 x 5 filter
//
// Every version is checked first against a double-precision CPU reference (outputs poisoned
// before the launch): fully on an awkward 1003 x 517 image, and on sampled rows of the 8192^2
// one. Times are medians of 25 runs after 3 warm-up runs, each after the L2 cache is flushed,
// by the GPU benchmark's own Timer (grader/bench/gpu/timing.cu), so that these numbers and
// `./workbook bench`'s follow one protocol. cuDNN is not timed here: `./workbook bench` times
// it in the same run as the 7.9 kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "grader/bench/gpu/timing.hpp"
#include "solutions/7.9-speed-of-light/convolution_2d_speed_of_light.cu"
#include "solutions/7.9-speed-of-light/convolution_2d_tensor_copies.cu"
#include "grader/bench/gpu/tensor_copies_launch.hpp"

// bench.hpp only declares this (HALO_CUDA_CHECK and timing.cu call it); each program that links
// timing.cu defines it. A failed CUDA call ends the run: a partial table would mislead.
[[noreturn]] void halo::bench::fail_cuda(const char* what, cudaError_t err, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, what, cudaGetErrorName(err), cudaGetErrorString(err));
  std::exit(1);
}

namespace {

constexpr int kBX = SOL_BLOCK_X, kBY = SOL_BLOCK_Y, kRows = SOL_ROWS_PER_THREAD;

// ---------------------------------------------------------------- v0: one output per thread
template <int R>
__global__ void __launch_bounds__(256) conv_v0(const float* __restrict__ N, float* __restrict__ P, int width, int height,
                                               int pitch) {
  const int col = int(blockIdx.x * blockDim.x + threadIdx.x), row = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (row >= height || col >= width) return;
  float sum = 0.0f;
#pragma unroll
  for (int fRow = 0; fRow <= 2 * R; ++fRow) {
    const int inRow = row - R + fRow;
    if (inRow < 0 || inRow >= height) continue;
#pragma unroll
    for (int fCol = 0; fCol <= 2 * R; ++fCol) {
      const int inCol = col - R + fCol;
      if (inCol >= 0 && inCol < width) sum += F_c[fRow * (2 * R + 1) + fCol] * N[size_t(inRow) * pitch + inCol];
    }
  }
  P[size_t(row) * pitch + col] = sum;
}

// ---------------------------------------------------------------- v1: strips, register reuse, 4-byte accesses
template <int R, int BX = kBX, int BY = kBY, int ROWS = kRows>
__global__ void __launch_bounds__(BX * BY) conv_v1(const float* __restrict__ N, float* __restrict__ P, int width,
                                                   int height, int pitch) {
  constexpr int THREADS = BX * BY, TILE_W = 4 * BX, TILE_H = ROWS * BY, IN_W = TILE_W + 8, IN_H = TILE_H + 2 * R;
  __shared__ float N_s[IN_H][IN_W];
  const int t = int(threadIdx.y) * BX + int(threadIdx.x);
  const int row0 = int(blockIdx.y) * TILE_H - R, col0 = int(blockIdx.x) * TILE_W - 4;
#pragma unroll 1
  for (int e = t; e < IN_H * IN_W; e += THREADS) {
    const int r = row0 + e / IN_W, c = col0 + e % IN_W;
    N_s[e / IN_W][e % IN_W] = (r >= 0 && r < height && c >= 0 && c < width) ? N[size_t(r) * pitch + c] : 0.0f;
  }
  __syncthreads();
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  float acc[ROWS][4] = {};
#pragma unroll
  for (int i = 0; i < ROWS + 2 * R; ++i) {
    float w[12];
#pragma unroll
    for (int k = 0; k < 12; ++k) w[k] = N_s[ty * ROWS + i][4 * tx + k];
#pragma unroll
    for (int o = 0; o < ROWS; ++o) {
      const int fRow = i - o;
      if (fRow < 0 || fRow > 2 * R) continue;
#pragma unroll
      for (int fCol = 0; fCol <= 2 * R; ++fCol) {
        const float f = F_c[fRow * (2 * R + 1) + fCol];
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[o][q] += f * w[4 + q - R + fCol];
      }
    }
  }
  const int outCol = int(blockIdx.x) * TILE_W + 4 * tx;
#pragma unroll
  for (int o = 0; o < ROWS; ++o) {
    const int row = int(blockIdx.y) * TILE_H + ty * ROWS + o;
    if (row >= height) continue;
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (outCol + q < width) P[size_t(row) * pitch + outCol + q] = acc[o][q];
  }
}

// ---------------------------------------------------------------- v2 and v3: float4 tiles
// Their common second half (and v5's): each thread's 4 x ROWS strip of the output tile whose
// first row and column are tileRow, tileCol, a tile row's 12-pixel window in registers at a time.
// Stored with store_vector, or, with FAST_STORES, with plain float4 stores when the whole output
// tile lies inside the image (v4's second habit).
template <int R, int BX, int BY, int ROWS, bool FAST_STORES = false, int IN_H, int IN_W4>
__device__ __forceinline__ void strip_from_tile(const float4 (&N_s)[IN_H][IN_W4], float* __restrict__ P, int width,
                                                int height, int pitch, int tileRow, int tileCol) {
  constexpr int TILE_W = 4 * BX, TILE_H = ROWS * BY;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  float acc[ROWS][4] = {};
#pragma unroll
  for (int i = 0; i < ROWS + 2 * R; ++i) {
    const float4 a = N_s[ty * ROWS + i][tx], b = N_s[ty * ROWS + i][tx + 1], c = N_s[ty * ROWS + i][tx + 2];
    const float w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
    for (int o = 0; o < ROWS; ++o) {
      const int fRow = i - o;
      if (fRow < 0 || fRow > 2 * R) continue;
#pragma unroll
      for (int fCol = 0; fCol <= 2 * R; ++fCol) {
        const float f = F_c[fRow * (2 * R + 1) + fCol];
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[o][q] += f * w[4 + q - R + fCol];
      }
    }
  }
  const int outRow = tileRow + ty * ROWS, outCol = tileCol + 4 * tx;
  if (FAST_STORES && tileRow + TILE_H <= height && tileCol + TILE_W <= width) {
    float* out = P + size_t(outRow) * size_t(pitch) + size_t(outCol);
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
      *reinterpret_cast<float4*>(out + size_t(o) * size_t(pitch)) = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    return;
  }
#pragma unroll
  for (int o = 0; o < ROWS; ++o)
    store_vector(P, outRow + o, outCol, width, height, pitch, make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]));
}

// v2: v1 with float4 accesses, one vector in flight per thread.
template <int R, int BX = kBX, int BY = kBY, int ROWS = kRows>
__global__ void __launch_bounds__(BX * BY) conv_v2(const float* __restrict__ N, float* __restrict__ P, int width,
                                                   int height, int pitch) {
  constexpr int THREADS = BX * BY, TILE_W = 4 * BX, TILE_H = ROWS * BY, IN_W4 = BX + 2, IN_H = TILE_H + 2 * R;
  __shared__ float4 N_s[IN_H][IN_W4];
  const int t = int(threadIdx.y) * BX + int(threadIdx.x);
  const int row0 = int(blockIdx.y) * TILE_H - R, col0 = int(blockIdx.x) * TILE_W - 4;
#pragma unroll 1
  for (int e = t; e < IN_H * IN_W4; e += THREADS)  // one vector in flight per thread
    N_s[e / IN_W4][e % IN_W4] = load_vector(N, row0 + e / IN_W4, col0 + 4 * (e % IN_W4), width, height, pitch);
  __syncthreads();
  strip_from_tile<R, BX, BY, ROWS>(N_s, P, width, height, pitch, int(blockIdx.y) * TILE_H, int(blockIdx.x) * TILE_W);
}

// v3: v2 with all of a thread's tile loads issued before its first shared store (the solution
// before step 4: every vector still goes through load_vector's bounds tests).
template <int R, int BX = kBX, int BY = kBY, int ROWS = kRows>
__global__ void __launch_bounds__(BX * BY) conv_v3(const float* __restrict__ N, float* __restrict__ P, int width,
                                                   int height, int pitch) {
  constexpr int THREADS = BX * BY, TILE_W = 4 * BX, TILE_H = ROWS * BY, IN_W4 = BX + 2, IN_H = TILE_H + 2 * R;
  constexpr int VECTORS = IN_W4 * IN_H, LOADS = (VECTORS + THREADS - 1) / THREADS;
  __shared__ float4 N_s[IN_H][IN_W4];
  const int t = int(threadIdx.y) * BX + int(threadIdx.x);
  const int row0 = int(blockIdx.y) * TILE_H - R, col0 = int(blockIdx.x) * TILE_W - 4;
  float4 v[LOADS] = {};
#pragma unroll
  for (int k = 0; k < LOADS; ++k)
    if (t + k * THREADS < VECTORS)
      v[k] = load_vector(N, row0 + (t + k * THREADS) / IN_W4, col0 + 4 * ((t + k * THREADS) % IN_W4), width, height, pitch);
#pragma unroll
  for (int k = 0; k < LOADS; ++k)
    if (t + k * THREADS < VECTORS) N_s[(t + k * THREADS) / IN_W4][(t + k * THREADS) % IN_W4] = v[k];
  __syncthreads();
  strip_from_tile<R, BX, BY, ROWS>(N_s, P, width, height, pitch, int(blockIdx.y) * TILE_H, int(blockIdx.x) * TILE_W);
}

// A float4 copy kernel: the copy's other measure, beside cudaMemcpy.
__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// ---------------------------------------------------------------- the runs

}  // namespace

namespace {

using Kernel = void (*)(const float*, float*, int, int, int);
using Launcher = cudaError_t (*)(const float*, float*, int, int, int);

struct Variant {
  std::string version;  // v0 .. v5, sweep
  int r;
  Kernel kernel;  // launched on a grid of tiles; or, where `launch` is set, only its attributes are read
  dim3 block;
  int tileW, tileH;  // outputs per block
  int bx, by, rows;
  Launcher launch = nullptr;  // v5: picks its own grid (persistent) and passes a tensor map
};

cudaError_t run_variant(const Variant& v, const float* N, float* P, int width, int height, int pitch) {
  if (v.launch) return v.launch(N, P, width, height, pitch);
  const dim3 grid((width + v.tileW - 1) / v.tileW, (height + v.tileH - 1) / v.tileH);
  v.kernel<<<grid, v.block>>>(N, P, width, height, pitch);
  return cudaGetLastError();
}

// v5: the solution's part 2, launched as the benchmark launches it (tensor_copies_launch.hpp); its
// shape per radius is the solution's own (shape_for).
template <int R>
cudaError_t launch_v5(const float* N, float* P, int width, int height, int pitch) {
  return halo::bench::launch_tensor_copies(convolution_2D_tensor_copies_launch_config,
                                           convolution_2D_tensor_copies_kernel<R>, N, P, width, height, pitch, R);
}
template <int R>
Variant v5_variant() {
  constexpr TileShape S = shape_for(R);
  return {"v5", R, reinterpret_cast<Kernel>(convolution_2D_tensor_copies_kernel<R>), dim3(S.block_x, S.block_y),
          4 * S.block_x, S.block_y * S.rows, S.block_x, S.block_y, S.rows, launch_v5<R>};
}

template <int R>
void add_steps(std::vector<Variant>& out) {
  out.push_back({"v0", R, conv_v0<R>, dim3(32, 8), 32, 8, 32, 8, 1});
  out.push_back({"v1", R, conv_v1<R>, dim3(kBX, kBY), 4 * kBX, kBY * kRows, kBX, kBY, kRows});
  out.push_back({"v2", R, conv_v2<R>, dim3(kBX, kBY), 4 * kBX, kBY * kRows, kBX, kBY, kRows});
  out.push_back({"v3", R, conv_v3<R>, dim3(kBX, kBY), 4 * kBX, kBY * kRows, kBX, kBY, kRows});
  out.push_back({"v4", R, convolution_2D_speed_of_light_kernel<R>, dim3(kBX, kBY), 4 * kBX, kBY * kRows, kBX, kBY,
                 kRows});
  out.push_back(v5_variant<R>());
}

template <int BX, int BY, int ROWS>
void add_sweep(std::vector<Variant>& out) {
  out.push_back({"sweep", 2, convolution_2D_speed_of_light_kernel<2, BX, BY, ROWS>, dim3(BX, BY), 4 * BX, BY * ROWS, BX,
                 BY, ROWS});
}

struct Image {
  float* N = nullptr;
  float* P = nullptr;
  int width = 0, height = 0, pitch = 0;
};

Image make_image(int width, int height, const std::vector<float>& host) {
  Image im;
  im.width = width, im.height = height;
  size_t pitch_bytes = 0;
  HALO_CUDA_CHECK(cudaMallocPitch((void**)&im.N, &pitch_bytes, size_t(width) * sizeof(float), size_t(height)));
  size_t p2 = 0;
  HALO_CUDA_CHECK(cudaMallocPitch((void**)&im.P, &p2, size_t(width) * sizeof(float), size_t(height)));
  if (p2 != pitch_bytes || pitch_bytes % 16) {
    std::fprintf(stderr, "unexpected pitches %zu %zu\n", pitch_bytes, p2);
    std::exit(1);
  }
  im.pitch = int(pitch_bytes / sizeof(float));
  HALO_CUDA_CHECK(cudaMemcpy2D(im.N, pitch_bytes, host.data(), size_t(width) * sizeof(float),
                               size_t(width) * sizeof(float), size_t(height), cudaMemcpyHostToDevice));
  return im;
}

double ref_at(const std::vector<float>& N, int width, int height, const std::vector<float>& F, int r, int row, int col,
              double* mag) {
  double s = 0, m = 0;
  for (int i = 0; i <= 2 * r; ++i)
    for (int j = 0; j <= 2 * r; ++j) {
      const int y = row - r + i, x = col - r + j;
      if (y < 0 || y >= height || x < 0 || x >= width) continue;
      const double term = double(F[size_t(i) * (2 * r + 1) + j]) * N[size_t(y) * width + x];
      s += term, m += std::fabs(term);
    }
  *mag = m;
  return s;
}

// Launches v on im with P poisoned, and compares the rows `rows` (all when empty) with the
// reference; returns the largest error relative to the sum of the terms' magnitudes (inf when
// an output is unwritten or NaN).
double validate(const Variant& v, const Image& im, const std::vector<float>& N, const std::vector<float>& F,
                const std::vector<int>& rows) {
  // NaN poison: an output the kernel never writes fails the comparison.
  HALO_CUDA_CHECK(cudaMemset2D(im.P, size_t(im.pitch) * 4, 0xFF, size_t(im.width) * 4, size_t(im.height)));
  HALO_CUDA_CHECK(run_variant(v, im.N, im.P, im.width, im.height, im.pitch));
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> check = rows;
  if (check.empty())
    for (int y = 0; y < im.height; ++y) check.push_back(y);
  std::vector<float> line(size_t(im.width));
  double worst = 0;
  for (int y : check) {
    HALO_CUDA_CHECK(cudaMemcpy(line.data(), im.P + size_t(y) * im.pitch, size_t(im.width) * 4, cudaMemcpyDeviceToHost));
    for (int x = 0; x < im.width; ++x) {
      double mag;
      const double want = ref_at(N, im.width, im.height, F, v.r, y, x, &mag);
      if (!std::isfinite(line[size_t(x)])) return INFINITY;
      worst = std::max(worst, std::fabs(line[size_t(x)] - want) / std::max(mag, 1e-30));
    }
  }
  return worst;
}

constexpr int kWarmup = 3, kRuns = 25;

// Median and minimum milliseconds of `enqueue`'s runs, each after an L2 flush and timed on its
// own by the GPU benchmark's Timer (the same inputs each run: these are the reference steps, not
// a submission, and every step is validated before it is timed). A failed run ends the program
// like a failed CUDA call: its time would be meaningless and every later run suspect.
std::pair<double, double> time_or_exit(halo::bench::Timer& timer, const char* what,
                                       const std::function<cudaError_t()>& enqueue) {
  std::vector<double> ms;
  for (int k = 0; k < kWarmup + kRuns; ++k) {
    std::string error = timer.flush();
    halo::bench::CallResult r;
    if (error.empty()) r = timer.call(enqueue, /*timed=*/k >= kWarmup), error = r.error;
    if (!error.empty()) {
      std::fprintf(stderr, "timing %s: %s\n", what, error.c_str());
      std::exit(1);
    }
    if (k >= kWarmup) ms.push_back(r.ms);
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return {n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]), ms.front()};
}

struct Row {
  std::string version;
  int mask, bx, by, rows;
  double ms, ms_min, gbps, frac, max_rel_err_small, max_rel_err_8k;
  bool valid;
  int regs;
};

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    o += ch;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows through a pipe, even if a run is cut short
  const std::string outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop{};
  HALO_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  HALO_CUDA_CHECK(cudaDriverGetVersion(&driver));
  HALO_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("device: %s, %d SMs, L2 %d MB, driver %d, runtime %d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, driver, runtime);

  std::vector<Variant> variants;
  add_steps<1>(variants);
  add_steps<2>(variants);
  add_steps<3>(variants);
  add_steps<4>(variants);
  add_sweep<32, 8, 8>(variants);  // the shape before v4 (SOL 32 x 8 threads, 8 rows)
  add_sweep<32, 8, 4>(variants);
  add_sweep<32, 4, 8>(variants);
  add_sweep<16, 16, 4>(variants);
  add_sweep<64, 4, 8>(variants);
  add_sweep<64, 2, 8>(variants);
  add_sweep<128, 2, 4>(variants);
  add_sweep<128, 1, 8>(variants);

  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> pick(-32, 32);
  auto random_floats = [&](size_t n, float scale) {
    std::vector<float> v(n);
    for (auto& x : v) x = float(pick(rng)) / scale;
    return v;
  };

  const int W = 8192, H = 8192, sw = 1003, sh = 517;
  const auto N8 = random_floats(size_t(W) * H, 8.0f), Ns = random_floats(size_t(sw) * sh, 8.0f);
  Image big = make_image(W, H, N8), small = make_image(sw, sh, Ns);
  std::vector<int> sample_rows;
  for (int y = 0; y < H; y += 61) sample_rows.push_back(y);
  for (int y : {1, 2, 3, 4, H - 5, H - 4, H - 3, H - 2, H - 1}) sample_rows.push_back(y);
  std::vector<std::vector<float>> filters(5);
  for (int r = 1; r <= 4; ++r) filters[r] = random_floats(size_t(2 * r + 1) * (2 * r + 1), 16.0f);

  halo::bench::Timer timer{size_t(prop.l2CacheSize)};
  const double bytes = 2.0 * double(W) * H * sizeof(float);  // N read once, P written once
  // The copy: cudaMemcpy device to device and a float4 copy kernel of the same bytes (dense).
  float *cin = nullptr, *cout = nullptr;
  HALO_CUDA_CHECK(cudaMalloc(&cin, size_t(W) * H * 4));
  HALO_CUDA_CHECK(cudaMalloc(&cout, size_t(W) * H * 4));
  HALO_CUDA_CHECK(cudaMemcpy(cin, N8.data(), size_t(W) * H * 4, cudaMemcpyHostToDevice));
  const auto memcpy_t = time_or_exit(timer, "cudaMemcpyAsync", [&] {
    return cudaMemcpyAsync(cout, cin, size_t(W) * H * 4, cudaMemcpyDeviceToDevice);
  });
  const auto kcopy_t = time_or_exit(timer, "copy_float4", [&] {
    copy_float4<<<prop.multiProcessorCount * 8, 512>>>((const float4*)cin, (float4*)cout, size_t(W) * H / 4);
    return cudaGetLastError();
  });
  const double copy_ms = std::min(memcpy_t.first, kcopy_t.first);
  std::printf("copy of %.0f MB (in + out): cudaMemcpy %.4f ms (%.0f GB/s), float4 kernel %.4f ms (%.0f GB/s)\n",
              bytes / 1e6, memcpy_t.first, bytes / memcpy_t.first / 1e6, kcopy_t.first, bytes / kcopy_t.first / 1e6);

  std::vector<Row> rows;
  std::printf("\n%-6s %-5s %-12s %9s %9s %8s %7s %5s %s\n", "ver", "mask", "block x rows", "ms", "min ms", "GB/s",
              "of copy", "regs", "max rel err (1003x517, 8192^2 rows)");
  for (const Variant& v : variants) {
    HALO_CUDA_CHECK(cudaMemcpyToSymbol(F_c, filters[v.r].data(), filters[v.r].size() * 4));
    HALO_CUDA_CHECK(cudaMemcpyToSymbol(F_t, filters[v.r].data(), filters[v.r].size() * 4));  // part 2 (v5) has its own
    Row row{v.version, 2 * v.r + 1, v.bx, v.by, v.rows, 0, 0, 0, 0, 0, 0, false, 0};
    cudaFuncAttributes attr{};
    HALO_CUDA_CHECK(cudaFuncGetAttributes(&attr, (const void*)v.kernel));
    row.regs = attr.numRegs;
    std::fprintf(stderr, "[%s r=%d %dx%d x %d]\n", v.version.c_str(), v.r, v.bx, v.by, v.rows);
    row.max_rel_err_small = validate(v, small, Ns, filters[v.r], {});
    row.max_rel_err_8k = validate(v, big, N8, filters[v.r], sample_rows);
    row.valid = row.max_rel_err_small < 1e-5 && row.max_rel_err_8k < 1e-5;
    const auto t = time_or_exit(timer, v.version.c_str(),
                                [&] { return run_variant(v, big.N, big.P, W, H, big.pitch); });
    row.ms = t.first, row.ms_min = t.second;
    row.gbps = bytes / row.ms / 1e6;
    row.frac = copy_ms / row.ms;
    rows.push_back(row);
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%d x %d", v.bx, v.by, v.rows);
    std::printf("%-6s %dx%-3d %-12s %9.4f %9.4f %8.0f %6.1f%% %5d %.2e %.2e%s\n", v.version.c_str(), row.mask, row.mask,
                shape, row.ms, row.ms_min, row.gbps, 100 * row.frac, row.regs, row.max_rel_err_small,
                row.max_rel_err_8k, row.valid ? "" : "  INVALID");
  }

  // ---- JSON and Markdown
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const std::string json_path = outdir + "/gpu-7.9-steps.json", md_path = outdir + "/gpu-7.9-steps.md";
  FILE* j = std::fopen(json_path.c_str(), "w");
  if (!j) {
    std::perror(json_path.c_str());
    return 1;
  }
  std::fprintf(j, "{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"l2_bytes\": %d,\n  \"driver\": %d,\n  \"runtime\": %d,\n",
               json_escape(prop.name).c_str(), prop.multiProcessorCount, prop.l2CacheSize, driver, runtime);
  std::fprintf(j, "  \"date\": \"%s\",\n  \"width\": %d,\n  \"height\": %d,\n  \"bytes_moved\": %.0f,\n", date, W, H, bytes);
  std::fprintf(j, "  \"warmup\": %d,\n  \"runs\": %d,\n  \"statistic\": \"median after an L2 flush\",\n",
               kWarmup, kRuns);
  std::fprintf(j, "  \"copy\": {\"memcpy_ms\": %.5f, \"kernel_ms\": %.5f, \"ms\": %.5f, \"gbps\": %.1f},\n", memcpy_t.first,
               kcopy_t.first, copy_ms, bytes / copy_ms / 1e6);
  std::fprintf(j, "  \"default_shape\": {\"block_x\": %d, \"block_y\": %d, \"rows_per_thread\": %d},\n", kBX, kBY, kRows);
  std::fprintf(j, "  \"results\": [\n");
  for (size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    std::fprintf(j,
                 "    {\"version\": \"%s\", \"mask\": %d, \"block_x\": %d, \"block_y\": %d, \"rows_per_thread\": %d, "
                 "\"ms\": %.5f, \"ms_min\": %.5f, \"gbps\": %.1f, \"fraction_of_copy\": %.4f, \"registers\": %d, "
                 "\"max_rel_err_small\": %.3g, \"max_rel_err_8k_rows\": %.3g, \"valid\": %s}%s\n",
                 r.version.c_str(), r.mask, r.bx, r.by, r.rows, r.ms, r.ms_min, r.gbps, r.frac, r.regs,
                 r.max_rel_err_small, r.max_rel_err_8k, r.valid ? "true" : "false", k + 1 < rows.size() ? "," : "");
  }
  std::fprintf(j, "  ]\n}\n");
  std::fclose(j);

  FILE* m = std::fopen(md_path.c_str(), "w");
  if (m) {
    std::fprintf(m, "# Section 7.9 steps on %s (%s)\n\n", prop.name, date);
    std::fprintf(m, "%d x %d floats, %.0f MB moved (in + out). Copy: %.4f ms = %.0f GB/s. Median of %d runs, L2 flushed.\n\n",
                 W, H, bytes / 1e6, copy_ms, bytes / copy_ms / 1e6, kRuns);
    std::fprintf(m, "| version | mask | block x rows | ms | GB/s | of copy | registers | valid |\n|---|---|---|---|---|---|---|---|\n");
    for (const Row& r : rows)
      std::fprintf(m, "| %s | %dx%d | %dx%d x %d | %.4f | %.0f | %.1f%% | %d | %s |\n", r.version.c_str(), r.mask, r.mask,
                   r.bx, r.by, r.rows, r.ms, r.gbps, 100 * r.frac, r.regs, r.valid ? "yes" : "NO");
    std::fclose(m);
  }
  std::printf("\nwrote %s and %s\n", json_path.c_str(), md_path.c_str());
  bool all_valid = true;
  for (const Row& r : rows) all_valid = all_valid && r.valid;
  return all_valid ? 0 : 2;
}
