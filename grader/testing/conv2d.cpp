#include "conv2d.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "device_array.hpp"

namespace halo::test {
namespace {

// Inputs with row < first_row or col < first_col count as ghost cells (0 and 0 in the reference).
// With `replicate`, a neighbour outside the image takes the nearest edge pixel's value instead.
// `origin` is how far above and left of the output the filter's corner sits (-1: m / 2). Made
// against `fit` (ReferenceMaker): empty as soon as those outputs differ from it.
Reference correlate2d(const std::vector<float>& N, int width, int height, const std::vector<float>& M, int m,
                      const std::vector<float>* fit, int first_row = 0, int first_col = 0, bool replicate = false,
                      int origin = -1) {
  const int r = origin < 0 ? m / 2 : origin;
  ReferenceMaker out(N.size(), fit);
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      double sum = 0, mag = 0;
      for (int fr = 0; fr < m; ++fr)
        for (int fc = 0; fc < m; ++fc) {
          int in_row = row - r + fr, in_col = col - r + fc;
          if (replicate) in_row = std::clamp(in_row, 0, height - 1), in_col = std::clamp(in_col, 0, width - 1);
          if (in_row < first_row || in_row >= height || in_col < first_col || in_col >= width) continue;
          const double term = double(N[size_t(in_row) * width + in_col]) * double(M[size_t(fr) * m + fc]);
          sum += term;
          mag += std::fabs(term);
        }
      if (!out.add(sum, mag)) return out.take();
    }
  return out.take();
}

}  // namespace

Reference conv2d_reference(const std::vector<float>& N, int width, int height, const std::vector<float>& M,
                           int mask_width) {
  return correlate2d(N, width, height, M, mask_width, nullptr);
}

std::vector<Misconception> conv2d_misconceptions(const std::vector<float>& N, int width, int height,
                                                 const std::vector<float>& M, int m, const std::vector<float>* fit) {
  std::vector<float> rotated(M.rbegin(), M.rend()), transposed(M.size());
  for (int fr = 0; fr < m; ++fr)
    for (int fc = 0; fc < m; ++fc) transposed[size_t(fc) * m + fr] = M[size_t(fr) * m + fc];
  std::vector<Misconception> out;
  if (rotated != M)
    out.push_back({"the convolution with the mask rotated by 180 degrees: the book's convolution does not flip M",
                   correlate2d(N, width, height, rotated, m, fit)});
  if (transposed != M)
    out.push_back({"the result with the mask transposed: rows and columns (y and x) are swapped somewhere",
                   correlate2d(N, width, height, transposed, m, fit)});
  // A mask assumed symmetric along one axis: mirrored top to bottom or left to right. Each only
  // where it differs from M and from the masks above, so that its outputs name it alone.
  std::vector<float> rows_mirrored(M.size()), cols_mirrored(M.size());
  for (int fr = 0; fr < m; ++fr)
    for (int fc = 0; fc < m; ++fc) {
      rows_mirrored[size_t(m - 1 - fr) * m + fc] = M[size_t(fr) * m + fc];
      cols_mirrored[size_t(fr) * m + (m - 1 - fc)] = M[size_t(fr) * m + fc];
    }
  for (const auto& [mirrored, how] : {std::pair{&rows_mirrored, "top to bottom (M[Mask_Width - 1 - i][j])"},
                                      std::pair{&cols_mirrored, "left to right (M[i][Mask_Width - 1 - j])"}})
    if (*mirrored != M && *mirrored != rotated && *mirrored != transposed && rows_mirrored != cols_mirrored)
      out.push_back({std::string("the convolution with the mask mirrored ") + how +
                         ": is the mask taken as symmetric? The book's convolution pairs N[row - r + i][col - r + j] "
                         "with M[i][j], unflipped",
                     correlate2d(N, width, height, *mirrored, m, fit)});
  out.push_back({"the result with input row 0 left out, as if it were a ghost cell: check the row test (>= 0, not > 0)",
                 correlate2d(N, width, height, M, m, fit, 1, 0)});
  out.push_back({"the result with input column 0 left out, as if it were a ghost cell: check the column test (>= 0, "
                 "not > 0)",
                 correlate2d(N, width, height, M, m, fit, 0, 1)});
  // A radius fixed by a #define smaller than the run-time one: a (2R+1) x (2R+1) filter read from
  // the start of M, its rows 2R+1 apart, around the output.
  for (int R = 1; R < m / 2; ++R) {
    std::vector<float> part(M.begin(), M.begin() + (2 * R + 1) * (2 * R + 1));
    out.push_back({"the result with a radius of " + std::to_string(R) + " in place of r = " + std::to_string(m / 2) +
                       " (a " + std::to_string(2 * R + 1) + " x " + std::to_string(2 * R + 1) +
                       " filter read from the first elements of the mask): is the radius fixed by a #define or a "
                       "constant in place of the radius the kernel is given?",
                   correlate2d(N, width, height, part, 2 * R + 1, fit)});
  }
  // Filter loops fixed to L = 2R + 1 (i < 3, j < 3) in the three other ways than above: the mask's
  // rows read Mask_Width apart (M[i * Mask_Width + j]) or L apart, the filter's corner r or R
  // above and left of the output.
  for (int R = 1; R < m / 2; ++R) {
    const int L = 2 * R + 1;
    for (const bool rows_apart_m : {true, false})
      for (const bool corner_r : {true, false}) {
        if (!rows_apart_m && !corner_r) continue;  // the radius-fixed alternative above
        std::vector<float> part(size_t(L) * size_t(L));
        const int stride = rows_apart_m ? m : L;
        for (int i = 0; i < L; ++i)
          for (int j = 0; j < L; ++j) part[size_t(i) * L + j] = M[size_t(i) * stride + j];
        const std::string l = std::to_string(L);
        out.push_back({"the result with the filter loops fixed to " + l + " (a " + l + " x " + l + " filter, M[i * " +
                           (rows_apart_m ? "Mask_Width" : l) + " + j] for i, j < " + l + ", its corner " +
                           (corner_r ? "r = Mask_Width / 2" : std::to_string(R)) + " above and left of the output): "
                           "the loops must run to Mask_Width = " + std::to_string(m) + ", a run-time argument",
                       correlate2d(N, width, height, part, L, fit, 0, 0, false, corner_r ? m / 2 : R)});
      }
  }
  out.push_back({"the result with the edges replicated (a neighbour outside the image taken from the nearest edge "
                 "pixel): ghost cells count as 0, so skip them rather than clamping the row and column",
                 correlate2d(N, width, height, M, m, fit, 0, 0, true)});
  return out;
}

std::vector<Misconception> transposed_tile(const std::vector<float>& N, int width, int height,
                                           const std::vector<float>& M, int m, int tile,
                                           const std::vector<float>* fit) {
  const int n = m / 2;
  auto input = [&](int row, int col) {  // ghost cells are 0 in the tile
    return row < 0 || row >= height || col < 0 || col >= width ? 0.0 : double(N[size_t(row) * width + col]);
  };
  // Thread (tx, ty) of the output tile with corner (row0, col0) pairs M[i][j] with the input at
  // (row0 - n + tx + i, col0 - n + ty + j) when it reads tile[tx + i][ty + j] of a tile filled
  // as tile[y][x]; with (row0 - n + tx + j, col0 - n + ty + i) when the tile was filled as
  // tile[x][y] and read as tile[ty + i][tx + j].
  auto reference = [&](bool mask_swapped) {
    ReferenceMaker out(N.size(), fit);
    for (int row = 0; row < height; ++row)
      for (int col = 0; col < width; ++col) {
        const int row0 = row - row % tile, col0 = col - col % tile, ty = row % tile, tx = col % tile;
        double sum = 0, magnitude = 0;
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < m; ++j) {
            const int a = mask_swapped ? j : i, b = mask_swapped ? i : j;
            const double term = input(row0 - n + tx + a, col0 - n + ty + b) * double(M[size_t(i) * m + j]);
            sum += term;
            magnitude += std::fabs(term);
          }
        if (!out.add(sum, magnitude)) return out.take();
      }
    return out.take();
  };
  const std::string what = "the result with the shared tile transposed between filling and reading it (tile[x][y] "
                           "on one side, tile[y][x] on the other): index the tile [row][column] = [threadIdx.y]"
                           "[threadIdx.x] both when filling it and when reading it";
  return {{what, reference(false)}, {what, reference(true)}};
}

Verdict same_row_in_every_thread_hint(const std::vector<float>& got, int width, int height, int tile_w, int tile_h) {
  Verdict v;
  auto only_first = [&](bool rows) {
    const int step = rows ? tile_h : tile_w;
    // Only with a second block along that axis is "the first row of each block" evidence: on a
    // shorter image any kernel that writes only row 0 fits the pattern.
    if (step < 2 || (rows ? height : width) <= step) return false;
    bool missing = false;
    for (int row = 0; row < height; ++row)
      for (int col = 0; col < width; ++col) {
        const bool first = (rows ? row : col) % step == 0;
        const bool written = !is_poison(got[size_t(row) * size_t(width) + size_t(col)]);
        if (written != first) return false;
        missing |= !written;
      }
    return missing;
  };
  if (only_first(true))
    v.fail("hint: only the first row of each block's outputs was written (every " + std::to_string(tile_h) +
           "th row of P): all the threads of a block computed the same row. Is the row built from threadIdx.z "
           "(always 0 in a 2D block) where threadIdx.y belongs?");
  else if (only_first(false))
    v.fail("hint: only the first column of each block's outputs was written (every " + std::to_string(tile_w) +
           "th column of P): all the threads of a block computed the same column. Is the column built from "
           "threadIdx.z (always 0 in a 2D block) where threadIdx.x belongs?");
  return v;
}

Verdict axes_swapped_hint(const std::vector<float>& got, const Reference& want, int width, int height, dim3 grid,
                          int tile_w, int tile_h) {
  Verdict v;
  const int rows = std::min(height, int(grid.x) * tile_w), cols = std::min(width, int(grid.y) * tile_h);
  if (rows == height && cols == width) return v;  // the whole image: nothing tells the axes apart
  // Guards swapped (row < width, col < height) leave the same rectangle when the grid ends at the
  // image's edges: then the outputs fit both mistakes and name neither.
  if (rows == std::min(height, width) && cols == std::min(width, height)) return v;
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      const size_t k = size_t(row) * size_t(width) + size_t(col);
      const bool inside = row < rows && col < cols;
      if (inside == is_poison(got[k])) return v;
      if (inside && !close_enough(got[k], want.value[k], want.magnitude[k])) return v;
    }
  v.fail("hint: only P[row 0.." + std::to_string(rows - 1) + "][col 0.." + std::to_string(cols - 1) +
         "] was written, all of it right: what a grid of " + std::to_string(grid.x) + " x " + std::to_string(grid.y) +
         " blocks covers when x and y are swapped, the row built from blockIdx.x and threadIdx.x and the column "
         "from blockIdx.y and threadIdx.y. x runs along a row: col = blockIdx.x * ... + threadIdx.x, row from the "
         "y indices");
  return v;
}

IndexName image_index(const std::string& array, int width) {
  return [array, width](size_t i) {
    return array + "[row " + std::to_string(i / size_t(width)) + "][col " + std::to_string(i % size_t(width)) + "]";
  };
}

}  // namespace halo::test
