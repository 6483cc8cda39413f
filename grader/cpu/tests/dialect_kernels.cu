// Kernels written the way learners write them, one CUDA construct each, for the dialect's own
// tests (test_dialect.cpp). The same file builds with nvcc (a CTest test checks it), so every
// construct here means on the CPU backend what it means on a GPU.
#include <cassert>
#include <cstdio>

// min and max: CUDA's overloads pick the type by the usual arithmetic conversions.
static_assert(sizeof(decltype(min(1, 2))) == sizeof(int) && decltype(min(1, 2))(-1) < 0, "min(int, int) is int");
static_assert(decltype(max(-1, 2u))(-1) > 0, "max(int, unsigned) is unsigned, as in CUDA");
static_assert(sizeof(decltype(min(1.0, 2.0f))) == sizeof(double), "min(double, float) is double");
// A plain char is signed, as under nvcc on x86-64, on aarch64 too (the kernel flags' -fsigned-char).
static_assert(char(-1) < 0, "a plain char is signed in a kernel");

__global__ void min_max_kinds(const int* a, const float* x, int* i_out, float* f_out, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;  // an unsigned index, as learners write
  if (t < n) {
    i_out[t] = max(0, min(a[t], n - 1));  // a clamp with int overloads
    f_out[t] = fmaxf(fminf(x[t], 1.0f), -1.0f) + min(x[t], 0.5f) - max(0.0f, x[t]);
  }
}

// printf from every thread: the CPU backend keeps what each thread printed.
__global__ void print_each_thread(float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("i=%d\n", i);
  out[i] = float(i);
}

// A device-side assert that is false for one thread.
__global__ void assert_below(const int* in, int* out, int limit) {
  const int i = threadIdx.x;
  assert(in[i] < limit);
  out[i] = in[i];
}

// __forceinline__ helper, a template kernel, __restrict__, __ldg, #pragma unroll,
// __launch_bounds__ and size_t indices in one 1D convolution of radius R.
__device__ __forceinline__ float weighted(float value, float weight) { return value * weight; }

template <int R>
__global__ void __launch_bounds__(256) small_conv(const float* __restrict__ in, const float* __restrict__ w,
                                                  float* __restrict__ out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
#pragma unroll
  for (int j = -R; j <= R; ++j) {
    const long long k = (long long)i + j;
    if (k >= 0 && k < (long long)n) sum += weighted(__ldg(&in[k]), __ldg(&w[j + R]));
  }
  out[i] = sum;
}
template __global__ void small_conv<2>(const float* __restrict__, const float* __restrict__, float* __restrict__, size_t);

// Atomics across blocks.
__global__ void count_and_max(const int* in, int* count, int* biggest, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(count, 1);
    atomicMax(biggest, in[i]);
  }
}

// An atomic through a pointer into memory the launch does not own (in the test, a host
// vector standing for the runtime's records): stopped before it happens, like a store.
__global__ void atomic_outside(int* host, int* out) {
  atomicExch(&host[threadIdx.x], 7);
  out[threadIdx.x] = 1;
}

// Dynamic shared memory: each block reverses its slice through an extern __shared__ tile whose
// size the launch gives.
extern __shared__ float dynamic_tile[];
__global__ void reverse_dynamic(const float* in, float* out) {
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  dynamic_tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = dynamic_tile[blockDim.x - 1 - t];
}

// A static tile read one past either end: the neighbour of the first and of the last thread.
__global__ void neighbours_unguarded(const float* in, float* out, int left) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  tile[t] = in[t];
  __syncthreads();
  out[t] = left ? tile[t - 1] : tile[t + 1];
}

// A __constant__ mask read one past its end by the last thread.
__constant__ float mask3[3];
__global__ void read_mask_past_end(float* out) { out[threadIdx.x] = mask3[threadIdx.x]; }

// Warp shuffles and votes, every lane of every (full) warp taking part: a tree sum with
// __shfl_down_sync, neighbours through __shfl_up_sync and __shfl_xor_sync, a broadcast within
// segments of 8 lanes, and the three votes. Lane 0 of each warp writes the warp's results.
__global__ void warp_shuffles_and_votes(const float* in, int n, float* sums, float* up, float* flipped,
                                        float* broadcast, int* ballots, int* votes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, warp = i / 32;
  const float v = i < n ? in[i] : 0.0f;
  float sum = v;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  up[i] = __shfl_up_sync(0xffffffffu, v, 1);
  flipped[i] = __shfl_xor_sync(0xffffffffu, v, 1);
  broadcast[i] = __shfl_sync(0xffffffffu, v, 3, 8);
  const unsigned positive = __ballot_sync(0xffffffffu, v > 0.0f);
  const int any_big = __any_sync(0xffffffffu, v > 50.0f), all_set = __all_sync(0xffffffffu, i < n);
  if (threadIdx.x % 32 == 0) {
    sums[warp] = sum;
    ballots[warp] = int(positive);
    votes[2 * warp] = any_big;
    votes[2 * warp + 1] = all_set;
  }
}

// A local array indexed past its end, and a pointer walked from it over the thread's stack: named
// before the store happens (issue 32, item 1), whatever the stack holds there.
__global__ void local_array_index(float* out, int index) {
  float acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = float(j);
  acc[index] = 1.0f;
  out[threadIdx.x] = acc[threadIdx.x % 8];
}

__global__ void local_pointer_walk(float* out, int step) {
  float acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = float(j);
  float* p = acc;
  p[step] = 1.0f;
  out[threadIdx.x] = acc[threadIdx.x % 8];
}

// An integer division by a run-time zero: a trap on x86-64, 0 on aarch64; named the same on both.
__global__ void divide_by(int* out, int d) { out[threadIdx.x] = int(threadIdx.x) / d; }
