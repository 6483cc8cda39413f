// The timer on the GPU: the operations of the timing protocol (protocol.hpp says their order)
// for the kernels and vendor calls, for the copy baseline and for the FP32 FMA throughput.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "inputs.hpp"
#include "protocol.hpp"

namespace halo::bench {

std::string cuda_error(const char* when, cudaError_t err);

class SmClock;  // sm_clock.cuh: the SM clock across a timed call

class Timer {
 public:
  // The flush buffer is twice the L2 (read from the device's properties), so a run never finds
  // the previous run's data in the cache: each run pays for its DRAM traffic.
  explicit Timer(size_t l2_bytes);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Resets persisting L2 lines (cudaCtxResetPersistingL2Cache: nothing a run marked persisting
  // outlives it), then writes the flush buffer on the default stream.
  std::string flush();
  // One call of `enqueue` (which puts work on the default stream and returns its launch error),
  // waited for. Timed: between its own start and stop events, with the SM clock across them
  // (CallResult::sm_mhz, read by small kernels just outside the events).
  CallResult call(const std::function<cudaError_t()>& enqueue, bool timed);

  size_t flush_bytes() const { return flush_bytes_; }
  bool persisting_reset() const { return persisting_reset_; }  // false: the device does not support it

 private:
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  unsigned flushes_ = 0;
  bool persisting_reset_ = true;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::unique_ptr<SmClock> clock_;
};

// Writes run `run`'s inputs into a width x height image whose rows are `pitch` elements apart
// (input_value(key, run, row * width + col)); enqueued on the default stream.
cudaError_t write_inputs(const Input& at, int width, int height, uint64_t key, uint32_t run);

// A kernel or vendor call at one mask. Its output is checked with validate() (inputs.hpp) on a
// sample of outputs, against the inputs of the run checked.
class EntryOps : public ProtocolOps {
 public:
  EntryOps(Timer& timer, const Entry& entry, const Problem& p, uint64_t key, HostInputs& inputs,
           const std::vector<float>& M_host, std::vector<size_t> sample)
      : timer_(timer), entry_(entry), p_(p), key_(key), inputs_(inputs), M_host_(M_host), sample_(std::move(sample)) {}
  std::string regenerate(int run) override;
  std::string poison() override;
  std::string flush() override { return timer_.flush(); }
  CallResult call(bool timed) override;
  Check check(int run) override;

 private:
  Timer& timer_;
  const Entry& entry_;
  const Problem& p_;
  uint64_t key_;
  HostInputs& inputs_;
  const std::vector<float>& M_host_;
  std::vector<size_t> sample_;
  std::vector<float> P_host_;
};

// The copy baseline: cudaMemcpyAsync of `bytes` from src to dst, device to device; checked in full.
class CopyOps : public ProtocolOps {
 public:
  CopyOps(Timer& timer, float* src, float* dst, size_t elements, uint64_t key)
      : timer_(timer), src_(src), dst_(dst), n_(elements), key_(key) {}
  std::string regenerate(int run) override;
  std::string poison() override;
  std::string flush() override { return timer_.flush(); }
  CallResult call(bool timed) override;
  Check check(int run) override;

 private:
  Timer& timer_;
  float* src_;
  float* dst_;
  size_t n_;
  uint64_t key_;
};

// The FP32 FMA throughput of this GPU: every thread runs kFmaChains independent chains of fmaf
// (a = a * x + y), enough blocks for two full waves on every SM; one float per thread written at
// the end, checked against the same chains computed on the host. No memory traffic to speak of.
class FmaOps : public ProtocolOps {
 public:
  FmaOps(Timer& timer, int sm_count);  // sizes the grid from the occupancy of the kernel
  ~FmaOps();
  FmaOps(const FmaOps&) = delete;
  FmaOps& operator=(const FmaOps&) = delete;
  std::string regenerate(int run) override;
  std::string poison() override;
  std::string flush() override { return timer_.flush(); }
  CallResult call(bool timed) override;
  Check check(int run) override;

  double fmas() const;  // per call
  std::string shape() const;  // the launch, in words

 private:
  Timer& timer_;
  float* out_ = nullptr;
  unsigned blocks_ = 0, threads_ = 256;
  int steps_ = 1024;
  uint32_t run_ = 0;
  std::string setup_error_;
};

}  // namespace halo::bench
