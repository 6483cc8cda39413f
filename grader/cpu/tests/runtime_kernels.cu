// Kernels with a known behaviour, compiled like a student's (instrumented), for the runtime's
// own tests. Each exercises one mechanism of the CPU backend.

#define TILE 64

// Barriers: each thread writes its element to shared memory; after the barrier it reads its
// mirror's, which another thread wrote.
__global__ void reverse_each_block(const float* in, float* out) {
  __shared__ float tile[TILE];
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = tile[blockDim.x - 1 - t];
}

// Reads in[i + offset]: out of bounds for a non-zero offset at the edges.
__global__ void shifted_copy(const float* in, float* out, int offset, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + offset];
}

// Writes into its input.
__global__ void scribble_on_input(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const_cast<float*>(in)[i] = 0.0f;
    out[i] = 1.0f;
  }
}

__constant__ float weights[16];

// Reads only constant memory (and writes out).
__global__ void sum_constant_weights(float* out, int count) {
  float s = 0;
  for (int j = 0; j < count; ++j) s += weights[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Half the block waits at a barrier the other half never reaches.
__global__ void half_block_barrier(float* out) {
  if (threadIdx.x < blockDim.x / 2) {
    __syncthreads();
  }
  out[threadIdx.x] = 1.0f;
}

// Copies a pitched image, reading `extra` columns past the width.
__global__ void pitched_copy(const float* in, float* out, int width, int height, int pitch, int extra) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < height && col < width + extra) out[row * pitch + col] = in[row * pitch + col];
}

// Local memory: an array indexed at run time lives on the thread's stack.
__global__ void through_local_array(const float* in, float* out, int n) {
  volatile float scratch[8];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < 8; ++k) scratch[k] = in[i] * float(k);
  out[i] = scratch[i % 8];
}

// Writes each thread's coordinates, to check index arithmetic for 3D grids and blocks.
__global__ void record_coordinates(int* out) {
  const int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int g = bx * (blockDim.x * blockDim.y * blockDim.z) + tx;
  out[g] = int(threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z + 1000 * blockIdx.x + 10000 * blockIdx.y +
               100000 * blockIdx.z);
}

// Counts with atomics across blocks that run on different cores.
__global__ void count_everything(int* counter) { atomicAdd(counter, 1); }

// An unfinished stub.
__global__ void unfinished(float* out) {
  HALO_TODO("nothing here yet");
  (void)out;
}

// Reads a neighbour's element of a shared tile with no barrier after filling it.
__global__ void neighbour_without_barrier(const float* in, float* out) {
  __shared__ float tile[TILE];
  const int t = threadIdx.x;
  tile[t] = in[t];
  out[t] = tile[(t + 1) % blockDim.x];
}

// Reads shared memory nothing wrote (the store the compiler cannot rule out never happens).
__global__ void read_unwritten_shared(float* out) {
  __shared__ float never_written[TILE];
  if (threadIdx.x > blockDim.x) never_written[0] = 1.0f;
  out[threadIdx.x] = never_written[threadIdx.x];
}

// Every thread stores its index into one word; which one survives depends on the order.
__global__ void last_writer_wins(int* out) {
  __shared__ int slot;
  slot = int(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) *out = slot;
}

// Every thread stores the whole (tiny) tile: every store races with the thread before.
__global__ void every_thread_races(int* out) {
  __shared__ int tile[8];
  for (int k = 0; k < 8; ++k) tile[k] = int(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) *out = tile[0];
}

// Never ends, in registers: no memory access after the first, so only the launch's CPU limit
// can stop it. A 64-bit LCG visits every value once per 2^64 steps: 0 is never reached in time.
// The step count is stored, so the compiler cannot drop the loop as one assumed to end.
__global__ void spin_in_registers(const float* in, float* out) {
  unsigned long long x = (unsigned long long)(in[0] + 2.0f) + threadIdx.x, steps = 0;
  while (x != 0) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    ++steps;
  }
  out[threadIdx.x] = float(steps);
}

// Never ends, touching memory at every step: stopped at the access limit of one thread.
__global__ void spin_forever(const float* in, float* out) {
  float s = 0;
  for (int k = 0;; k = (k + 1) % 4) {
    s += in[k];
    if (s != s) break;  // never: the inputs are finite
  }
  out[threadIdx.x] = s;
}

// Writes through a pointer into memory the launch does not own (in the test, a host vector
// standing for the runtime's records): stopped before the store, checks on or off.
__global__ void store_outside(float* host, float* out) {
  host[threadIdx.x] = 1.0f;
  out[threadIdx.x] = 2.0f;
}

// Thread 3 writes through the pointer it is given (null in the test) and crashes.
__global__ void crash_in_thread_3(float* bad, float* out) {
  if (threadIdx.x == 3) bad[threadIdx.x] = 1.0f;
  out[threadIdx.x] = 2.0f;
}

// Each thread reads its element and the next: the interior elements of in are read twice, the
// two ends once (per-element counts).
__global__ void pair_sums(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) out[i] = in[i] + in[i + 1];
}

// Every thread but 0 reads in[0] (and its own element): one slot that every core adds to.
__global__ void add_first(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n) out[i] = in[0] + in[i];
}

// One 16-byte load and one 16-byte store per thread: each covers four floats.
__global__ void copy_as_float4(const float* in, float* out, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}

// Thread t reads in[offset + 4t .. + 3] as one float4 and writes their sum: on a 16-byte boundary
// when offset is a multiple of 4 (an array starts on one), misaligned otherwise.
__global__ void float4_read_at(const float* in, float* out, int offset) {
  const float4 v = *reinterpret_cast<const float4*>(in + offset + 4 * threadIdx.x);
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// Thread t writes 1, 2, 3, 4 to out[offset + 4t .. + 3] as one float4.
__global__ void float4_write_at(float* out, int offset) {
  *reinterpret_cast<float4*>(out + offset + 4 * threadIdx.x) = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
}

// The read of float4_read_at through a vector type aligned to 4 bytes: one 16-byte access that
// the IR marks `align 4`, which no machine makes with an aligned instruction (a right kernel).
typedef float four_floats_aligned_4 __attribute__((ext_vector_type(4), aligned(4)));
__global__ void four_floats_read_at(const float* in, float* out, int offset) {
  const four_floats_aligned_4 v = *reinterpret_cast<const four_floats_aligned_4*>(in + offset + 4 * threadIdx.x);
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// Every thread stores its index; then thread 0 of each block reads the last output of the block
// before it, which that block writes in this same launch: a race between blocks.
__global__ void read_previous_block(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = float(i);
  if (threadIdx.x == 0 && i > 0 && i < n && out[i - 1] != out[i - 1]) out[i] = 0.0f;
}

// The last thread of each block reads the first output of the next block before that block
// writes it, when blocks run in order: the race is found at the write.
__global__ void read_next_block(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float next = 0.0f;
  if (threadIdx.x == blockDim.x - 1 && i + 1 < n) next = out[i + 1];
  if (i < n) out[i] = float(i) + (next != next ? 0.5f : 0.0f);
}

// Two loads of in[i] and a store of out[i] per thread, one load on each side of a barrier.
__global__ void load_around_barrier(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float before = in[i];
  __syncthreads();
  out[i] = before + in[i];
}

// Reads the pointer-sized word `offset` bytes from the start of the dynamic shared memory: with
// checks off, nothing names it out of bounds, and the runtime's own state lies in the same block.
extern __shared__ char runtime_dynamic[];
__global__ void read_beside_dynamic(float* out, long long offset) {
  char* volatile* word = reinterpret_cast<char* volatile*>(runtime_dynamic + offset);
  out[threadIdx.x] = *word ? 1.0f : 0.0f;
}
