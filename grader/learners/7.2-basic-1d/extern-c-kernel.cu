// Declared extern "C", as for a host program in C or a loader that looks kernels up by name.
extern "C" __global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width,
                                                       int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float Pvalue = 0;
    int N_start_point = i - (Mask_Width / 2);
    for (int j = 0; j < Mask_Width; j++) {
      if (N_start_point + j >= 0 && N_start_point + j < Width) {
        Pvalue += N[N_start_point + j] * M[j];
      }
    }
    P[i] = Pvalue;
  }
}
