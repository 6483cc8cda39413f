// Random inputs and validation against a double-precision CPU reference.
#include "inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

namespace halo::bench {
namespace {
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

uint64_t run_seed() {
  if (const char* s = std::getenv("HALO_SEED"); s && *s) return std::strtoull(s, nullptr, 10);
  std::random_device rd;
  return (uint64_t(rd()) << 32 | rd()) % 1000000000ull;  // short enough to retype
}

std::vector<float> random_floats(size_t n, uint64_t seed, uint64_t stream) {
  std::vector<float> v(n);
  uint64_t state = seed * 0x2545F4914F6CDD1Dull + stream;
  for (auto& x : v) x = float(double(splitmix64(state) >> 40) / double(1ull << 24) * 2.0 - 1.0);
  return v;
}

const std::vector<float>& HostInputs::get(uint64_t key, uint32_t run, size_t width, size_t height) {
  for (const Image& im : images_)
    if (im.key == key && im.run == run && im.width == width && im.height == height) return im.values;
  if (images_.size() >= kKept) images_.pop_front();
  Image im{key, run, width, height, std::vector<float>(width * height)};
  for (size_t i = 0; i < im.values.size(); ++i) im.values[i] = input_value(key, run, i);
  images_.push_back(std::move(im));
  return images_.back().values;
}

std::vector<size_t> sample_outputs(const Problem& s, uint64_t seed, int unchecked_edge) {
  std::vector<size_t> idx;
  const size_t W = size_t(s.width), H = size_t(s.height);
  const size_t edge = size_t(s.radius()) + 2;  // every output whose window meets a ghost cell, and one more
  for (size_t row = 0; row < H; ++row) {
    const bool edge_row = row < edge || row + edge >= H;
    if (edge_row && s.dims == 2) {
      for (size_t col = 0; col < W; ++col) idx.push_back(row * W + col);
    } else {
      for (size_t col = 0; col < std::min(edge, W); ++col) idx.push_back(row * W + col);
      for (size_t col = W > edge ? W - edge : 0; col < W; ++col) idx.push_back(row * W + col);
    }
  }
  uint64_t state = seed ^ 0x5EED5EEDull;
  for (int k = 0; k < 200000; ++k) idx.push_back(size_t(splitmix64(state) % (W * H)));
  if (unchecked_edge <= 0) return idx;
  const size_t band = size_t(unchecked_edge);
  std::vector<size_t> kept;
  for (size_t i : idx) {
    const size_t row = i / W, col = i % W;
    const bool near_row_edge = s.dims == 2 && (row < band || row + band >= H);
    if (!near_row_edge && col >= band && col + band < W) kept.push_back(i);
  }
  return kept;
}

Validation validate(const Problem& s, const std::vector<float>& N, const std::vector<float>& M,
                    const std::vector<float>& P, const std::vector<size_t>& sample, double tolerance) {
  Validation v;
  for (float x : P) v.not_finite += !std::isfinite(x);
  const long long W = s.width, H = s.height, r = s.radius(), m = s.mask_width;
  for (size_t i : sample) {
    const long long row = (long long)(i) / W, col = (long long)(i) % W;
    double sum = 0.0, magnitude = 0.0;
    const long long rows = s.dims == 2 ? m : 1;
    for (long long a = 0; a < rows; ++a) {
      const long long y = s.dims == 2 ? row - r + a : row;
      if (y < 0 || y >= H) continue;
      for (long long b = 0; b < m; ++b) {
        const long long x = col - r + b;
        if (x < 0 || x >= W) continue;  // ghost cell: 0
        const double term = double(N[size_t(y * W + x)]) * double(M[size_t(a * m + b)]);
        sum += term;
        magnitude += std::fabs(term);
      }
    }
    const double got = P[i];
    const double err = std::isfinite(got) ? std::fabs(got - sum) / std::max(magnitude, 1e-30) : INFINITY;
    ++v.checked;
    if (err > v.max_rel_error) v.max_rel_error = err;
    if (!(err <= tolerance) && v.first_bad.empty()) {
      char buf[200];
      if (s.dims == 2)
        std::snprintf(buf, sizeof buf, "P[%lld][%lld] = %.9g, expected %.9g", row, col, got, sum);
      else
        std::snprintf(buf, sizeof buf, "P[%lld] = %.9g, expected %.9g", col, got, sum);
      v.first_bad = buf;
    }
  }
  v.ok = v.first_bad.empty() && v.not_finite == 0;
  if (v.first_bad.empty() && v.not_finite)
    v.first_bad = std::to_string(v.not_finite) + " outputs are NaN or infinite (never written: still the poison)";
  return v;
}

}  // namespace halo::bench
