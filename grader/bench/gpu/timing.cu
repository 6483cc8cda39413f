// The timer on the GPU: the timing protocol's operations (protocol.hpp has their order) for the
// kernels and vendor calls, the copy baseline and the FP32 FMA throughput.
#include "timing.hpp"

#include "sm_clock.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace halo::bench {

std::string cuda_error(const char* when, cudaError_t err) {
  return std::string(when) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

// ---------------------------------------------------------------- the timer

Timer::Timer(size_t l2_bytes) {
  flush_bytes_ = std::max<size_t>(2 * l2_bytes, size_t(8) << 20);
  HALO_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
  HALO_CUDA_CHECK(cudaEventCreate(&start_));
  HALO_CUDA_CHECK(cudaEventCreate(&stop_));
  int device = 0, sms = 0;
  HALO_CUDA_CHECK(cudaGetDevice(&device));
  HALO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  clock_ = std::make_unique<SmClock>(sms);
}

Timer::~Timer() {
  cudaFree(flush_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

std::string Timer::flush() {
  // The previous run has finished (every call is waited for), so whatever it marked persisting is
  // back to normal before the flush buffer is written: the flush then evicts it like the rest.
  if (persisting_reset_) {
    if (cudaError_t err = cudaCtxResetPersistingL2Cache(); err != cudaSuccess) {
      if (err != cudaErrorNotSupported) return cuda_error("cudaCtxResetPersistingL2Cache", err);
      persisting_reset_ = false;  // no persisting L2 on this device: nothing to reset
      cudaGetLastError();
    }
  }
  // Writing every line of a buffer twice the L2's size evicts whatever the last run left there.
  if (cudaError_t err = cudaMemsetAsync(flush_, int(++flushes_ & 0xff), flush_bytes_, 0); err != cudaSuccess)
    return cuda_error("cudaMemsetAsync of the flush buffer", err);
  return std::string();
}

CallResult Timer::call(const std::function<cudaError_t()>& enqueue, bool timed) {
  CallResult r;
  if (!timed) {
    if (cudaError_t err = enqueue(); err != cudaSuccess) r.error = cuda_error("launch", err);
    else if (cudaError_t err2 = cudaDeviceSynchronize(); err2 != cudaSuccess) r.error = cuda_error("run", err2);
    return r;
  }
  if (cudaError_t err = clock_->mark(0); err != cudaSuccess) {
    r.error = cuda_error("the SM clock's first mark", err);
    return r;
  }
  if (cudaError_t err = cudaEventRecord(start_, 0); err != cudaSuccess) {
    r.error = cuda_error("cudaEventRecord", err);
    return r;
  }
  if (cudaError_t err = enqueue(); err != cudaSuccess) {
    r.error = cuda_error("launch", err);
    cudaDeviceSynchronize();
    return r;
  }
  if (cudaError_t err = cudaEventRecord(stop_, 0); err != cudaSuccess) {
    r.error = cuda_error("cudaEventRecord", err);
    return r;
  }
  if (cudaError_t err = clock_->mark(1); err != cudaSuccess) {
    r.error = cuda_error("the SM clock's second mark", err);
    cudaDeviceSynchronize();
    return r;
  }
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {  // the stop event and the second mark
    r.error = cuda_error("timed run", err);
    return r;
  }
  float elapsed = 0;
  if (cudaError_t err = cudaEventElapsedTime(&elapsed, start_, stop_); err != cudaSuccess) {
    r.error = cuda_error("cudaEventElapsedTime", err);
    return r;
  }
  r.ms = elapsed;
  r.sm_mhz = clock_->mhz();
  return r;
}

// ---------------------------------------------------------------- inputs

namespace {
__global__ void write_inputs_kernel(float* N, int width, int height, size_t pitch, uint64_t key, uint32_t run) {
  const size_t total = size_t(width) * size_t(height);
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
    const size_t row = i / size_t(width), col = i % size_t(width);
    N[row * pitch + col] = input_value(key, run, i);
  }
}

// 0xFF bytes are NaN: an output never written stays NaN and fails every comparison.
cudaError_t poison_image(float* P, int width, int height, size_t pitch) {
  const size_t row_bytes = size_t(width) * sizeof(float);
  if (pitch == size_t(width)) return cudaMemsetAsync(P, 0xFF, row_bytes * size_t(height), 0);
  return cudaMemset2DAsync(P, pitch * sizeof(float), 0xFF, row_bytes, size_t(height), 0);
}
}  // namespace

cudaError_t write_inputs(const Input& at, int width, int height, uint64_t key, uint32_t run) {
  if (!at.ptr) return cudaErrorInvalidDevicePointer;
  const size_t total = size_t(width) * size_t(height);
  const unsigned threads = 256;
  const unsigned blocks = unsigned(std::min<size_t>((total + threads - 1) / threads, 65536));
  write_inputs_kernel<<<blocks, threads>>>(at.ptr, width, height, at.pitch, key, run);
  return cudaGetLastError();
}

// ---------------------------------------------------------------- a kernel or vendor call

std::string EntryOps::regenerate(int run) {
  const cudaError_t err = write_inputs(entry_.input(p_), p_.width, p_.height, key_, uint32_t(run));
  return err == cudaSuccess ? std::string() : cuda_error("writing the inputs", err);
}

std::string EntryOps::poison() {
  const cudaError_t err = poison_image(p_.P, p_.width, p_.height, p_.pitch);
  return err == cudaSuccess ? std::string() : cuda_error("cudaMemset of the output", err);
}

CallResult EntryOps::call(bool timed) { return timer_.call([this] { return entry_.launch(p_); }, timed); }

Check EntryOps::check(int run) {
  Check c;
  const size_t row_bytes = size_t(p_.width) * sizeof(float);
  P_host_.resize(p_.elements());
  cudaError_t err;
  if (p_.pitch == size_t(p_.width))
    err = cudaMemcpy(P_host_.data(), p_.P, row_bytes * size_t(p_.height), cudaMemcpyDeviceToHost);
  else
    err = cudaMemcpy2D(P_host_.data(), row_bytes, p_.P, p_.pitch * sizeof(float), row_bytes, size_t(p_.height),
                       cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    c.message = cuda_error("copying the output back", err);
    return c;
  }
  const std::vector<float>& N = inputs_.get(key_, uint32_t(run), size_t(p_.width), size_t(p_.height));
  const Validation v = validate(p_, N, M_host_, P_host_, sample_, entry_.tolerance);
  c.ok = v.ok;
  c.message = v.first_bad;
  c.max_rel_error = v.max_rel_error;
  c.checked = v.checked;
  return c;
}

// ---------------------------------------------------------------- the copy baseline

std::string CopyOps::regenerate(int run) {
  const cudaError_t err = write_inputs(Input{src_, n_}, int(n_), 1, key_, uint32_t(run));
  return err == cudaSuccess ? std::string() : cuda_error("writing the copy's source", err);
}

std::string CopyOps::poison() {
  const cudaError_t err = cudaMemsetAsync(dst_, 0xFF, n_ * sizeof(float), 0);
  return err == cudaSuccess ? std::string() : cuda_error("cudaMemset of the copy's destination", err);
}

CallResult CopyOps::call(bool timed) {
  return timer_.call([this] { return cudaMemcpyAsync(dst_, src_, n_ * sizeof(float), cudaMemcpyDeviceToDevice, 0); },
                     timed);
}

Check CopyOps::check(int run) {
  Check c;
  std::vector<float> got(n_);
  if (cudaError_t err = cudaMemcpy(got.data(), dst_, n_ * sizeof(float), cudaMemcpyDeviceToHost); err != cudaSuccess) {
    c.message = cuda_error("copying the copy back", err);
    return c;
  }
  for (size_t i = 0; i < n_; ++i) {
    const float want = input_value(key_, uint32_t(run), i);
    if (!(got[i] == want)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "copy[%zu] = %.9g, expected %.9g", i, double(got[i]), double(want));
      c.message = buf;
      c.checked = i + 1;
      return c;
    }
  }
  c.ok = true;
  c.checked = n_;
  return c;
}

// ---------------------------------------------------------------- the FP32 FMA throughput

namespace {
constexpr int kFmaChains = 8;   // independent chains per thread: the FMA pipes never wait on a result
constexpr int kFmaUnroll = 16;  // steps unrolled per loop iteration: loop overhead below 2% of issue slots
constexpr float kFmaX = 0.999999f, kFmaY = 1e-6f;  // a -> x * a + y stays near [0, 2), never converges to a fixed point

#ifdef __CUDACC__
__host__ __device__
#endif
inline float fma_start(uint64_t thread, int chain, uint32_t run) {
  return float((thread * kFmaChains + uint64_t(chain) + run * 977u) % 4096u) * (1.0f / 2048.0f);
}

__global__ void fma_throughput_kernel(float* out, int steps, float x, float y, uint32_t run) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) a[c] = fma_start(t, c, run);
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int u = 0; u < kFmaUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kFmaChains; ++c) a[c] = fmaf(a[c], x, y);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += a[c];
  out[t] = sum;
}

float fma_reference(uint64_t t, int steps, uint32_t run) {
  float a[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) a[c] = fma_start(t, c, run);
  for (int s = 0; s < steps; ++s)
    for (int u = 0; u < kFmaUnroll; ++u)
      for (int c = 0; c < kFmaChains; ++c) a[c] = std::fma(a[c], kFmaX, kFmaY);  // the float overload: fmaf, correctly rounded
  float sum = 0.0f;
  for (int c = 0; c < kFmaChains; ++c) sum += a[c];
  return sum;
}
}  // namespace

FmaOps::FmaOps(Timer& timer, int sm_count) : timer_(timer) {
  int per_sm = 0;
  if (cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_throughput_kernel, int(threads_), 0);
      err != cudaSuccess || per_sm < 1) {
    setup_error_ = err != cudaSuccess ? cuda_error("cudaOccupancyMaxActiveBlocksPerMultiprocessor", err)
                                      : std::string("the FMA kernel fits no block on an SM");
    return;
  }
  blocks_ = unsigned(per_sm) * unsigned(std::max(sm_count, 1)) * 2;  // two full waves on every SM
  if (cudaError_t err = cudaMalloc(&out_, size_t(blocks_) * threads_ * sizeof(float)); err != cudaSuccess)
    setup_error_ = cuda_error("cudaMalloc of the FMA kernel's output", err);
}

FmaOps::~FmaOps() { cudaFree(out_); }

double FmaOps::fmas() const { return double(blocks_) * threads_ * double(steps_) * kFmaUnroll * kFmaChains; }

std::string FmaOps::shape() const {
  return std::to_string(blocks_) + " blocks of " + std::to_string(threads_) + " threads, " +
         std::to_string(kFmaChains) + " independent chains of " + std::to_string(steps_ * kFmaUnroll) +
         " fmaf per thread";
}

std::string FmaOps::regenerate(int run) {  // the chains start from values derived from the run number
  run_ = uint32_t(run);
  return setup_error_;
}

std::string FmaOps::poison() {
  const cudaError_t err = cudaMemsetAsync(out_, 0xFF, size_t(blocks_) * threads_ * sizeof(float), 0);
  return err == cudaSuccess ? std::string() : cuda_error("cudaMemset of the FMA kernel's output", err);
}

CallResult FmaOps::call(bool timed) {
  return timer_.call(
      [this] {
        fma_throughput_kernel<<<blocks_, threads_>>>(out_, steps_, kFmaX, kFmaY, run_);
        return cudaGetLastError();
      },
      timed);
}

Check FmaOps::check(int run) {
  Check c;
  const size_t n = size_t(blocks_) * threads_;
  std::vector<float> got(n);
  if (cudaError_t err = cudaMemcpy(got.data(), out_, n * sizeof(float), cudaMemcpyDeviceToHost); err != cudaSuccess) {
    c.message = cuda_error("copying the FMA kernel's output back", err);
    return c;
  }
  for (size_t i = 0; i < n; ++i)  // every thread wrote its sum (nothing is NaN)
    if (!std::isfinite(got[i])) {
      c.message = "FMA output " + std::to_string(i) + " is not a number: never written";
      return c;
    }
  // The chains, on the host, for threads spread over the grid (first, last, and between).
  for (size_t k = 0; k < 64; ++k) {
    const size_t t = k == 63 ? n - 1 : k * (n / 63);
    const float want = fma_reference(t, steps_, uint32_t(run));
    const double err = std::fabs(double(got[t]) - double(want)) / std::max(std::fabs(double(want)), 1e-30);
    ++c.checked;
    c.max_rel_error = std::max(c.max_rel_error, err);
    if (!(err <= 1e-6)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "FMA output %zu = %.9g, expected %.9g", t, double(got[t]), double(want));
      c.message = buf;
      return c;
    }
  }
  c.ok = true;
  return c;
}

}  // namespace halo::bench
