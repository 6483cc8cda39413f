// Dynamic shared tile, unsigned thread indices, and the loop bounds clamped with max/min so the
// loop never visits a ghost cell.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_cached_kernel(const float* N, float* P, int Mask_Width, int Width) {
  extern __shared__ float tile[];
  const unsigned tx = threadIdx.x;
  const unsigned first = blockIdx.x * blockDim.x;  // tile covers N[first .. first + blockDim.x - 1]
  const unsigned i = first + tx;

  tile[tx] = (i < unsigned(Width)) ? N[i] : 0.0f;
  __syncthreads();
  if (i >= unsigned(Width)) return;

  const int r = Mask_Width / 2;
  const int lo = max(int(i) - r, 0);
  const int hi = min(int(i) + r, Width - 1);
  float acc = 0.0f;
  for (int k = lo; k <= hi; ++k) {
    float x;
    if (unsigned(k) >= first && unsigned(k) < first + blockDim.x)
      x = tile[unsigned(k) - first];
    else
      x = N[k];  // neighbour block's element: should come from L2
    acc += x * M[k - int(i) + r];
  }
  P[i] = acc;
}
