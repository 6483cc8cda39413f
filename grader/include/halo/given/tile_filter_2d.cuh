// Given code for section 7.9's tensor-copy kernel: the (2r+1) x (2r+1) filter in constant memory,
// F_t[fRow * (2r+1) + fCol], as F_c is for the file beside it (convolution_2d_speed_of_light.cu).
// Each file is compiled on its own and keeps its own copy. Include it once, in the kernel file.
#pragma once

__constant__ float F_t[(2 * MAX_FILTER_RADIUS + 1) * (2 * MAX_FILTER_RADIUS + 1)];

// Copies the filter of radius r to constant memory; a filter that does not fit is refused.
cudaError_t copy_tile_filter_to_constant(const float* h_F, int r) {
  if (r < 0 || r > MAX_FILTER_RADIUS) return cudaErrorInvalidValue;
  return cudaMemcpyToSymbol(F_t, h_F, size_t(2 * r + 1) * size_t(2 * r + 1) * sizeof(float));
}
