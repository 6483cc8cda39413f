// main() of every section's test binary: prints the seed, and on the CUDA backend turns "no
// device" into CTest's skip code instead of a pass or a failure.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "backend.hpp"
#include "measured_launch.hpp"
#include "random_inputs.hpp"

namespace {
constexpr int kSkipCode = 77;  // SKIP_RETURN_CODE of every Halo test

bool only_listing(int argc, char** argv) {
  for (int k = 1; k < argc; ++k)
    if (std::strncmp(argv[k], "--list", 6) == 0 || std::strncmp(argv[k], "-l", 2) == 0 ||
        std::strcmp(argv[k], "--help") == 0 || std::strcmp(argv[k], "-h") == 0)
      return true;
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  if (!only_listing(argc, argv)) {
#if defined(HALO_BACKEND_CUDA)
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::printf("no CUDA device here: GPU tests skipped (not passed)\n");
      return kSkipCode;
    }
#endif
    std::printf("backend: %s; inputs from HALO_SEED=%llu (set it to replay this run)\n", halo::test::kBackend,
                static_cast<unsigned long long>(halo::test::run_seed()));
    std::fflush(stdout);
  }
  doctest::Context context(argc, argv);
  const int failed = context.run();
  // A GPU binary without the load counter skipped its load tests: with nothing else failing,
  // the run is "not run" for CTest, never "passed".
  if (failed == 0 && halo::test::load_tests_skipped()) return kSkipCode;
  return failed;
}
