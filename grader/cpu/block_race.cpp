// Races between blocks through global memory: a block that reads an element another block of the
// same launch writes. On a GPU nothing orders two blocks, so the read sees the old value or the
// new one; on the CPU backend the answer would hang on which worker got there first, and a
// replayed seed could pass one test here and fail it there (it did, between x86-64 and aarch64).
//
// Every element of an array a kernel may write (not registered read-only) carries two tags for
// the launch: the block that last wrote it and the block that read it (or "several"). A load
// tags the reader and then looks at the writer; a store tags the writer and then looks at the
// reader. Both are sequentially consistent, so whichever of the two accesses comes second sees
// the first: the race is found in either order, on any number of workers.
//
// Found in a parallel launch, it is not reported there (which thread saw it depends on timing):
// the scheduler restores the arrays and runs the launch again on one worker, blocks in order,
// where the same race is reported by the same thread at the same line every time.
#include <cstdlib>
#include <cstring>
#include <string>

#include "execution.hpp"

namespace halo::cpu {
namespace {

constexpr uint32_t kSeveralBlocks = ~uint32_t(0);

std::string block_text(const Launch& L, uint32_t tag) {
  if (tag == kSeveralBlocks) return "other blocks";
  return "block " + triple(unflatten(size_t(tag) - 1, L.grid));
}

constexpr const char* kWhy =
    ": nothing orders the blocks of a launch, so on a GPU this read may see the value before the write or "
    "after it. A block may read only what it wrote itself; what another block writes is there for the next launch";

}  // namespace

BlockTags::BlockTags(size_t elements)
    : writer(static_cast<uint32_t*>(std::calloc(elements ? elements : 1, sizeof(uint32_t)))),
      reader(static_cast<uint32_t*>(std::calloc(elements ? elements : 1, sizeof(uint32_t)))),
      count(elements) {}

BlockTags::~BlockTags() {
  std::free(writer);
  std::free(reader);
}

void BlockTags::clear() {
  std::memset(writer, 0, count * sizeof(uint32_t));
  std::memset(reader, 0, count * sizeof(uint32_t));
}

void prepare_block_tags(Launch& L) {
  L.block_tags.clear();
  L.tagged.clear();
  L.block_tags.reserve(L.regions.size());
  for (size_t k = 0; k < L.regions.size(); ++k) {
    const Region& r = L.regions[k];
    L.block_tags.emplace_back(r.read_only ? 0 : (r.hi - r.lo + r.element_size - 1) / r.element_size);
    if (!r.read_only) L.tagged.push_back({r.lo, r.hi - r.lo, k});
  }
  if (!L.tagged.empty()) {  // regions are sorted by address
    L.tagged_lo = L.tagged.front().lo;
    L.tagged_span = L.tagged.back().lo + L.tagged.back().span - L.tagged_lo;
  }
}

OutputSnapshot::OutputSnapshot(const Launch& L) {
  for (const Region& r : L.regions)
    saved.emplace_back(r.read_only ? std::string() : std::string(reinterpret_cast<const char*>(r.lo), r.hi - r.lo));
}

void OutputSnapshot::restore(Launch& L) const {
  for (size_t k = 0; k < L.regions.size(); ++k)
    if (!L.regions[k].read_only) std::memcpy(reinterpret_cast<void*>(L.regions[k].lo), saved[k].data(), saved[k].size());
  for (BlockTags& t : L.block_tags) t.clear();
}

HALO_CALLBACK_CODE void note_global_access(Worker& w, size_t region, uintptr_t a, unsigned size, bool store,
                                           const void* pc) {
  Launch& L = *w.launch;
  BlockTags& tags = L.block_tags[region];
  if (!tags.count || w.in_atomic) return;  // an input (no block writes it), or an atomic operation
  const Region& r = L.regions[region];
  const uint32_t mine = uint32_t(w.block_linear + 1);
  const size_t first = (a - r.lo) / r.element_size, last = (a + size - 1 - r.lo) / r.element_size;
  for (size_t e = first; e <= last && e < tags.count; ++e) {
    uint32_t other = 0;
    if (store) {
      __atomic_store_n(&tags.writer[e], mine, __ATOMIC_SEQ_CST);
      other = __atomic_load_n(&tags.reader[e], __ATOMIC_SEQ_CST);
    } else {
      uint32_t seen = __atomic_load_n(&tags.reader[e], __ATOMIC_SEQ_CST);
      while (seen != mine && seen != kSeveralBlocks &&
             !__atomic_compare_exchange_n(&tags.reader[e], &seen, seen ? kSeveralBlocks : mine, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      }
      other = __atomic_load_n(&tags.writer[e], __ATOMIC_SEQ_CST);
    }
    if (other == 0 || other == mine) continue;
    if (!L.report_block_races) {
      L.block_race_seen.store(true, std::memory_order_relaxed);
      return;
    }
    raise_diagnostic_with(w, DiagnosticKind::block_race, pc, [&](Diagnostic&) {
      return store ? "write to " + element_name(r, r.lo + e * r.element_size) + ", which " + block_text(L, other) + " of this launch read" + kWhy
                   : "read of " + element_name(r, r.lo + e * r.element_size) + ", which " + block_text(L, other) + " of this launch wrote" + kWhy;
    });
    return;
  }
}

}  // namespace halo::cpu
