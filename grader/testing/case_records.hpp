// Where each test case of a run starts and how it ends, for a caller that runs several test cases
// in one judge process (./workbook grade: tools/halo/core/judge_runs.py). The records go to a
// descriptor the caller opened and named with --halo-case-records=FD, never to stdout: a kernel's
// own printing can reach the judge's output, so only a channel that nothing of the student's
// writes may say which test passed. Each record is one line:
//   start <offset of stdout> <test name>
//   end <offset of stdout> passed|failed <test name>
// The offset (stdout is a file the caller gave) tells the caller which part of the output belongs
// to which test. Without the option nothing is written and nothing changes.
#pragma once

#include <string>

namespace halo::test::case_records {

// Takes --halo-case-records=FD out of argv (doctest must not see it); returns the new argc. A
// descriptor that is not open ends the run: the caller would wait for records that never come.
int take_option(int argc, char** argv);

void started(const std::string& name);
void ended(const std::string& name, bool passed);

}  // namespace halo::test::case_records
