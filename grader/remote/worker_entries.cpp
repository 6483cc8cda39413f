// The section's entry table of a worker: compiled once per section with that section's folder on
// the include path, it declares what grader/sections/<folder>/entry_points.inc lists (the
// student's file defines them) and maps each name to the code that serves it.
#include "halo/chapter_defines.hpp"
#include "halo/cpu/cuda_runtime.hpp"
#include "worker_serve.hpp"

#define HALO_KERNEL(name, params) void name params;
#define HALO_KERNEL_FOR(name, params) void (*name(int)) params;
#define HALO_HOST_CALL(name, ret, params) ret name params;
#define HALO_HOST_COPY(name, count) cudaError_t name(const float* host, int n);
#define HALO_CONSTANT(name, type, count) extern type name[];
#include "entry_points.inc"
#undef HALO_KERNEL
#undef HALO_KERNEL_FOR
#undef HALO_HOST_CALL
#undef HALO_HOST_COPY
#undef HALO_CONSTANT

namespace halo::worker {

#define HALO_KERNEL(name, params) {#name, &serve_kernel<&::name>},
#define HALO_KERNEL_FOR(name, params) {#name, &serve_kernel_for<&::name>},
#define HALO_HOST_CALL(name, ret, params) {#name, &serve_host_call<&::name>},
#define HALO_HOST_COPY(name, count) {#name, &serve_host_copy<&::name>},
#define HALO_CONSTANT(name, type, count) {#name, &serve_constant<::name, sizeof(type) * size_t(count)>},
extern const Entry kEntries[] = {
#include "entry_points.inc"
};
extern const size_t kEntryCount = sizeof kEntries / sizeof kEntries[0];

}  // namespace halo::worker
