#pragma once

namespace halo::cpu {
// "/path/of/the/tree/", with its final slash (project_root.cpp).
extern const char* const project_root;
}  // namespace halo::cpu
