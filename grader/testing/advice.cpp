#include "advice.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "json_string.hpp"

namespace halo::test {
namespace {
std::string& current_test() {
  static std::string name;
  return name;
}
}  // namespace

void set_current_test(const std::string& name) { current_test() = name; }

void advise(const std::string& section, const std::string& text) {
  std::printf("advice (%s): %s\n", section.c_str(), text.c_str());
  const char* dir = std::getenv("HALO_REPORT_DIR");
  if (!dir || !*dir) return;
  static int serial = 0;
  const std::filesystem::path folder = std::filesystem::path(dir) / "advice";
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  std::ofstream f(folder / (section + "-" + std::to_string(getpid()) + "-" + std::to_string(serial++) + ".json"));
  f << "{\"section\": " << json_string(section) << ", \"test\": " << json_string(current_test())
    << ", \"text\": " << json_string(text) << "}\n";
}

}  // namespace halo::test
