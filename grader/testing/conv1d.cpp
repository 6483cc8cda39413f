#include "conv1d.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "device_array.hpp"

namespace halo::test {
namespace {

// `start(i)` is the index of N under M[0] for output i; inputs before `first_valid` are treated
// as ghost cells (the reference has first_valid = 0). With `replicate`, a neighbour outside N
// takes the value of N's nearest end instead of 0 (the clamped-index mistake). Made against
// `fit` (ReferenceMaker): empty as soon as those outputs differ from it.
template <class Start>
Reference correlate(const std::vector<float>& N, const std::vector<float>& M, Start start, long first_valid = 0,
                    bool replicate = false, const std::vector<float>* fit = nullptr) {
  const long width = long(N.size()), mask = long(M.size());
  ReferenceMaker r(N.size(), fit);
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
    if (!r.add(sum, mag)) break;
  }
  return r.take();
}

}  // namespace

Reference conv1d_reference(const std::vector<float>& N, const std::vector<float>& M, const std::vector<float>* fit) {
  const long n = long(M.size()) / 2;
  return correlate(N, M, [n](long i) { return i - n; }, 0, false, fit);
}

std::vector<Misconception> conv1d_misconceptions(const std::vector<float>& N, const std::vector<float>& M,
                                                 const std::vector<float>* fit) {
  std::vector<Misconception> out;
  const long n = long(M.size()) / 2;
  std::vector<float> flipped(M.rbegin(), M.rend());
  if (flipped != M)
    out.push_back({"the convolution with the mask reversed: the book's convolution does not flip M (P[i] sums "
                   "N[i - n + j] * M[j])",
                   correlate(N, flipped, [n](long i) { return i - n; }, 0, false, fit)});
  out.push_back({"the result with N[0] left out, as if it were a ghost cell: check the ghost-cell test (k >= 0, "
                 "not k > 0)",
                 correlate(N, M, [n](long i) { return i - n; }, 1, false, fit)});
  out.push_back({"the result with the edges replicated (a neighbour before N[0] taken as N[0], one past the end as "
                 "N[Width - 1]): ghost cells count as 0, so skip them rather than clamping the index",
                 correlate(N, M, [n](long i) { return i - n; }, 0, true, fit)});
  // A radius fixed by a #define smaller than the run-time one: M[0..2R] around N[i].
  for (long R = 1; R < n; ++R) {
    const std::vector<float> part(M.begin(), M.begin() + 2 * R + 1);
    out.push_back({"the result with a radius of " + std::to_string(R) + " in place of n = Mask_Width / 2 = " +
                       std::to_string(n) + " (only M[0.." + std::to_string(2 * R) +
                       "] used): is the radius fixed by a #define or a constant? Mask_Width is a run-time argument",
                   correlate(N, part, [R](long i) { return i - R; }, 0, false, fit)});
  }
  // A loop over the mask fixed to 2R + 1 elements (j < 3) with the start right, at i - n: the
  // radius is right but the filter row is cut short.
  for (long R = 1; R < n; ++R) {
    const std::vector<float> part(M.begin(), M.begin() + 2 * R + 1);
    out.push_back({"the result with the loop over the mask fixed to " + std::to_string(2 * R + 1) +
                       " elements (only M[0.." + std::to_string(2 * R) + "] used, the first over N[i - n]): the "
                       "loop must run to Mask_Width = " + std::to_string(M.size()) + ", a run-time argument",
                   correlate(N, part, [n](long i) { return i - n; }, 0, false, fit)});
  }
  // A start index off by s shifts every output; the usual slips are i - Mask_Width and i.
  for (long s = -long(M.size()); s <= long(M.size()); ++s) {
    if (s == 0 || long(N.size()) < 2 * long(M.size())) continue;
    out.push_back({"the result with the mask's first element over N[i - n " + std::string(s > 0 ? "- " : "+ ") +
                       std::to_string(std::labs(s)) + "] instead of N[i - n]: check the index of the first input",
                   correlate(N, M, [n, s](long i) { return i - n - s; }, 0, false, fit)});
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

Reference from_tile(size_t width, const std::vector<float>& M, unsigned block,
                    const std::function<double(long b, long c)>& cell, const std::function<bool(long t, long c)>& seen,
                    const std::vector<float>* fit) {
  ReferenceMaker r(width, fit);
  const long bd = long(block), cells = bd + long(M.size()) - 1;
  std::vector<double> tile(size_t(std::max(cells, 0L)));
  for (size_t first = 0; block > 0 && first < width; first += block) {
    const long b = long(first / block);
    for (long c = 0; c < cells; ++c) tile[size_t(c)] = cell(b, c);
    for (size_t i = first; i < std::min(width, first + block); ++i) {
      const long t = long(i - first);
      double sum = 0, mag = 0;
      for (size_t j = 0; j < M.size(); ++j) {
        const long c = t + long(j);
        const double term = (!seen || seen(t, c) ? tile[size_t(c)] : 0.0) * double(M[j]);
        sum += term;
        mag += std::fabs(term);
      }
      if (!r.add(sum, mag)) return r.take();
    }
  }
  return r.take();
}

Reference halo_read_elsewhere(const std::vector<float>& N, const std::vector<float>& M, unsigned block,
                              const std::function<long(long i, long n, long j)>& halo_index,
                              const std::vector<float>* fit) {
  const long width = long(N.size()), mask = long(M.size()), n = mask / 2;
  ReferenceMaker r(N.size(), fit);
  for (long i = 0; i < width; ++i) {
    const long tile_start = block ? i / long(block) * long(block) : 0, tile_end = tile_start + long(block);
    double sum = 0, mag = 0;
    for (long j = 0; j < mask; ++j) {
      const long k = i - n + j;
      if (k < 0 || k >= width) continue;
      const long from = (k >= tile_start && k < tile_end) ? k : halo_index(i, n, j);
      if (from < 0 || from >= width) {
        sum = std::numeric_limits<double>::quiet_NaN();
        break;
      }
      const double term = double(N[size_t(from)]) * double(M[size_t(j)]);
      sum += term;
      mag += std::fabs(term);
    }
    if (!r.add(sum, mag)) break;
  }
  return r.take();
}

std::string shared_index_hint(const std::vector<float>& got, const std::vector<float>& N, const std::vector<float>& M,
                              const Reference& want, unsigned block) {
  const long width = long(N.size()), n = long(M.size()) / 2, bd = long(block);
  auto shifted = [&](long i, long s, double* magnitude) {
    double sum = 0;
    *magnitude = 0;
    for (long j = 0; j < long(M.size()); ++j) {
      const long k = i - n + s + j;
      if (k < 0 || k >= width) continue;
      sum += double(N[size_t(k)]) * double(M[size_t(j)]);
      *magnitude += std::fabs(double(N[size_t(k)]) * double(M[size_t(j)]));
    }
    return sum;
  };
  for (long s = -n; s <= n && bd > 0; ++s) {
    if (s == 0) continue;
    size_t telling = 0, past_tile_wrong = 0;
    bool fits = true;
    for (long i = 0; i < width && fits; ++i) {
      double magnitude = 0;
      const double value = shifted(i, s, &magnitude);
      const bool matches = !is_poison(got[size_t(i)]) && close_enough(got[size_t(i)], value, magnitude);
      const long offset = i % bd + s;
      if (offset >= 0 && offset < bd) {
        fits = matches;
        telling += !close_enough(float(value), want.value[size_t(i)], want.magnitude[size_t(i)]);
      } else {
        past_tile_wrong += !matches;
      }
    }
    if (fits && telling >= 2 && past_tile_wrong > 0)
      return "hint: every output whose mask stays inside its block's tile equals the sum with N_ds read " +
             std::to_string(std::labs(s)) + (s > 0 ? " cell to the right" : " cell to the left") +
             (std::labs(s) > 1 ? "s" : "") + ", and the outputs that then run past the tile are wrong: the index "
             "into N_ds is off by " + std::to_string(s) + ". N_ds[0] holds N[blockIdx.x * blockDim.x - n], so "
             "thread tx pairs M[j] with N_ds[tx + j]";
  }
  return "";
}

}  // namespace halo::test
