// Random inputs and validation against a double-precision CPU reference.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include "bench.hpp"

namespace halo::bench {

// The run's seed: HALO_SEED when set (replays a run), otherwise fresh.
uint64_t run_seed();

// n floats uniform in [-1, 1), a pure function of (seed, stream). The masks.
std::vector<float> random_floats(size_t n, uint64_t seed, uint64_t stream);

// The inputs N, written afresh before every run (timing.cu's kernel on the device, HostInputs
// here for the reference): element `index` (row * width + col) of run `run` of the stream `key`.
// Integer mixing, then 24 bits turned into a float in [-1, 1) by exact operations: the device
// and the host compute the same bits.
#ifdef __CUDACC__
__host__ __device__
#endif
inline float input_value(uint64_t key, uint32_t run, uint64_t index) {
  uint64_t z = key + uint64_t(run) * 0xD1B54A32D192ED03ull + index * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(uint32_t(z >> 40)) * (1.0f / 8388608.0f) - 1.0f;  // [0, 2^24) * 2^-23 - 1: exact
}

// The key of a run's input stream (1: the 1D input, 2: the 2D input, 3: the copy baseline's).
inline uint64_t input_key(uint64_t seed, uint64_t stream) { return seed * 0x2545F4914F6CDD1Dull + stream * 0x632BE59BD9B4E019ull; }

// Host copies of runs' inputs for the reference, made on first use. Every entry is checked on
// the same runs (the validation run and the last timed run), so a few images serve them all.
class HostInputs {
 public:
  const std::vector<float>& get(uint64_t key, uint32_t run, size_t width, size_t height);

 private:
  struct Image {
    uint64_t key;
    uint32_t run;
    size_t width, height;
    std::vector<float> values;
  };
  std::list<Image> images_;  // at most kKept, the oldest dropped first (a list: the others stay put)
  static constexpr size_t kKept = 4;
};

// Which outputs validation compares: the first and last rows and columns (where ghost cells
// are), plus a random sample of the interior. Linear indices row * width + col. Outputs fewer
// than `unchecked_edge` pixels from an edge are left out (Entry::unchecked_edge).
std::vector<size_t> sample_outputs(const Problem& shape, uint64_t seed, int unchecked_edge = 0);

struct Validation {
  bool ok = true;
  size_t checked = 0;          // outputs compared with the reference
  size_t not_finite = 0;       // outputs (of all) that are NaN or infinite: never written, or worse
  double max_rel_error = 0.0;  // |P - reference| / sum of |N * M| terms, the worst sampled output
  std::string first_bad;       // the first wrong output, said in words
};

// P is the whole output, dense (width * height). The book's convolution: no flip, ghost cells 0.
Validation validate(const Problem& shape, const std::vector<float>& N, const std::vector<float>& M,
                    const std::vector<float>& P, const std::vector<size_t>& sample, double tolerance);

}  // namespace halo::bench
