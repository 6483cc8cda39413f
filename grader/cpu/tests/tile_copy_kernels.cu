// Kernels for the copy engine's tests (test_tile_copy.cpp): tensor copies of boxes of an image
// into shared memory, waited for on tile barriers, the way section 7.9's tensor-copy kernel uses
// them. Built by the CPU backend and, where it is found, by nvcc (CMakeLists.txt).
#include "halo/given/tile_copy.cuh"

// One mistake at a time, switched on by the test (none: the right kernel).
enum TileFlaw : int {
  flaw_none = 0,
  flaw_no_wait = 1,          // reads a stage without waiting for its copy
  flaw_no_end_barrier = 2,   // refills a stage while other threads may still read it
  flaw_wrong_use = 3,        // waits for a phase two ahead (same parity on a GPU)
  flaw_no_copy = 4,          // waits for copies never issued
  flaw_unaligned = 5,        // copies into a stage 4 bytes past a 128-byte boundary
  flaw_no_init_barrier = 6,  // no __syncthreads() between the barriers' initialisation and the waits
  flaw_two_copies = 7,       // issues a second copy on a barrier before anyone waited for the first
  flaw_forged_map = 8,       // (tile_copy_forged_kernels.cu: a map of its own, CPU only)
  flaw_unwaited_copy = 9,    // the last thread copies the first box once more at the end; nobody waits for it
};

constexpr int kBoxW = 8, kBoxH = 4, kStages = 2, kBoxElements = kBoxW * kBoxH;  // a box: 128 bytes

// Tile k of the image (boxes of kBoxW x kBoxH, the first one reaching 2 columns and 1 row before
// the image: its ghost cells arrive as zeros) copied into out[k][kBoxH][kBoxW] through kStages
// stages of shared memory, as a persistent kernel does: block b takes tiles b, b + gridDim.x, ...
// and thread 0 issues each copy one tile ahead of the one the block reads.
__global__ void tile_walk(const __grid_constant__ TensorMap map, float* out, int tiles_x, int tiles, int flaw) {
  __shared__ __align__(128) float stages[kStages][kBoxElements + 32];  // + 32: 1 float in, still room for a box
  __shared__ TileBarrier arrived[kStages];
  const int t = int(threadIdx.x), b = int(blockIdx.x), g = int(gridDim.x);
  const int mine = tiles > b ? (tiles - b + g - 1) / g : 0;
  auto issue = [&](int k) {
    const int tile = b + k * g;
    float* stage = flaw == flaw_unaligned ? &stages[k % kStages][1] : stages[k % kStages];
    copy_tile_async(stage, map, (tile % tiles_x) * kBoxW - 2, (tile / tiles_x) * kBoxH - 1, &arrived[k % kStages]);
    if (flaw == flaw_two_copies) copy_tile_async(stage, map, 0, 0, &arrived[k % kStages]);
  };
  if (t == 0) {
    for (int s = 0; s < kStages; ++s) tile_barrier_init(&arrived[s]);
    if (flaw != flaw_no_copy)
      for (int k = 0; k < kStages - 1 && k < mine; ++k) issue(k);
  }
  if (flaw != flaw_no_init_barrier) __syncthreads();
  for (int k = 0; k < mine; ++k) {
    if (t == 0 && flaw != flaw_no_copy && k + kStages - 1 < mine) issue(k + kStages - 1);
    const unsigned use = unsigned(k / kStages) + (flaw == flaw_wrong_use ? 2u : 0u);
    if (flaw != flaw_no_wait) wait_tile(&arrived[k % kStages], use);
    const float* stage = flaw == flaw_unaligned ? &stages[k % kStages][1] : stages[k % kStages];
    const int tile = b + k * g;
    for (int e = t; e < kBoxElements; e += int(blockDim.x)) out[size_t(tile) * kBoxElements + size_t(e)] = stage[e];
    if (flaw != flaw_no_end_barrier) __syncthreads();
  }
  if (flaw == flaw_unwaited_copy && t == int(blockDim.x) - 1 && mine > 0)  // not the barriers' initialiser
    copy_tile_async(stages[mine % kStages], map, -2, -1, &arrived[mine % kStages]);
}
