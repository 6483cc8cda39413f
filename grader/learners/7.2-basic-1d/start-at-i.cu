// The window starts at the output's own index: N[i] sits under M[0] instead of M[n].
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  float acc = 0.0f;
  for (int j = 0; j < Mask_Width; ++j) {
    int k = i + j;
    if (k < Width) acc += N[k] * M[j];
  }
  P[i] = acc;
}
