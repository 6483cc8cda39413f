// Compares a kernel's output with a double-precision reference and explains the difference:
// which outputs were never written (still poison), which are wrong, and whether the output
// matches a known mistake (an alternative reference supplied by the section).
#pragma once

#include <functional>
#include <string>
#include <type_traits>
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

// The same, with the misconceptions made by `make()` only when the outputs are wrong: each is a
// whole reference (two doubles per output), and a right kernel at 2^20 outputs must not pay
// hundreds of MB for them (Gradescope's default container has 768 MB).
template <class Make, class = std::enable_if_t<std::is_invocable_r_v<std::vector<Misconception>, Make>>>
Verdict compare_outputs(const std::string& array, const std::vector<float>& got, const Reference& want, Make make,
                        IndexName index_name = nullptr) {
  Verdict v = compare_outputs(array, got, want, std::vector<Misconception>{}, index_name);
  return v.ok ? v : compare_outputs(array, got, want, make(), index_name);
}

}  // namespace halo::test
