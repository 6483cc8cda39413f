// A right kernel written under the stub's comments, the HALO_TODO line never deleted.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  // 1. Which output does this thread own?
  int out = blockIdx.x * blockDim.x + threadIdx.x;
  // 2. Threads past the end of P have nothing to do.
  if (out >= Width) return;
  // 3. Sum over the mask, skipping ghost cells.
  float total = 0;
  int first = out - Mask_Width / 2;
  for (int j = 0; j < Mask_Width; j++) {
    if (first + j >= 0 && first + j < Width) total += N[first + j] * M[j];
  }
  // 4. Store the sum in P.
  P[out] = total;
  HALO_TODO("write the basic 1D convolution kernel, then delete this line");
}
