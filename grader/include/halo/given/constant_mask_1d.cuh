// Given code for the sections after 7.3 (tiled and cached 1D): the mask in constant memory,
// the way section 7.3 has the student write it. Include it once, in the kernel file.
// MAX_MASK_WIDTH comes from the chapter's [defines] (chapters/7.3-constant-memory/questions.toml).
#pragma once

__constant__ float M[MAX_MASK_WIDTH];

// Copies the mask to constant memory; a mask that does not fit is refused, not truncated.
cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width) {
  if (Mask_Width < 1 || Mask_Width > MAX_MASK_WIDTH) return cudaErrorInvalidValue;
  return cudaMemcpyToSymbol(M, h_M, size_t(Mask_Width) * sizeof(float));
}
