// Judges a launch as a whole: its error code and, on the CPU backend, every diagnostic the
// instrumentation raised (out-of-bounds access, write to an input, unfinished stub...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backend.hpp"
#include "verdict.hpp"

namespace halo::test {

// The dynamic shared memory a tiled section's launch gives, for kernels that declare their tile
// `extern __shared__`: an input tile of floats for a block of this shape, whichever of the
// book's two designs the kernel follows (blocks the size of the input tile use block.x * block.y
// of it, blocks the size of the output tile (block.x + 2r) * (block.y + 2r); a 1D block,
// block.x + 2r).
inline halo::DynamicShared input_tile_bytes(dim3 block, int radius) {
  const size_t x = block.x + 2 * size_t(radius), y = block.y > 1 ? block.y + 2 * size_t(radius) : 1;
  return {x * y * sizeof(float)};
}

// A kernel that loads or stores but still runs its HALO_TODO line: written, not a stub (the words
// tools/halo/core/message_keys.py reads as "todo-left-in").
inline constexpr const char* kTodoLeftIn =
    "the kernel does work, but its HALO_TODO line is still there: delete that line (the note below names it)";

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
