// The 1D convolution every 1D section computes, in double precision, and the mistakes
// students make with it, as alternative references the comparison recognises.
#pragma once

#include <functional>
#include <string>
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

// What each thread of a tiled 1D kernel computes when the shared tile of block b holds
// `cell(b, c)` in N_ds[c] (c from 0 to blockDim + 2n - 1) and thread t finds cell c only where
// `seen(t, c)` (everywhere when it is empty; an unseen cell reads 0): P[i] = sum_j N_ds[t + j] * M[j].
// A way to model a kernel that fills its tile wrongly. `cell` is asked once per cell of a tile,
// not once per output and mask element: the section's models are compiled unoptimised (the tests
// are glue), and at 2^20 outputs they were most of a failing test's time.
Reference from_tile(size_t width, const std::vector<float>& M, unsigned block,
                    const std::function<double(long b, long c)>& cell,
                    const std::function<bool(long t, long c)>& seen = {});

// N_ds read s cells off (N_ds[n + tx + j] for N_ds[tx + j], say): every output whose window stays
// inside its block's tile is the result with the start shifted by s, and the ones whose window
// runs past the tile are not (a start shifted in global memory would shift those too, and has
// its own hint). The hint, named only when the in-tile outputs tell the shift from the right
// result; empty otherwise.
std::string shared_index_hint(const std::vector<float>& got, const std::vector<float>& N, const std::vector<float>& M,
                              const Reference& want, unsigned block);

}  // namespace halo::test
