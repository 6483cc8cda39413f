// The copy engine's types and, on the CPU backend, the runtime's entry points
// (grader/cpu/tensor_copy.cpp): what halo/given/tile_copy.cuh gives a kernel file, apart from the
// GPU's implementations. Outside given/ because the runtime needs it in every release, whichever
// sections a release carries.
#pragma once

#include <cstdint>

#include "halo/tensor_map.hpp"

// The kernel's parameter type (halo/tensor_map.hpp): a CUtensorMap on a GPU.
using TensorMap = halo::TensorMap;

// An mbarrier: counts the bytes of one copy per phase. 8 bytes of shared memory.
struct alignas(8) TileBarrier {
  uint64_t state;
};

#if !defined(__CUDACC__)
// The CPU backend's copy engine, called straight from the kernel (halo/given/tile_copy.cuh says
// what each does).
void tile_barrier_init(TileBarrier* b);
void copy_tile_async(float* stage, const TensorMap& map, int col, int row, TileBarrier* b);
void wait_tile(TileBarrier* b, unsigned use);
#endif
