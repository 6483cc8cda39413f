// Fresh random inputs on every run, replayable: the run's seed is printed at start-up and
// HALO_SEED=<seed> reproduces it. Values are multiples of small powers of two, so products and
// the sums of a few of them are exact in float, and never zero.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace halo::test {

uint64_t run_seed();

class Rng {
 public:
  // Each call site mixes its own salt in, so adding a test does not change the others' inputs.
  explicit Rng(uint64_t salt) : engine_(run_seed() ^ (salt * 0x9E3779B97F4A7C15ull)) {}

  // Non-zero multiples of 1/8 in [-4, 4].
  std::vector<float> signal(size_t count) { return values(count, 32, 8.0f); }
  // Non-zero multiples of 1/4 in [-2, 2]: masks are asymmetric, so a flipped mask shows.
  std::vector<float> mask(size_t count) { return values(count, 8, 4.0f); }

 private:
  std::vector<float> values(size_t count, int steps, float scale) {
    // One draw per value: the low bit is the sign, the rest picks the step. `steps` is a power
    // of two (it divides 2^63), so the modulo is exactly uniform; std::bernoulli_distribution
    // would cost a long-double logarithm per value, a third of a 2^20 test's judge time.
    std::vector<float> v(count);
    for (auto& x : v) {
      const uint64_t r = engine_();
      const int magnitude = 1 + int((r >> 1) % uint64_t(steps));
      x = float((r & 1) ? -magnitude : magnitude) / scale;
    }
    return v;
  }
  std::mt19937_64 engine_;
};

// The sizes of the "large" correctness tests. One launch at the large size shows the kernel
// right over thousands of blocks; every other mask and block size such a test tries runs at the
// many-blocks size (256 blocks of 256 threads, still no multiple of any block), which catches
// the same mistakes for 1/16 of the large launch's time: those configurations are also swept at
// small sizes by the other tests, and a student waits for every launch of every grade.
constexpr size_t kLargeWidth = size_t(1) << 20;
constexpr size_t kManyBlocksWidth = (size_t(1) << 16) + 3;

// Calls check(N, M) on fresh random inputs for every width and every mask width given: the
// correctness sweep of the 1D sections.
template <class Widths, class Masks, class Check>
void for_random_1d_inputs(const Widths& widths, const Masks& mask_widths, uint64_t salt, Check check) {
  Rng rng(salt);
  for (size_t width : widths)
    for (int mask : mask_widths) check(rng.signal(width), rng.mask(size_t(mask)));
}

// The mask widths of `mask_widths` wider than `width`: the "width smaller than the mask" tests
// sweep only those, so every thread meets ghost cells on both sides and the launch a failure
// logs (Width = 2, Mask_Width = 3) says what the test's name says.
template <class Masks>
std::vector<int> masks_wider_than(size_t width, const Masks& mask_widths) {
  std::vector<int> out;
  for (int mask : mask_widths)
    if (size_t(mask) > width) out.push_back(mask);
  return out;
}

}  // namespace halo::test
