// The device functions of CUDA's headers that kernels of this chapter call, for the CPU backend:
// min and max for every arithmetic pair (as CUDA's math headers overload them: the usual
// arithmetic conversions pick the type, so min(int, unsigned) is unsigned and min(int, float)
// is float), __ldg (a load through the read-only cache: here a plain, counted load) and the
// single-precision math functions, which <cmath> declares for float already (fminf, expf,
// sqrtf, ...). Included by cuda_dialect.hpp; nothing here is for the grader's own code.
#pragma once

#include <cmath>
#include <type_traits>

template <class A, class B>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
inline std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmin(C(a), C(b));  // as fminf: a NaN argument loses to a number
  } else {
    return C(b) < C(a) ? C(b) : C(a);
  }
}

template <class A, class B>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
inline std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmax(C(a), C(b));
  } else {
    return C(a) < C(b) ? C(b) : C(a);
  }
}

// The read-only data cache load: on the CPU the same load, seen and counted like any other.
template <class T>
inline T __ldg(const T* address) {
  return *address;
}

// Single-precision intrinsics with the meaning of their accurate counterparts.
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
