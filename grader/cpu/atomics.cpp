// CUDA's atomic functions for the CPU backend. They live here, outside the instrumented kernel
// code, because an atomic read-modify-write is neither a load nor a store to the compiler's
// instrumentation: done inline it would be unseen, and a kernel could write anywhere through
// it. Each one first has its access checked and counted as a load and a store of the calling
// CUDA thread (check_atomic_access), then does the operation as a real atomic: the fibers of a
// block never interleave inside a call, but blocks run on several cores. The validator refuses
// any other atomic instruction in a kernel file.
#include "execution.hpp"

namespace {

template <class T>
void checked(T* address, const void* pc, const void* kernel_frame) {
  halo::cpu::check_atomic_access(address, sizeof(T), pc, kernel_frame);
}

template <class T, class Op>
T update(T* address, Op op) {
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(address, &old, op(old), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

// Floats have no fetch-and-add instruction: compare and swap their bits.
template <class T>
T add_floating(T* address, T value) {
  T old, desired;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  do {
    desired = old + value;
  } while (!__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

}  // namespace

// The kernel's line, and its frame (a store into its stack is checked against the frame chain).
#define HALO_PC __builtin_return_address(0), __builtin_frame_address(1)
#define HALO_INTEGER_ATOMICS(T)                                                                                  \
  T atomicAdd(T* a, T v) { checked(a, HALO_PC); return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }            \
  T atomicSub(T* a, T v) { checked(a, HALO_PC); return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }            \
  T atomicExch(T* a, T v) { checked(a, HALO_PC); return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }          \
  T atomicMin(T* a, T v) { checked(a, HALO_PC); return update(a, [v](T old) { return v < old ? v : old; }); }   \
  T atomicMax(T* a, T v) { checked(a, HALO_PC); return update(a, [v](T old) { return old < v ? v : old; }); }   \
  T atomicAnd(T* a, T v) { checked(a, HALO_PC); return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }            \
  T atomicOr(T* a, T v) { checked(a, HALO_PC); return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }              \
  T atomicXor(T* a, T v) { checked(a, HALO_PC); return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }            \
  T atomicCAS(T* a, T compare, T v) {                                                                            \
    checked(a, HALO_PC);                                                                                         \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);                      \
    return compare; /* the old value, swapped or not */                                                          \
  }

HALO_INTEGER_ATOMICS(int)
HALO_INTEGER_ATOMICS(unsigned int)
HALO_INTEGER_ATOMICS(unsigned long long)

float atomicAdd(float* a, float v) { checked(a, HALO_PC); return add_floating(a, v); }
double atomicAdd(double* a, double v) { checked(a, HALO_PC); return add_floating(a, v); }
float atomicExch(float* a, float v) {
  checked(a, HALO_PC);
  float old;
  __atomic_exchange(a, &v, &old, __ATOMIC_RELAXED);
  return old;
}
