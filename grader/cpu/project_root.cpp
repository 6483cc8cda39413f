// The root of the tree this build was configured from, for project_relative (source_lines.cpp).
// A library of its own, compiled in every build: the grader's other libraries hold no path of
// their tree, so that one build of them can serve every tree of the same sources
// (tools/halo/core/grader_cache.py).
#include "project_root.hpp"

namespace halo::cpu {
const char* const project_root = HALO_SOURCE_DIR "/";
}  // namespace halo::cpu
