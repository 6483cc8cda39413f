// Runs each reference kernel once on fixed inputs; run under callgrind for instruction counts.
#include <cstdio>
#include <cstring>
#include <vector>
#include "halo/launch.hpp"
#include "halo/cpu/cuda_runtime.hpp"
#include "halo/cpu/launch_record.hpp"
#include "halo/chapter_defines.hpp"
void convolution_1D_basic_kernel(const float*, const float*, float*, int, int);
void convolution_1D_tiled_kernel(const float*, float*, int, int);
void convolution_2D_basic_kernel(const float*, const float*, float*, int, int, int);
void convolution_tiled_2D_const_mem_kernel(const float*, float*, int, int, int);
template <int R, int BX, int BY, int RO> void convolution_2D_speed_of_light_kernel(const float*, float*, int, int, int);
cudaError_t convolution_2D_speed_of_light_launch_config(int, int, int, int, dim3*, dim3*);
int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "all";
  const int W = 1 << 16, w2 = 256, h2 = 256;
  std::vector<float> h(W * 4, 1.0f);
  float *N, *M, *P, *F;
  cudaMalloc((void**)&N, W * 4 * sizeof(float)); cudaMalloc((void**)&P, W * 4 * sizeof(float));
  cudaMalloc((void**)&M, 64 * sizeof(float)); cudaMalloc((void**)&F, 64 * sizeof(float));
  cudaMemcpy(N, h.data(), W * 4 * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(M, h.data(), 64 * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(F, h.data(), 64 * sizeof(float), cudaMemcpyHostToDevice);
  // As the section tests register them: the inputs read-only, the output not.
  halo::cpu::name_array(N, "N", sizeof(float), true);
  halo::cpu::name_array(M, "M", sizeof(float), true);
  halo::cpu::name_array(F, "F", sizeof(float), true);
  halo::cpu::name_array(P, "P", sizeof(float), false);
  auto run = [&](const char* name, auto f) { if (!strcmp(which, "all") || !strcmp(which, name)) std::printf("%s: %d\n", name, int(f())); };
  run("7.2", [&] { return halo::launch(convolution_1D_basic_kernel, dim3(W / 256), dim3(256), N, M, P, 5, W); });
  run("7.4", [&] { return halo::launch(convolution_1D_tiled_kernel, dim3(W / 256), dim3(256), N, P, 5, W); });
  run("7.8", [&] { return halo::launch(convolution_2D_basic_kernel, dim3(w2 / 16, h2 / 16), dim3(16, 16), N, F, P, 2, w2, h2); });
  run("7.8t", [&] { return halo::launch(convolution_tiled_2D_const_mem_kernel, dim3(w2 / 12 + 1, h2 / 12 + 1), dim3(16, 16), N, P, 2, w2, h2); });
  run("7.9", [&] {
    dim3 g, b;
    convolution_2D_speed_of_light_launch_config(w2, h2, w2, 2, &g, &b);
    return halo::launch(convolution_2D_speed_of_light_kernel<2, SOL_BLOCK_X, SOL_BLOCK_Y, SOL_ROWS_PER_THREAD>, g, b, N, P, w2, h2, w2);
  });
}
