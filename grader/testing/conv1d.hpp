// The 1D convolution every 1D section computes, in double precision, and the mistakes
// students make with it, as alternative references the comparison recognises.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compare.hpp"

namespace halo::test {

// The book's convolution (no mask flip): P[i] = sum_j N[i - n + j] * M[j], ghost cells are 0.
// With `fit`, made as a misconception's reference is (ReferenceMaker): a mask copied short, say.
Reference conv1d_reference(const std::vector<float>& N, const std::vector<float>& M,
                           const std::vector<float>* fit = nullptr);

// The flipped (signal-processing) convolution, N[0] skipped as a ghost cell, edges replicated
// instead of ghost zeros, a radius fixed smaller than the run-time one, and outputs shifted by a
// wrong start index.
// Made against the kernel's outputs `fit` (ReferenceMaker): one they differ from comes back empty.
std::vector<Misconception> conv1d_misconceptions(const std::vector<float>& N, const std::vector<float>& M,
                                                 const std::vector<float>* fit = nullptr);

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
                    const std::function<bool(long t, long c)>& seen = {}, const std::vector<float>* fit = nullptr);

// The reference, except that each halo cell (a neighbour inside N but outside the output's own
// tile of `block` outputs) is read from N[halo_index(i, n, j)] instead of N[i - n + j]: a cached
// kernel's sign slip in the halo read. Where that index leaves N the real kernel would have been
// stopped, so the output is made unmatchable (NaN). Here rather than in the section: optimised.
Reference halo_read_elsewhere(const std::vector<float>& N, const std::vector<float>& M, unsigned block,
                              const std::function<long(long i, long n, long j)>& halo_index,
                              const std::vector<float>* fit = nullptr);

// N_ds read s cells off (N_ds[n + tx + j] for N_ds[tx + j], say): every output whose window stays
// inside its block's tile is the result with the start shifted by s, and the ones whose window
// runs past the tile are not (a start shifted in global memory would shift those too, and has
// its own hint). The hint, named only when the in-tile outputs tell the shift from the right
// result; empty otherwise.
std::string shared_index_hint(const std::vector<float>& got, const std::vector<float>& N, const std::vector<float>& M,
                              const Reference& want, unsigned block);

}  // namespace halo::test
