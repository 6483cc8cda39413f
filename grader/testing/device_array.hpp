// Device memory for tests: allocated, filled and named in one line, freed on scope exit.
//
// Inputs are copied in and registered read-only (a kernel that writes one is reported);
// outputs are filled with a poison value first, so an element the kernel never wrote is seen.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "measured_launch.hpp"

namespace halo::test {

// A quiet NaN with a payload no arithmetic produces: compared by bits, never by value.
template <class T>
T poison();
template <>
inline float poison<float>() {
  const uint32_t bits = 0x7FC0DEADu;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
template <>
inline int poison<int>() {
  return int(0xDEADBEEF);
}

template <class T>
bool is_poison(T value) {
  T p = poison<T>();
  return std::memcmp(&value, &p, sizeof(T)) == 0;
}

inline void require_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(e));
}

template <class T>
class DeviceArray {
 public:
  static DeviceArray input(std::string name, const std::vector<T>& host) {
    DeviceArray a(std::move(name), host.size(), true);
    if (!host.empty())
      require_ok(cudaMemcpy(a.ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    return a;
  }
  static DeviceArray output(std::string name, size_t count) {
    DeviceArray a(std::move(name), count, false);
    a.upload(std::vector<T>(count, poison<T>()));
    return a;
  }

  DeviceArray(DeviceArray&& o) noexcept
      : name_(std::move(o.name_)), ptr_(std::exchange(o.ptr_, nullptr)), count_(o.count_) {}
  DeviceArray& operator=(DeviceArray&&) = delete;
  DeviceArray(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (!ptr_) return;
    forget_device_memory(ptr_);
    cudaFree(ptr_);
  }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  const std::string& name() const { return name_; }

  void upload(const std::vector<T>& host) {
    if (!host.empty())
      require_ok(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_) require_ok(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  DeviceArray(std::string name, size_t count, bool read_only) : name_(std::move(name)), count_(count) {
    void* p = nullptr;
    require_ok(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    ptr_ = static_cast<T*>(p);
    name_device_memory(ptr_, count * sizeof(T), name_, sizeof(T), read_only);
  }

  std::string name_;
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace halo::test
