// A pitched device image for 2D tests (section 7.6): allocated with cudaMallocPitch, every
// byte of padding filled with the poison value, pixels uploaded row by row.
//
// The padding must never be read or written. On the CPU backend an access to it is stopped
// and reported (pitch_padding); on a GPU the test checks afterwards that the poison is intact.
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"
#include "verdict.hpp"

namespace halo::test {

class PitchedImage {
 public:
  // Inputs are read-only (a write is reported); outputs start as poison everywhere.
  static PitchedImage input(std::string name, const std::vector<float>& pixels, int width, int height);
  static PitchedImage output(std::string name, int width, int height);
  ~PitchedImage();
  PitchedImage(PitchedImage&& o) noexcept;
  PitchedImage(const PitchedImage&) = delete;
  PitchedImage& operator=(const PitchedImage&) = delete;
  PitchedImage& operator=(PitchedImage&&) = delete;

  float* get() const { return ptr_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int pitch_elements() const { return int(pitch_bytes_ / sizeof(float)); }
  size_t pitch_bytes() const { return pitch_bytes_; }

  std::vector<float> download() const;  // width x height pixels, padding dropped
  // Fails when any padding element no longer holds the poison value.
  Verdict padding_untouched() const;

 private:
  PitchedImage(std::string name, int width, int height, bool read_only);
  std::string name_;
  float* ptr_ = nullptr;
  int width_ = 0, height_ = 0;
  size_t pitch_bytes_ = 0;
};

}  // namespace halo::test
