// The 1D convolution every 1D section computes, in double precision, and the mistakes
// students make with it, as alternative references the comparison recognises.
#pragma once

#include <vector>

#include "compare.hpp"

namespace halo::test {

// The book's convolution (no mask flip): P[i] = sum_j N[i - n + j] * M[j], ghost cells are 0.
Reference conv1d_reference(const std::vector<float>& N, const std::vector<float>& M);

// The flipped (signal-processing) convolution, and outputs shifted by a wrong start index.
std::vector<Misconception> conv1d_misconceptions(const std::vector<float>& N, const std::vector<float>& M);

}  // namespace halo::test
