// Section 7.9's tuning program, step v5 (Hopper only, not yet the student's kernel): the tile
// comes into shared memory by one tensor copy (the Tensor Memory Accelerator, cp.async.bulk.tensor)
// instead of by the threads' own loads, several tiles ahead of the one being computed.
//
// Why: from 7 x 7 on v4 is issue-bound (docs/results/gpu-7.9-limits-h200.md): every load
// instruction, index computation and wait for memory takes issue slots from the multiply-adds.
// Here one thread issues one instruction per tile; the copy engine does the rest, and the
// threads only wait (on an mbarrier) for a tile that has usually arrived already.
//
//  - A tensor map describes N to the copy engine: width x height floats, rows `pitch` floats
//    apart. A box of (4 (BX + 2)) x (ROWS BY + 2R) floats starting at column tileCol - 4 and row
//    tileRow - R is the input tile with its halo. Parts of the box outside width x height arrive
//    as zeros: the ghost cells, and the columns past width (the pitch padding is never read).
//  - The grid is persistent (as many blocks as fit on the GPU at once); block b computes tiles
//    b, b + gridDim.x, ... in raster order, so the tiles in flight are neighbours and share
//    their halos through L2.
//  - S stages of shared memory: while tile k is computed, tiles k + 1 .. k + S - 1 are in
//    flight. A barrier at the end of each tile keeps a stage from being refilled while read.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <cuda/ptx>
#include <map>
#include <tuple>

namespace tma_step {

namespace ptx = cuda::ptx;

// A stage holds IN_H rows of IN_W4 float4s, rounded up to whole 128-byte units (where the copy
// engine writes a box) by padding rows.
template <int R, int BX, int BY, int ROWS>
struct Shape {
  static constexpr int TILE_W = 4 * BX, TILE_H = ROWS * BY, IN_W4 = BX + 2, IN_H = TILE_H + 2 * R;
  static constexpr int padded_rows() {
    int rows = IN_H;
    while ((rows * IN_W4) % 8 != 0) ++rows;
    return rows;
  }
  static constexpr int STAGE_VECTORS = padded_rows() * IN_W4;
  static constexpr unsigned BOX_BYTES = unsigned(IN_H * IN_W4 * 16);  // what one copy delivers
  static_assert(4 * IN_W4 <= 256 && IN_H <= 256, "a tensor copy's box is at most 256 elements a side");
};

__device__ __forceinline__ void wait_for_phase(uint64_t* barrier, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(barrier, parity)) {
  }
}

template <int R, int BX, int BY, int ROWS, int S>
__global__ void __launch_bounds__(BX * BY) conv_v5(const __grid_constant__ CUtensorMap N_map, float* __restrict__ P,
                                                   int width, int height, int pitch) {
  using Sh = Shape<R, BX, BY, ROWS>;
  using Tile = float4[Sh::IN_H][Sh::IN_W4];
  extern __shared__ __align__(128) float4 stages[];
  __shared__ uint64_t arrived[S];  // stage s holds its tile once its phase completes
  const int t = int(threadIdx.y) * BX + int(threadIdx.x);
  if (t == 0)
    for (int s = 0; s < S; ++s) ptx::mbarrier_init(&arrived[s], 1);
  __syncthreads();
  const int tilesX = (width + Sh::TILE_W - 1) / Sh::TILE_W;
  const int allTiles = tilesX * ((height + Sh::TILE_H - 1) / Sh::TILE_H);
  const int mine = allTiles > int(blockIdx.x) ? (allTiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x) : 0;
  auto stage = [&](int k) -> Tile& { return *reinterpret_cast<Tile*>(stages + size_t(k % S) * Sh::STAGE_VECTORS); };
  auto tile_of = [&](int k) { return int(blockIdx.x) + k * int(gridDim.x); };
  auto issue = [&](int k) {  // thread 0 only
    const int tile = tile_of(k);
    const int32_t corner[2] = {(tile % tilesX) * Sh::TILE_W - 4, (tile / tilesX) * Sh::TILE_H - R};
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &arrived[k % S],
                                   uint32_t(Sh::BOX_BYTES));  // a copy: the parameter is a reference
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &stage(k)[0][0], &N_map, corner, &arrived[k % S]);
  };
  if (t == 0)
    for (int k = 0; k < S - 1 && k < mine; ++k) issue(k);
  for (int k = 0; k < mine; ++k) {
    if (t == 0 && k + S - 1 < mine) issue(k + S - 1);
    wait_for_phase(&arrived[k % S], uint32_t((k / S) & 1));
    const int tile = tile_of(k);
    strip_from_tile<R, BX, BY, ROWS, /*FAST_STORES=*/true>(stage(k), P, width, height, pitch,
                                                          (tile / tilesX) * Sh::TILE_H, (tile % tilesX) * Sh::TILE_W);
    __syncthreads();  // the stage of tile k is refilled by the issue of tile k + S
  }
}

// The tensor map of a pitched image for boxes of box_w x box_h floats, made once per image and
// box (encoding is host work: outside the timed runs). Zero fill outside the image.
inline const CUtensorMap& tensor_map(const float* N, int width, int height, int pitch, int box_w, int box_h) {
  static std::map<std::tuple<const float*, int, int, int, int, int>, CUtensorMap> made;
  const auto key = std::make_tuple(N, width, height, pitch, box_w, box_h);
  if (auto it = made.find(key); it != made.end()) return it->second;
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    HALO_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(width), cuuint64_t(height)};
  const cuuint64_t row_bytes[1] = {cuuint64_t(pitch) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_w), cuuint32_t(box_h)}, unit[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(N), dims, row_bytes, box, unit,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (CUresult %d)\n", int(r));
    std::exit(1);
  }
  return made.emplace(key, map).first->second;
}

// Launches v5 on a persistent grid: as many blocks as fit on every SM at once.
template <int R, int BX, int BY, int ROWS, int S>
cudaError_t launch_v5(const float* N, float* P, int width, int height, int pitch) {
  using Sh = Shape<R, BX, BY, ROWS>;
  const void* kernel = reinterpret_cast<const void*>(conv_v5<R, BX, BY, ROWS, S>);
  const size_t smem = size_t(S) * Sh::STAGE_VECTORS * sizeof(float4);
  static int blocks = 0;  // per instantiation: blocks per SM x SMs
  if (blocks == 0) {
    HALO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    int per_sm = 0, device = 0, sms = 0;
    HALO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BX * BY, smem));
    HALO_CUDA_CHECK(cudaGetDevice(&device));
    HALO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    blocks = per_sm * sms;
  }
  const CUtensorMap& map = tensor_map(N, width, height, pitch, 4 * Sh::IN_W4, Sh::IN_H);
  conv_v5<R, BX, BY, ROWS, S><<<blocks, dim3(BX, BY), smem>>>(map, P, width, height, pitch);
  return cudaGetLastError();
}

}  // namespace tma_step
