// Load counts measured by the instrumentation, set against the chapter's formulas, printed as
// a table in the test output and saved for `./workbook grade`'s summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verdict.hpp"

namespace halo::test {

enum class Bound {
  exact,    // the count is fixed by the kernel's definition (the basic kernel)
  at_most,  // an optimised kernel must not exceed the formula
};

struct LoadRow {
  std::string array;  // "N"
  std::string scope;  // "internal block (block 1)", "first block (block 0)", "whole grid"
  uint64_t measured = 0;
  uint64_t expected = 0;
  Bound bound = Bound::exact;
  // Names the measurement for questions that compare with it, e.g. "basic_1d@ratio_b128:N:internal"
  // (see measured_ratio in questions.toml); empty for rows no question uses.
  std::string tag = {};
  bool ok() const { return bound == Bound::exact ? measured == expected : measured <= expected; }
};

class LoadReport {
 public:
  LoadReport(std::string section, std::string launch) : section_(std::move(section)), launch_(std::move(launch)) {}

  void add(LoadRow row) { rows_.push_back(std::move(row)); }
  // Whether the launch's output was checked and right: only then may answers be compared
  // with these counts.
  void set_output_correct(bool correct) { output_correct_ = correct; }
  std::string table() const;
  Verdict verdict() const;
  // Writes the rows under $HALO_REPORT_DIR/loads/ when that variable is set; prints the table.
  void publish() const;

 private:
  std::string section_, launch_;
  std::vector<LoadRow> rows_;
  bool output_correct_ = false;
};

// The loads of `array` in an internal block (block 1) and the first block (block 0) of a
// measurement launch named in questions.toml, published with the tags the measured_ratio
// answers look for: "<kernel>@<measurement>:<array>:internal" and ":boundary". Call it only
// once the launch's output has been verified right.
Verdict publish_ratio_launch(const std::string& section, const std::string& launch, const std::string& kernel,
                             const std::string& measurement, const std::string& array, Bound bound,
                             uint64_t internal, uint64_t internal_expected, uint64_t first, uint64_t first_expected);

}  // namespace halo::test
