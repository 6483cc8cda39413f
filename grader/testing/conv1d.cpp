#include "conv1d.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "device_array.hpp"

namespace halo::test {
namespace {

// `start(i)` is the index of N under M[0] for output i; inputs before `first_valid` are treated
// as ghost cells (the reference has first_valid = 0). With `replicate`, a neighbour outside N
// takes the value of N's nearest end instead of 0 (the clamped-index mistake).
template <class Start>
Reference correlate(const std::vector<float>& N, const std::vector<float>& M, Start start, long first_valid = 0,
                    bool replicate = false) {
  const long width = long(N.size()), mask = long(M.size());
  Reference r{std::vector<double>(N.size()), std::vector<double>(N.size())};
  for (long i = 0; i < width; ++i) {
    double sum = 0, mag = 0;
    for (long j = 0; j < mask; ++j) {
      long k = start(i) + j;
      if (replicate) k = std::min(std::max(k, 0L), width - 1);
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
  out.push_back({"the result with the edges replicated (a neighbour before N[0] taken as N[0], one past the end as "
                 "N[Width - 1]): ghost cells count as 0, so skip them rather than clamping the index",
                 correlate(N, M, [n](long i) { return i - n; }, 0, true)});
  // A radius fixed by a #define smaller than the run-time one: M[0..2R] around N[i].
  for (long R = 1; R < n; ++R) {
    const std::vector<float> part(M.begin(), M.begin() + 2 * R + 1);
    out.push_back({"the result with a radius of " + std::to_string(R) + " in place of n = Mask_Width / 2 = " +
                       std::to_string(n) + " (only M[0.." + std::to_string(2 * R) +
                       "] used): is the radius fixed by a #define or a constant? Mask_Width is a run-time argument",
                   correlate(N, part, [R](long i) { return i - R; })});
  }
  // A loop over the mask fixed to 2R + 1 elements (j < 3) with the start right, at i - n: the
  // radius is right but the filter row is cut short.
  for (long R = 1; R < n; ++R) {
    const std::vector<float> part(M.begin(), M.begin() + 2 * R + 1);
    out.push_back({"the result with the loop over the mask fixed to " + std::to_string(2 * R + 1) +
                       " elements (only M[0.." + std::to_string(2 * R) + "] used, the first over N[i - n]): the "
                       "loop must run to Mask_Width = " + std::to_string(M.size()) + ", a run-time argument",
                   correlate(N, part, [n](long i) { return i - n; })});
  }
  // A start index off by s shifts every output; the usual slips are i - Mask_Width and i.
  for (long s = -long(M.size()); s <= long(M.size()); ++s) {
    if (s == 0 || long(N.size()) < 2 * long(M.size())) continue;
    out.push_back({"the result with the mask's first element over N[i - n " + std::string(s > 0 ? "- " : "+ ") +
                       std::to_string(std::labs(s)) + "] instead of N[i - n]: check the index of the first input",
                   correlate(N, M, [n, s](long i) { return i - n - s; })});
  }
  return out;
}

BlockEdges wrong_at_block_edges(const std::vector<float>& got, const Reference& want, size_t mask_width,
                                 size_t block) {
  BlockEdges e;
  const size_t width = got.size(), n = mask_width / 2;
  if (block == 0 || n == 0) return e;
  for (size_t i = 0; i < width; ++i) {
    if (is_poison(got[i]) || close_enough(got[i], want.value[i], want.magnitude[i])) continue;
    const size_t offset = i % block, tile_start = i - offset;
    const bool left = offset < n && tile_start > 0, right = offset + n >= block && tile_start + block < width;
    if (!left && !right) return {};
    e.left |= left && !right;
    e.right |= right && !left;
    e.any = true;
  }
  return e;
}

}  // namespace halo::test
