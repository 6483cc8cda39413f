#include "conv2d.hpp"

#include <cmath>

namespace halo::test {
namespace {

// Inputs with row < first_row or col < first_col count as ghost cells (0 and 0 in the reference).
Reference correlate2d(const std::vector<float>& N, int width, int height, const std::vector<float>& M, int m,
                      int first_row = 0, int first_col = 0) {
  const int r = m / 2;
  Reference out{std::vector<double>(N.size()), std::vector<double>(N.size())};
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      double sum = 0, mag = 0;
      for (int fr = 0; fr < m; ++fr)
        for (int fc = 0; fc < m; ++fc) {
          const int in_row = row - r + fr, in_col = col - r + fc;
          if (in_row < first_row || in_row >= height || in_col < first_col || in_col >= width) continue;
          const double term = double(N[size_t(in_row) * width + in_col]) * double(M[size_t(fr) * m + fc]);
          sum += term;
          mag += std::fabs(term);
        }
      out.value[size_t(row) * width + col] = sum;
      out.magnitude[size_t(row) * width + col] = mag;
    }
  return out;
}

}  // namespace

Reference conv2d_reference(const std::vector<float>& N, int width, int height, const std::vector<float>& M,
                           int mask_width) {
  return correlate2d(N, width, height, M, mask_width);
}

std::vector<Misconception> conv2d_misconceptions(const std::vector<float>& N, int width, int height,
                                                 const std::vector<float>& M, int m) {
  std::vector<float> rotated(M.rbegin(), M.rend()), transposed(M.size());
  for (int fr = 0; fr < m; ++fr)
    for (int fc = 0; fc < m; ++fc) transposed[size_t(fc) * m + fr] = M[size_t(fr) * m + fc];
  std::vector<Misconception> out;
  if (rotated != M)
    out.push_back({"the convolution with the mask rotated by 180 degrees: the book's convolution does not flip M",
                   correlate2d(N, width, height, rotated, m)});
  if (transposed != M)
    out.push_back({"the result with the mask transposed: rows and columns (y and x) are swapped somewhere",
                   correlate2d(N, width, height, transposed, m)});
  out.push_back({"the result with input row 0 left out, as if it were a ghost cell: check the row test (>= 0, not > 0)",
                 correlate2d(N, width, height, M, m, 1, 0)});
  out.push_back({"the result with input column 0 left out, as if it were a ghost cell: check the column test (>= 0, "
                 "not > 0)",
                 correlate2d(N, width, height, M, m, 0, 1)});
  return out;
}

IndexName image_index(const std::string& array, int width) {
  return [array, width](size_t i) {
    return array + "[row " + std::to_string(i / size_t(width)) + "][col " + std::to_string(i % size_t(width)) + "]";
  };
}

}  // namespace halo::test
