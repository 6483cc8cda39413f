// A kernel that builds a tensor map of its own, field by field (the validator refuses a struct
// copy), naming `out` as an image far taller than it: what a kernel could do to make the copy
// engine read past an array. The fields exist on the CPU backend only (on a GPU a map is the
// driver's opaque encoding), so this file is built by the CPU backend alone (CMakeLists.txt), and
// the kernels beside it stay one build for both.
#include "halo/given/tile_copy.cuh"

__global__ void tile_copy_forged(float* out, int box_w, int box_h) {
  __shared__ __align__(128) float stage[256];
  __shared__ TileBarrier arrived;
  if (threadIdx.x != 0) return;
  tile_barrier_init(&arrived);
  TensorMap forged;
  forged.image = out;
  forged.width = box_w;
  forged.height = 1 << 20;
  forged.pitch = box_w;
  forged.box_width = box_w;
  forged.box_height = box_h;
  copy_tile_async(stage, forged, 0, 0, &arrived);
  wait_tile(&arrived, 0);
  out[0] = stage[0];
}
