#include "load_report.hpp"

#include "backend.hpp"
#include "json_string.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace halo::test {
namespace {

// 1234567 -> "1,234,567": the numbers students compare with the book.
std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

}  // namespace

std::string LoadReport::table() const {
  char line[256];
  std::string out = "global loads, " + launch_ + ":\n";
  std::snprintf(line, sizeof line, "  %-6s %-28s %14s %14s  %s\n", "array", "where", "measured", "expected", "");
  out += line;
  for (const auto& r : rows_) {
    std::string expected = (r.bound == Bound::at_most ? "<= " : "") + grouped(r.expected);
    std::snprintf(line, sizeof line, "  %-6s %-28s %14s %14s  %s\n", r.array.c_str(), r.scope.c_str(),
                  grouped(r.measured).c_str(), expected.c_str(), r.ok() ? "ok" : "MISMATCH");
    out += line;
  }
  return out;
}

Verdict LoadReport::verdict() const {
  Verdict v;
  bool exact = false;
  for (const auto& r : rows_)
    if (!r.ok()) exact |= r.bound == Bound::exact;
  for (const auto& r : rows_)
    if (!r.ok()) {
      v.fail(table());
      // Why an equality: the exercise teaches that exact count (loads by threads with no output,
      // a legitimate extra, are left out of these rows and reported as advice).
      v.fail(exact ? "the expected counts without \"<=\" are exact: this exercise teaches how many elements its "
                     "design loads, every one once and none that is not needed"
                   : "the expected counts are upper bounds: the exercise's design never needs more loads than that");
      break;
    }
  return v;
}

void LoadReport::publish() const {
  std::fputs(table().c_str(), stdout);
  const char* dir = std::getenv("HALO_REPORT_DIR");
  if (!dir || !*dir) return;
  static int serial = 0;
  std::filesystem::path folder = std::filesystem::path(dir) / "loads";
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  std::ofstream f(folder / (section_ + "-" + std::to_string(getpid()) + "-" + std::to_string(serial++) + ".json"));
  f << "{\"section\": " << json_string(section_) << ", \"backend\": " << json_string(kBackend)
    << ", \"launch\": " << json_string(launch_)
    << ", \"output_correct\": " << (output_correct_ ? "true" : "false") << ", \"rows\": [";
  for (size_t k = 0; k < rows_.size(); ++k) {
    const auto& r = rows_[k];
    f << (k ? ", " : "") << "{\"array\": " << json_string(r.array) << ", \"scope\": " << json_string(r.scope)
      << ", \"measured\": " << r.measured << ", \"expected\": " << r.expected
      << ", \"bound\": " << (r.bound == Bound::exact ? "\"exact\"" : "\"at_most\"")
      << ", \"ok\": " << (r.ok() ? "true" : "false") << ", \"tag\": " << json_string(r.tag) << "}";
  }
  f << "]}\n";
}

Verdict publish_ratio_launch(const std::string& section, const std::string& launch, const std::string& kernel,
                             const std::string& measurement, const std::string& array, Bound bound,
                             uint64_t internal, uint64_t internal_expected, uint64_t first, uint64_t first_expected) {
  LoadReport report(section, launch);
  const std::string tag = kernel + "@" + measurement + ":" + array + ":";
  report.add({array, "internal block (block 1)", internal, internal_expected, bound, tag + "internal"});
  report.add({array, "first block (block 0)", first, first_expected, bound, tag + "boundary"});
  report.set_output_correct(true);
  report.publish();
  return report.verdict();
}

}  // namespace halo::test
