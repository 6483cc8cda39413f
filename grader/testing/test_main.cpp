// main() of every section's test binary: prints the seed, and on the CUDA backend turns "no
// device" into CTest's skip code instead of a pass or a failure. In the judge it also takes the
// worker's path (--halo-worker=) and fails a run whose filter matched no test: CTest's list is
// read from the sources (tools/halo/core/test_list.py), and a name that no test carries must not pass.
// With --halo-case-records=FD it says where each test case starts and ends (case_records.hpp).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "advice.hpp"
#include "backend.hpp"
#include "case_records.hpp"
#include "measured_launch.hpp"
#include "random_inputs.hpp"

#if defined(HALO_JUDGE)
#include "halo/remote/judge.hpp"
#endif

namespace {
constexpr int kSkipCode = 77;  // SKIP_RETURN_CODE of every Halo test

int cases_started = 0;

// Counts the test cases that ran (doctest's own summary is only printed, not returned), and tells the
// case records where each starts and how it ended.
struct CaseCounter : doctest::IReporter {
  std::string current;
  explicit CaseCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& data) override {
    ++cases_started;
    current = data.m_name;
    halo::test::set_current_test(current);
    halo::test::case_records::started(current);
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    halo::test::case_records::ended(current, stats.testCaseSuccess);
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("halo_case_counter", 1, CaseCounter);

bool has_filter(int argc, char** argv) {
  for (int k = 1; k < argc; ++k)
    if (std::strncmp(argv[k], "--test-case=", 12) == 0 || std::strncmp(argv[k], "-tc=", 4) == 0) return true;
  return false;
}

bool only_listing(int argc, char** argv) {
  for (int k = 1; k < argc; ++k)
    if (std::strncmp(argv[k], "--list", 6) == 0 || std::strncmp(argv[k], "-l", 2) == 0 ||
        std::strcmp(argv[k], "--help") == 0 || std::strcmp(argv[k], "-h") == 0)
      return true;
  return false;
}
}  // namespace

int main(int argc, char** argv) {
#if defined(HALO_JUDGE)
  argc = halo::remote::take_options(argc, argv);
#endif
  argc = halo::test::case_records::take_option(argc, argv);
  if (!only_listing(argc, argv)) {
#if defined(HALO_BACKEND_CUDA)
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::printf("no CUDA device here: GPU tests skipped (not passed)\n");
      return kSkipCode;
    }
#endif
    std::printf("backend: %s; inputs from HALO_SEED=%llu (set it to replay this run)\n", halo::test::kBackend,
                static_cast<unsigned long long>(halo::test::run_seed()));
    std::fflush(stdout);
  }
  doctest::Context context(argc, argv);
  const int failed = context.run();
  if (context.shouldExit()) return failed;
  if (failed == 0 && cases_started == 0 && has_filter(argc, argv) && !only_listing(argc, argv)) {
    std::printf("ERROR: no test of this program matches the name asked for; the test list and the program disagree\n");
    return 1;
  }
  // A GPU binary without the load counter skipped its load tests: with nothing else failing,
  // the run is "not run" for CTest, never "passed".
  if (failed == 0 && halo::test::load_tests_skipped()) return kSkipCode;
  return failed;
}
