// Given code for section 7.9's tensor-copy kernel: whole tiles of N copied into shared memory by
// the GPU's copy engine (Hopper's Tensor Memory Accelerator) while the threads compute.
//
//   __shared__ halo::TileBarrier arrived[S];       // one per stage of shared memory
//   if (t == 0) halo::tile_barrier_init(&arrived[s]);
//   if (t == 0) halo::copy_tile_async(stage, N_map, col, row, &arrived[s]);   // one thread issues
//   halo::wait_tile(&arrived[s], use);             // every thread waits before reading the stage
//
// copy_tile_async() starts the copy of the box of N whose top-left element is [row][col] (the box's
// shape is the tensor map's) into `stage`, row after row, and returns at once. Elements of the box
// outside the image arrive as 0: the ghost cells cost nothing. wait_tile(b, use) waits until the
// copy of barrier b's `use`-th phase (0, 1, 2, ...: the use-th copy issued on it) has landed.
//
// The rules a GPU holds you to (the CPU backend reports each one it sees broken):
//   - one copy per barrier per phase, issued by one thread, after tile_barrier_init() and a
//     __syncthreads() that makes the barrier visible to every thread;
//   - nobody reads a stage before waiting for its copy;
//   - a stage is not refilled while a thread may still read it: a __syncthreads() between the
//     last read and the next copy into it;
//   - wait for the phase you need: the GPU compares only its parity (even or odd), so waiting for
//     a phase two behind or ahead is a silent bug there;
//   - the stage is 128-byte aligned (__align__(128)).
#pragma once

#include "halo/tile_barrier.hpp"  // TensorMap, TileBarrier (and, on the CPU backend, the three calls)

#if defined(__CUDACC__)
#include <cuda/ptx>

__device__ __forceinline__ void tile_barrier_init(TileBarrier* b) {
  cuda::ptx::mbarrier_init(&b->state, 1);  // one arrival per phase: the issuing thread's
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

__device__ __forceinline__ void copy_tile_async(float* stage, const TensorMap& map, int col, int row, TileBarrier* b) {
  namespace ptx = cuda::ptx;
  // The phase completes when the box's bytes (zero-filled parts included) have all arrived.
  const uint32_t bytes = uint32_t(map.box_width) * uint32_t(map.box_height) * uint32_t(sizeof(float));
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &b->state, bytes);
  const int32_t corner[2] = {col, row};  // innermost dimension first
  ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, stage, &map.map, corner, &b->state);
}

__device__ __forceinline__ void wait_tile(TileBarrier* b, unsigned use) {
  while (!cuda::ptx::mbarrier_try_wait_parity(&b->state, uint32_t(use & 1u))) {
  }
}

#endif  // on the CPU backend the runtime emulates the copy engine (halo/tile_barrier.hpp)
