// Judges a launch as a whole: its error code and, on the CPU backend, every diagnostic the
// instrumentation raised (out-of-bounds access, write to an input, unfinished stub...).
#pragma once

#include <string>

#include "backend.hpp"
#include "verdict.hpp"

namespace halo::test {

// `what` names the launch in the message, e.g. "Width = 257, Mask_Width = 5, 256 threads per block".
Verdict judge_launch(cudaError_t error, const std::string& what);

// The output array of the last launch was stored exactly `outputs` elements (each output once)
// and never read: a kernel accumulates in a register and stores its result once. Call it after
// load_counter_ready().
Verdict stored_once_never_read(const std::string& array, uint64_t outputs, const std::string& launch);

// What the kernel printed in the last launch (printf from a CUDA thread, kept by the CPU
// backend), as lines to show with a failure; "" when it printed nothing.
std::string kernel_printed();

// Stub TODOs reached so far in this process, as "still a stub: file:line: TODO: ..." lines.
std::string stub_notes();

}  // namespace halo::test
