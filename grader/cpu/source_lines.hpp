#pragma once
#include <string>

namespace halo::cpu {
// `exercises/7.2-basic-1d/convolution_1d_basic.cu:14`, or empty when unknown.
std::string source_line(const void* pc);
// A path inside the project, relative to its root; other paths unchanged.
std::string project_relative(std::string path);
}  // namespace halo::cpu
