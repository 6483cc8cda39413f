// Given code for section 7.8's constant-memory kernels: a (2r+1) x (2r+1) filter stored row by
// row in constant memory, F_c[fRow * (2r+1) + fCol]. Include it once, in the kernel file.
// MAX_FILTER_RADIUS comes from the chapter's [defines] (chapters/7.8-exercises-2d/questions.toml).
#pragma once

__constant__ float F_c[(2 * MAX_FILTER_RADIUS + 1) * (2 * MAX_FILTER_RADIUS + 1)];

// Copies the filter of radius r to constant memory; a filter that does not fit is refused.
cudaError_t copy_filter_to_constant(const float* h_F, int r) {
  if (r < 0 || r > MAX_FILTER_RADIUS) return cudaErrorInvalidValue;
  return cudaMemcpyToSymbol(F_c, h_F, size_t(2 * r + 1) * size_t(2 * r + 1) * sizeof(float));
}
