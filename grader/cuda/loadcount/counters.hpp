// The layout shared by the load-counting tool (host) and its instruction patch (device).
// One launch's counters: the registered address ranges, then, per block, per range (the last
// slot is "anything else"), the bytes loaded and stored.
#pragma once

#include <cstdint>

namespace halo::loadcount {

constexpr uint32_t kMaxRanges = 8;

struct Header {
  uint64_t range_begin[kMaxRanges];
  uint64_t range_end[kMaxRanges];
  uint32_t ranges;
  uint32_t blocks;        // counters exist for blocks [0, blocks): the grid's size
  uint64_t* per_block;    // blocks x (ranges + 1) x 2 (load bytes, store bytes)
};

}  // namespace halo::loadcount
