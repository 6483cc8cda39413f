// The 2D convolution of the 2D sections, in double precision, and the 2D mistakes students
// make, as alternative references the comparison recognises. Images and masks are row-major:
// N[row * width + col], M[fRow * Mask_Width + fCol].
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"
#include "compare.hpp"

namespace halo::test {

// P[row][col] = sum over fRow, fCol of N[row - r + fRow][col - r + fCol] * M[fRow][fCol],
// r = Mask_Width / 2, ghost cells 0, mask not flipped.
Reference conv2d_reference(const std::vector<float>& N, int width, int height, const std::vector<float>& M,
                           int mask_width);

// The mask rotated (a flipped convolution), the mask transposed (rows and columns swapped),
// row 0 or column 0 skipped as if it were a ghost cell (the `inRow > 0` slip), a radius fixed
// smaller than the run-time one, filter loops fixed to a smaller size (j < 3), and the edges
// replicated instead of ghost zeros.
// Made against the kernel's outputs `fit` (ReferenceMaker): one they differ from comes back empty.
std::vector<Misconception> conv2d_misconceptions(const std::vector<float>& N, int width, int height,
                                                 const std::vector<float>& M, int mask_width,
                                                 const std::vector<float>* fit = nullptr);

// A tiled kernel whose tile of tile x tile outputs is filled as tile[y][x] and read as tile[x][y]
// (or the reverse): inside each tile, P(ty, tx) sums the mask over the tile transposed.
std::vector<Misconception> transposed_tile(const std::vector<float>& N, int width, int height,
                                           const std::vector<float>& M, int m, int tile,
                                           const std::vector<float>* fit = nullptr);

// When exactly the first row (or column) of every block's tile_w x tile_h outputs was written,
// every thread of a block took the same row (column): an index built from threadIdx.z.
Verdict same_row_in_every_thread_hint(const std::vector<float>& got, int width, int height, int tile_w, int tile_h);

// When exactly the outputs with row < grid.x * tile_w and col < grid.y * tile_h were written (and
// right), and that is not the whole image: the kernel builds the row from blockIdx.x/threadIdx.x
// and the column from the y indices. Only for a launch whose grid covers the image the right way
// round (a swapped grid gives the same outputs and has a hint of its own).
Verdict axes_swapped_hint(const std::vector<float>& got, const Reference& want, int width, int height, dim3 grid,
                          int tile_w, int tile_h);

// "P[row 3][col 17]" for element i of a width-wide image, for compare_outputs.
IndexName image_index(const std::string& array, int width);

}  // namespace halo::test
