// What to tell a student whose kernel touched the padding of a pitched image. Shared by the CPU
// backend (which stops the access) and the GPU tests (which find the padding written afterwards),
// so both say the same thing.
#pragma once

#include <cstddef>
#include <string>

namespace halo {

// `element` counts elements from the image's first pixel (row * pitch + col). Two mistakes reach
// padding: a column guard that lets col reach the width, and a row stepped by the width
// (row * width + col) with the column guard right. The address tells them apart only when no
// pixel of a width-strided image lies at `element`: then only the column guard fits.
inline std::string pitch_padding_advice(size_t width, size_t height, size_t pitch, size_t element) {
  const std::string where = "that column is pitch padding (width " + std::to_string(width) + ", pitch " +
                            std::to_string(pitch) + " elements)";
  if (width == 0 || element >= width * height) return where + "; guard columns with the width, never the pitch";
  return where + ": either a column index reached the width (guard columns with the width, never the pitch), or "
                 "rows were stepped by the width (row " + std::to_string(element / width) + ", col " +
         std::to_string(element % width) + " is element " + std::to_string(element) +
         " of an image whose rows are width elements apart): rows of a pitched image start pitch elements "
         "apart, row * pitch + col";
}

}  // namespace halo
