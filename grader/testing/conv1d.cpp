#include "conv1d.hpp"

#include <cmath>
#include <string>

namespace halo::test {
namespace {

// `start(i)` is the index of N under M[0] for output i; inputs before `first_valid` are treated
// as ghost cells (the reference has first_valid = 0).
template <class Start>
Reference correlate(const std::vector<float>& N, const std::vector<float>& M, Start start, long first_valid = 0) {
  const long width = long(N.size()), mask = long(M.size());
  Reference r{std::vector<double>(N.size()), std::vector<double>(N.size())};
  for (long i = 0; i < width; ++i) {
    double sum = 0, mag = 0;
    for (long j = 0; j < mask; ++j) {
      long k = start(i) + j;
      if (k < first_valid || k >= width) continue;
      double term = double(N[size_t(k)]) * double(M[size_t(j)]);
      sum += term;
      mag += std::fabs(term);
    }
    r.value[size_t(i)] = sum;
    r.magnitude[size_t(i)] = mag;
  }
  return r;
}

}  // namespace

Reference conv1d_reference(const std::vector<float>& N, const std::vector<float>& M) {
  const long n = long(M.size()) / 2;
  return correlate(N, M, [n](long i) { return i - n; });
}

std::vector<Misconception> conv1d_misconceptions(const std::vector<float>& N, const std::vector<float>& M) {
  std::vector<Misconception> out;
  const long n = long(M.size()) / 2;
  std::vector<float> flipped(M.rbegin(), M.rend());
  if (flipped != M)
    out.push_back({"the convolution with the mask reversed: the book's convolution does not flip M (P[i] sums "
                   "N[i - n + j] * M[j])",
                   conv1d_reference(N, flipped)});
  out.push_back({"the result with N[0] left out, as if it were a ghost cell: check the ghost-cell test (k >= 0, "
                 "not k > 0)",
                 correlate(N, M, [n](long i) { return i - n; }, 1)});
  // A start index off by s shifts every output; the usual slips are i - Mask_Width and i.
  for (long s = -long(M.size()); s <= long(M.size()); ++s) {
    if (s == 0 || long(N.size()) < 2 * long(M.size())) continue;
    out.push_back({"the result with the mask's first element over N[i - n " + std::string(s > 0 ? "- " : "+ ") +
                       std::to_string(std::labs(s)) + "] instead of N[i - n]: check the index of the first input",
                   correlate(N, M, [n, s](long i) { return i - n - s; })});
  }
  return out;
}

}  // namespace halo::test
