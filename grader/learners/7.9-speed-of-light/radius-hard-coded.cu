// The plain tiled kernel written for the lesson's 5 x 5 filter: the radius is a constant 2
// in the body, the template parameter R is never used.
#include "halo/given/constant_filter_2d.cuh"  // F_c (the filter in constant memory) and copy_filter_to_constant()

__device__ __forceinline__ float4 load_vector(const float* __restrict__ N, int row, int col, int width, int height,
                                              int pitch) {
  if (row < 0 || row >= height || col < 0 || col >= width) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float* src = &N[row * pitch + col];
  if (col + 4 <= width) return *reinterpret_cast<const float4*>(src);
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  v.x = src[0];
  if (col + 1 < width) v.y = src[1];
  if (col + 2 < width) v.z = src[2];
  return v;
}

__device__ __forceinline__ void store_vector(float* __restrict__ P, int row, int col, int width, int height, int pitch,
                                             float4 v) {
  if (row >= height || col >= width) return;
  float* dst = &P[row * pitch + col];
  if (col + 4 <= width) {
    *reinterpret_cast<float4*>(dst) = v;
  } else {
    dst[0] = v.x;
    if (col + 1 < width) dst[1] = v.y;
    if (col + 2 < width) dst[2] = v.z;
  }
}

template <int R, int BLOCK_X = SOL_BLOCK_X, int BLOCK_Y = SOL_BLOCK_Y, int ROWS = SOL_ROWS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
    convolution_2D_speed_of_light_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height,
                                         int pitch) {
  constexpr int r = 2;  // 5 x 5 filter
  const int TILE_W = 4 * BLOCK_X;
  const int TILE_H = ROWS * BLOCK_Y;
  const int VEC_PER_ROW = BLOCK_X + 2;  // one extra float4 on each side for the halo
  const int IN_ROWS = TILE_H + 2 * r;
  const int FW = 2 * r + 1;
  __shared__ float4 tile[TILE_H + 2 * r][BLOCK_X + 2];

  int tid = threadIdx.y * BLOCK_X + threadIdx.x;
  int firstRow = blockIdx.y * TILE_H - r;
  int firstCol = blockIdx.x * TILE_W - 4;
  for (int e = tid; e < IN_ROWS * VEC_PER_ROW; e += BLOCK_X * BLOCK_Y) {
    int tr = e / VEC_PER_ROW;
    int tc = e % VEC_PER_ROW;
    tile[tr][tc] = load_vector(N, firstRow + tr, firstCol + 4 * tc, width, height, pitch);
  }
  __syncthreads();

  const float* s = reinterpret_cast<const float*>(tile);  // the tile as floats, 4 * VEC_PER_ROW per row
  const int S_W = 4 * VEC_PER_ROW;
  for (int o = 0; o < ROWS; o++) {
    int ty = threadIdx.y * ROWS + o;  // output row inside the block's tile
    float res[4];
    for (int q = 0; q < 4; q++) {
      int tx = 4 * threadIdx.x + q;  // output column inside the block's tile
      float sum = 0.0f;
      for (int fRow = 0; fRow < FW; fRow++)
        for (int fCol = 0; fCol < FW; fCol++)
          sum += F_c[fRow * FW + fCol] * s[(ty + fRow) * S_W + tx + 4 - r + fCol];
      res[q] = sum;
    }
    store_vector(P, blockIdx.y * TILE_H + ty, blockIdx.x * TILE_W + 4 * threadIdx.x, width, height, pitch,
                 make_float4(res[0], res[1], res[2], res[3]));
  }
}

// Given: the kernel for each radius (r is a template parameter, so that every loop above has a
// compile-time count); nullptr for a radius it does not handle.
using SpeedOfLightKernel = void (*)(const float*, float*, int, int, int);
SpeedOfLightKernel convolution_2D_speed_of_light_kernel_for(int r) {
  switch (r) {
    case 1: return convolution_2D_speed_of_light_kernel<1>;
    case 2: return convolution_2D_speed_of_light_kernel<2>;
    case 3: return convolution_2D_speed_of_light_kernel<3>;
    case 4: return convolution_2D_speed_of_light_kernel<4>;
    default: return nullptr;
  }
}

// The grader launches the kernel with the grid and block this function returns for a
// width x height image with the given pitch (in floats) and filter radius r. The kernel's
// preconditions are checked here: it returns cudaErrorInvalidValue (and leaves grid and block
// alone) when the pitch is not a multiple of 4 floats or smaller than the width, or when
// r is not 1 .. 4.
cudaError_t convolution_2D_speed_of_light_launch_config(int width, int height, int pitch, int r, dim3* grid,
                                                        dim3* block) {
  if (width < 1 || height < 1 || pitch < width || pitch % 4 != 0 || r < 1 || r > 4) return cudaErrorInvalidValue;
  constexpr int TILE_W = 4 * SOL_BLOCK_X, TILE_H = SOL_BLOCK_Y * SOL_ROWS_PER_THREAD;
  *block = dim3(SOL_BLOCK_X, SOL_BLOCK_Y, 1);
  *grid = dim3(unsigned((width + TILE_W - 1) / TILE_W), unsigned((height + TILE_H - 1) / TILE_H), 1);
  return cudaSuccess;
}
