// The radius comes from a macro, not from the run-time Mask_Width.
#define RADIUS 2

__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float sum = 0.0f;
    for (int j = -RADIUS; j <= RADIUS; j++) {
      if (i + j >= 0 && i + j < Width) sum += N[i + j] * M[j + RADIUS];
    }
    P[i] = sum;
  }
}
