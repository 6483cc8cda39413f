// Advice: what a test has to say about a kernel that is right but works harder than the
// book's, e.g. threads with no output that still load their neighbours. It never fails a test:
// it is printed in the test's output and saved under $HALO_REPORT_DIR/advice/, from where
// `./workbook grade` shows it under the section's verdict (and the Gradescope export scores the
// test at half its points where the manifest says extra_loads = "partial").
#pragma once

#include <string>

namespace halo::test {

void advise(const std::string& section, const std::string& text);

// The test case running now (set by test_main.cpp's listener): advice names it, so a course
// whose manifest scores extra loads as partial credit knows which test they belong to.
void set_current_test(const std::string& name);

}  // namespace halo::test
