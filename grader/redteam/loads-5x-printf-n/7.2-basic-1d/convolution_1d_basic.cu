// Section 7.2 (red team, issue 32 item 1): printf's %n as a store no check sees. The runtime's
// printf handed its format to vsnprintf, which writes the count through the argument: aimed at
// the byte after a local variable it reached the worker's state, and aimed at N it wrote an input.
// Here it writes into N, then the kernel reads its window five times.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  const int n = Mask_Width / 2;
  float sum = 0.0f, extra = 0.0f;
  for (int pass = 0; pass < 5; ++pass)
    for (int j = 0; j < Mask_Width; ++j) {
      const int k = i - n + j;
      if (k >= 0 && k < Width) {
        const float v = N[k];
        if (pass == 0) sum += v * M[j];
        else extra += v - v;
      }
    }
  if (i == Width) printf("%n", reinterpret_cast<int*>(const_cast<float*>(N)));
  P[i] = sum + extra;
}
