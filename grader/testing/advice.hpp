// Advice: what a test has to say about a kernel that is right but works harder than the
// book's, e.g. threads with no output that still load their neighbours. It never fails a test:
// it is printed in the test's output and saved under $HALO_REPORT_DIR/advice/, from where
// `./workbook grade` shows it under the section's verdict.
#pragma once

#include <string>

namespace halo::test {

void advise(const std::string& section, const std::string& text);

}  // namespace halo::test
