// CUDA's warp-level shuffles and votes for the CPU backend. A warp is 32 consecutive threads of
// the block (linear index x + y * blockDim.x + z * blockDim.x * blockDim.y, as on a GPU). Every
// call is a rendezvous of the warp: each lane leaves its value with the scheduler and yields,
// and when every lane of the warp still running has arrived, each reads the value it asked for
// (warp_exchange in grader/cpu/scheduler.cpp). As on Volta and later, every lane of `mask` must
// make the same call; the mask itself is not checked. Included by cuda_dialect.hpp, after its
// declarations of thread_index() and block_dim().
#pragma once

#include <cstdint>
#include <type_traits>

namespace halo::cpu {
// The value lane `source` of the caller's warp left (the caller's own when that lane does not
// exist or has finished); `vote` makes it the ballot of every lane's value != 0 instead.
uint64_t warp_exchange(uint64_t mine, int source, bool vote);
}  // namespace halo::cpu

// Helpers at global scope: a kernel's translation unit may define no function inside the
// grader's namespaces, and these are compiled into it.
inline int halo_warp_lane() {
  const uint3 t = ::halo::cpu::thread_index();
  const dim3 b = ::halo::cpu::block_dim();
  return int((t.x + t.y * b.x + t.z * b.x * b.y) % 32u);
}

// The value travels as its bits (a bit cast: no memory).
template <class T>
inline T halo_warp_shuffle(T var, int source_lane) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const uint64_t got = ::halo::cpu::warp_exchange(__builtin_bit_cast(Bits, var), source_lane, false);
  return __builtin_bit_cast(T, Bits(got));
}

// The shuffles, overloaded for the types CUDA overloads them for (int, unsigned, long, long
// long and their unsigned kinds, float, double): a short or a char converts to int, as with
// nvcc. Not inlined: inlined, the optimiser may store a shuffled float's integer bits straight
// into a float array, a store whose type is not the array's, which the validator cannot match
// with its instrumentation callback. width: the warp split into segments of `width` lanes (a
// power of two up to 32).
#define HALO_DEFINE_SHUFFLES(T)                                                                  \
  inline __attribute__((noinline)) T __shfl_sync(unsigned, T var, int srcLane, int width = 32) { \
    const int lane = halo_warp_lane(), start = lane / width * width;                             \
    return halo_warp_shuffle(var, start + ((srcLane % width) + width) % width);                  \
  }                                                                                              \
  inline __attribute__((noinline)) T __shfl_up_sync(unsigned, T var, unsigned delta, int width = 32) { \
    const int lane = halo_warp_lane(), start = lane / width * width, source = lane - int(delta); \
    return halo_warp_shuffle(var, source >= start ? source : lane);                              \
  }                                                                                              \
  inline __attribute__((noinline)) T __shfl_down_sync(unsigned, T var, unsigned delta, int width = 32) { \
    const int lane = halo_warp_lane(), start = lane / width * width, source = lane + int(delta); \
    return halo_warp_shuffle(var, source < start + width ? source : lane);                       \
  }                                                                                              \
  inline __attribute__((noinline)) T __shfl_xor_sync(unsigned, T var, int laneMask, int width = 32) { \
    const int lane = halo_warp_lane(), start = lane / width * width, source = lane ^ laneMask;   \
    return halo_warp_shuffle(var, source < start + width ? source : lane);                       \
  }
HALO_DEFINE_SHUFFLES(int)
HALO_DEFINE_SHUFFLES(unsigned int)
HALO_DEFINE_SHUFFLES(long)
HALO_DEFINE_SHUFFLES(unsigned long)
HALO_DEFINE_SHUFFLES(long long)
HALO_DEFINE_SHUFFLES(unsigned long long)
HALO_DEFINE_SHUFFLES(float)
HALO_DEFINE_SHUFFLES(double)
#undef HALO_DEFINE_SHUFFLES

inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return unsigned(halo::cpu::warp_exchange(predicate != 0, 0, true)) & mask;
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) {
  // Lanes that do not exist or have finished do not vote; the others must all say yes.
  const unsigned present = unsigned(halo::cpu::warp_exchange(1, 0, true)) & mask;
  return (__ballot_sync(mask, predicate) & present) == present;
}
