#include "pitched_image.hpp"

#include <utility>

#include "device_array.hpp"
#include "halo/pitch_padding.hpp"
#include "measured_launch.hpp"

namespace halo::test {

PitchedImage::PitchedImage(std::string name, int width, int height, bool read_only)
    : name_(std::move(name)), width_(width), height_(height) {
  void* p = nullptr;
  require_ok(cudaMallocPitch(&p, &pitch_bytes_, size_t(width) * sizeof(float), size_t(height)), "cudaMallocPitch");
  ptr_ = static_cast<float*>(p);
  const std::vector<float> poisoned(pitch_bytes_ / sizeof(float) * size_t(height), poison<float>());
  require_ok(cudaMemcpy(ptr_, poisoned.data(), poisoned.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  name_device_memory(ptr_, pitch_bytes_ * size_t(height), name_, sizeof(float), read_only);
#if defined(HALO_BACKEND_CPU)
  cpu::describe_image(ptr_, size_t(width), size_t(height));
#endif
}

PitchedImage PitchedImage::input(std::string name, const std::vector<float>& pixels, int width, int height) {
  PitchedImage img(std::move(name), width, height, true);
  require_ok(cudaMemcpy2D(img.ptr_, img.pitch_bytes_, pixels.data(), size_t(width) * sizeof(float),
                          size_t(width) * sizeof(float), size_t(height), cudaMemcpyHostToDevice),
             "cudaMemcpy2D");
  return img;
}

PitchedImage PitchedImage::output(std::string name, int width, int height) {
  return PitchedImage(std::move(name), width, height, false);
}

PitchedImage::PitchedImage(PitchedImage&& o) noexcept
    : name_(std::move(o.name_)), ptr_(std::exchange(o.ptr_, nullptr)), width_(o.width_), height_(o.height_),
      pitch_bytes_(o.pitch_bytes_) {}

PitchedImage::~PitchedImage() {
  if (!ptr_) return;
  forget_device_memory(ptr_);
  cudaFree(ptr_);
}

std::vector<float> PitchedImage::download() const {
  std::vector<float> pixels(size_t(width_) * size_t(height_));
  require_ok(cudaMemcpy2D(pixels.data(), size_t(width_) * sizeof(float), ptr_, pitch_bytes_,
                          size_t(width_) * sizeof(float), size_t(height_), cudaMemcpyDeviceToHost),
             "cudaMemcpy2D");
  return pixels;
}

Verdict PitchedImage::padding_untouched() const {
  Verdict v;
  const size_t pitch = pitch_bytes_ / sizeof(float);
  std::vector<float> all(pitch * size_t(height_));
  require_ok(cudaMemcpy(all.data(), ptr_, all.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int row = 0; row < height_; ++row)
    for (size_t col = size_t(width_); col < pitch; ++col)
      if (!is_poison(all[size_t(row) * pitch + col])) {
        v.fail(name_ + "[row " + std::to_string(row) + "][col " + std::to_string(col) + "] was written: " +
               pitch_padding_advice(size_t(width_), size_t(height_), pitch, size_t(row) * pitch + col));
        return v;
      }
  return v;
}

}  // namespace halo::test
