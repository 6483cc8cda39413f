// The 1D convolution every 1D section computes, in double precision, and the mistakes
// students make with it, as alternative references the comparison recognises.
#pragma once

#include <vector>

#include "compare.hpp"

namespace halo::test {

// The book's convolution (no mask flip): P[i] = sum_j N[i - n + j] * M[j], ghost cells are 0.
Reference conv1d_reference(const std::vector<float>& N, const std::vector<float>& M);

// The flipped (signal-processing) convolution, N[0] skipped as a ghost cell, edges replicated
// instead of ghost zeros, a radius fixed smaller than the run-time one, and outputs shifted by a
// wrong start index.
std::vector<Misconception> conv1d_misconceptions(const std::vector<float>& N, const std::vector<float>& M);

// Where the wrong (written) outputs of a tiled kernel lie: `any` only when every one of them is
// within n of an edge of its block's tile that has a neighbouring tile, i.e. where the mask
// reaches into a halo; `left` / `right` say which halo some of them need (only that one).
struct BlockEdges {
  bool any = false, left = false, right = false;
};
BlockEdges wrong_at_block_edges(const std::vector<float>& got, const Reference& want, size_t mask_width,
                                size_t block);

}  // namespace halo::test
