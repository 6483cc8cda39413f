// Judges a launch as a whole: its error code and, on the CPU backend, every diagnostic the
// instrumentation raised (out-of-bounds access, write to an input, unfinished stub...).
#pragma once

#include <string>

#include "backend.hpp"
#include "verdict.hpp"

namespace halo::test {

// `what` names the launch in the message, e.g. "Width = 257, Mask_Width = 5, 256 threads per block".
Verdict judge_launch(cudaError_t error, const std::string& what);

// Stub TODOs reached so far in this process, as "still a stub: file:line: TODO: ..." lines.
std::string stub_notes();

}  // namespace halo::test
