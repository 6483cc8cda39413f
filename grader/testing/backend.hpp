// Which backend a test binary was built for. CMake defines exactly one of HALO_BACKEND_CPU and
// HALO_BACKEND_CUDA; the same test sources build for both.
#pragma once

#include "halo/launch.hpp"

#if defined(HALO_BACKEND_CPU)
#include "halo/cpu/launch_record.hpp"
#endif

namespace halo::test {

#if defined(HALO_BACKEND_CUDA)
inline constexpr const char* kBackend = "cuda";
#else
inline constexpr const char* kBackend = "cpu";
#endif

}  // namespace halo::test
