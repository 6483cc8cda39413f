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

// Makes the reference of a misconception output by output, in order, checked against the
// kernel's outputs `fit`: compare_outputs names a misconception only where every output equals
// it, so at the first output that does not, making it stops and take() gives an empty reference
// (never named). A wrong kernel then pays, for each mistake it did not make, the outputs up to
// its first difference rather than a whole reference (about twenty of them, at 2^20 outputs, were
// most of a failing 1D test's time). With `fit` null, the whole reference is made.
class ReferenceMaker {
 public:
  ReferenceMaker(size_t size, const std::vector<float>* fit);
  // The next output. False once `fit` differs from the reference: stop adding.
  bool add(double value, double magnitude);
  Reference take() { return std::move(r_); }

 private:
  const std::vector<float>* fit_;
  bool given_up_ = false;
  Reference r_;
};

// Relative tolerance against the magnitude: a float sum of a few dozen terms is far inside it.
inline constexpr double kRelativeTolerance = 1e-5;

bool close_enough(float got, double want, double magnitude);

// `first_index` lets 2D callers print indices; the default prints `P[i]`.
using IndexName = std::function<std::string(size_t)>;

Verdict compare_outputs(const std::string& array, const std::vector<float>& got, const Reference& want,
                        const std::vector<Misconception>& misconceptions = {}, IndexName index_name = nullptr);

// Some element of `got` still holds the poison value.
bool any_unwritten(const std::vector<float>& got);

// What a misconception builder makes its references against (ReferenceMaker's `fit`).
using Fit = const std::vector<float>*;

// The same, with the misconceptions made by `make(&got)` only when the outputs are wrong: each is
// a whole reference (two doubles per output), and a right kernel at 2^20 outputs must not pay
// hundreds of MB for them (Gradescope's default container has 768 MB). `make` is handed the very
// outputs compared here as its `fit`, so a caller cannot make them against other outputs.
template <class Make, class = std::enable_if_t<std::is_invocable_r_v<std::vector<Misconception>, Make, Fit>>>
Verdict compare_outputs(const std::string& array, const std::vector<float>& got, const Reference& want, Make make,
                        IndexName index_name = nullptr) {
  Verdict v = compare_outputs(array, got, want, std::vector<Misconception>{}, index_name);
  // A misconception fits only outputs written everywhere (matches()): with one element never
  // written, as in every launch of a stub, none can, and making them is wasted work.
  if (v.ok || any_unwritten(got)) return v;
  return compare_outputs(array, got, want, make(&got), index_name);
}

}  // namespace halo::test
