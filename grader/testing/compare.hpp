// Compares a kernel's output with a double-precision reference and explains the difference:
// which outputs were never written (still poison), which are wrong, and whether the output
// matches a known mistake (an alternative reference supplied by the section).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "verdict.hpp"

namespace halo::test {

// Reference values with, per output, the sum of |terms| that went into it: floating-point
// error scales with that, not with the (possibly cancelling) result.
struct Reference {
  std::vector<double> value;
  std::vector<double> magnitude;
};

// A known way to get it wrong, e.g. "the mask reversed (a flipped convolution)".
struct Misconception {
  std::string description;
  Reference reference;
};

// Relative tolerance against the magnitude: a float sum of a few dozen terms is far inside it.
inline constexpr double kRelativeTolerance = 1e-5;

bool close_enough(float got, double want, double magnitude);

// `first_index` lets 2D callers print indices; the default prints `P[i]`.
using IndexName = std::function<std::string(size_t)>;

Verdict compare_outputs(const std::string& array, const std::vector<float>& got, const Reference& want,
                        const std::vector<Misconception>& misconceptions = {}, IndexName index_name = nullptr);

}  // namespace halo::test
