// Random inputs and validation against a double-precision CPU reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench.hpp"

namespace halo::bench {

// The run's seed: HALO_SEED when set (replays a run), otherwise fresh.
uint64_t run_seed();

// n floats uniform in [-1, 1), a pure function of (seed, stream).
std::vector<float> random_floats(size_t n, uint64_t seed, uint64_t stream);

// Which outputs validation compares: the first and last rows and columns (where ghost cells
// are), plus a random sample of the interior. Linear indices row * width + col.
std::vector<size_t> sample_outputs(const Problem& shape, uint64_t seed);

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
