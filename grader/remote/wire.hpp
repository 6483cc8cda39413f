// The byte format of the judge <-> worker messages: plain values appended in order, read back
// in the same order. The judge reads what a hostile worker sent, so every read is bounds-checked
// and a short or malformed message throws WireError instead of reading past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace halo::remote {

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  void bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  void str(std::string_view s) {
    pod(uint64_t(s.size()));
    bytes(s.data(), s.size());
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    pod(uint64_t(v.size()));
    if (!v.empty()) bytes(v.data(), v.size() * sizeof(T));
  }
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T pod() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  // A length read from the message, refused when the message cannot hold that many items.
  uint64_t count(size_t item_bytes) {
    const uint64_t n = pod<uint64_t>();
    if (item_bytes && n > (in_.size() - at_) / item_bytes) throw WireError("a length runs past the end of the message");
    return n;
  }
  std::string str() {
    const uint64_t n = count(1);
    return std::string(take(n), n);
  }
  template <class T>
  std::vector<T> vec() {
    static_assert(std::is_trivially_copyable_v<T>);
    const uint64_t n = count(sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), take(n * sizeof(T)), n * sizeof(T));
    return v;
  }
  const char* take(size_t n) {
    if (n > in_.size() - at_) throw WireError("the message ends too early");
    const char* p = in_.data() + at_;
    at_ += n;
    return p;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  std::string_view in_;
  size_t at_ = 0;
};

// What a request asks of an entry point (a kernel, a host function or a __constant__ symbol of
// the student's file).
enum class Op : uint8_t { launch = 1, host_call = 2, host_copy = 3, probe_kernel = 4, write_constant = 5, read_constant = 6 };

// How one kernel or host-function argument travels.
// tensor_map: an array pointer (the image) followed by the map's shape (halo::TensorMap).
enum class ArgKind : uint8_t { value = 0, array_pointer = 1, null_pointer = 2, tensor_map = 3 };

// Settings the judge sends with every launch (the worker's scheduler takes them as given).
struct LaunchSettings {
  uint8_t per_thread = 0, per_element = 0, reverse = 0, checks = 1;
  double timeout_s = 20;
};

}  // namespace halo::remote
