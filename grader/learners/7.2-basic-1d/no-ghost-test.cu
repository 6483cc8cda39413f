// No ghost test: the first and last threads read outside N.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; j++) sum += N[i - Mask_Width / 2 + j] * M[j];
    P[i] = sum;
  }
}
