#include <cstdlib>
#include <random>

#include "random_inputs.hpp"

namespace halo::test {

uint64_t run_seed() {
  static const uint64_t seed = []() -> uint64_t {
    if (const char* env = std::getenv("HALO_SEED"); env && *env) return uint64_t(std::strtoull(env, nullptr, 10));
    std::random_device rd;
    return uint64_t((uint64_t(rd()) << 32 | rd()) % 1000000000ull);  // short enough to retype
  }();
  return seed;
}

}  // namespace halo::test
