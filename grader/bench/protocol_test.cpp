// The GPU benchmark's timing protocol (gpu/protocol.hpp) without a GPU: fake operations model a
// kernel's output as "the result for the inputs of run k", "poison" or nothing, so that each
// way of being right or wrong is a few lines. No CUDA, no timing, no clock: the fake's times
// are made-up numbers the protocol only sorts. Part of ./workbook check (label "bench").
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gpu/protocol.hpp"

namespace {
using halo::bench::CallResult;
using halo::bench::Check;
using halo::bench::Measurement;
using halo::bench::Verdict;

enum class Behaviour {
  honest,              // computes the result of the current inputs on every call
  replays_when_timed,  // timed: writes back the result it computed on the first call (run 0's)
  idle_when_timed,     // timed: returns at once, writes nothing
  always_wrong,        // computes something else on every call
  fails_when_timed,    // timed: the launch fails
};

class Fake : public halo::bench::ProtocolOps {
 public:
  explicit Fake(Behaviour b) : behaviour_(b) {}
  std::vector<std::string> log;  // every operation, in order
  int timed_calls = 0;
  std::vector<double> clocks;  // the SM clock each timed call reports, in turn (empty: 0, not read)

  std::string regenerate(int run) override {
    log.push_back("inputs " + std::to_string(run));
    inputs_ = run;
    return "";
  }
  std::string poison() override {
    log.push_back("poison");
    output_ = kPoison;
    return "";
  }
  std::string flush() override {
    log.push_back("flush");
    return "";
  }
  CallResult call(bool timed) override {
    log.push_back(timed ? "timed call" : "call");
    CallResult r;
    if (timed) {
      if (!clocks.empty()) r.sm_mhz = clocks[size_t(timed_calls) % clocks.size()];
      r.ms = 1.0 + 0.5 * double(timed_calls++ % 3);  // 1, 1.5, 2, 1, ...: only sorted
    }
    if (first_result_ == kNothing) first_result_ = inputs_;
    switch (behaviour_) {
      case Behaviour::honest: output_ = inputs_; break;
      case Behaviour::replays_when_timed: output_ = timed ? first_result_ : inputs_; break;
      case Behaviour::idle_when_timed: if (!timed) output_ = inputs_; break;
      case Behaviour::always_wrong: output_ = inputs_ + 1000; break;
      case Behaviour::fails_when_timed:
        if (timed) r.error = "launch: cudaErrorLaunchFailure (unspecified launch failure)";
        else output_ = inputs_;
        break;
    }
    return r;
  }
  Check check(int run) override {
    log.push_back("check " + std::to_string(run));
    Check c;
    c.checked = 1;
    c.ok = output_ == run;
    if (!c.ok)
      c.message = output_ == kPoison ? "P[0] is NaN (never written: still the poison)"
                                     : "P[0] is the result of run " + std::to_string(output_) + "'s inputs";
    return c;
  }

 private:
  static constexpr int kPoison = -1, kNothing = -2;
  Behaviour behaviour_;
  int inputs_ = kNothing, output_ = kNothing, first_result_ = kNothing;
};

bool has(const std::vector<std::string>& log, const std::string& entry) {
  for (const auto& e : log)
    if (e == entry) return true;
  return false;
}

TEST_CASE("a kernel right before and after the timed runs is timed, each run on fresh inputs") {
  Fake fake(Behaviour::honest);
  const Measurement m = halo::bench::measure(fake, 2, 3);
  CHECK(m.verdict == Verdict::timed);
  CHECK(m.ok());
  CHECK(m.message.empty());
  CHECK(m.before.ok);
  CHECK(m.after.ok);
  CHECK(m.runs == 3);
  CHECK(m.median_ms == doctest::Approx(1.5));
  CHECK(m.min_ms == doctest::Approx(1.0));
  CHECK(m.max_ms == doctest::Approx(2.0));
  const std::vector<std::string> expected = {
      "inputs 0", "poison", "flush", "call", "check 0",               // validation
      "inputs 1", "flush", "call", "inputs 2", "flush", "call",       // warm-up
      "inputs 3", "flush", "timed call", "inputs 4", "flush", "timed call",
      "inputs 5", "poison", "flush", "timed call",                    // the last timed run, poisoned first
      "check 5"};                                                      // its output, for its own inputs
  CHECK(fake.log == expected);
}

TEST_CASE("the SM clock reported is the median over the timed calls that read it") {
  Fake fake(Behaviour::honest);
  fake.clocks = {1930, 0, 1980, 1900};  // the second call could not read it
  const Measurement m = halo::bench::measure(fake, 1, 4);
  REQUIRE(m.ok());
  CHECK(m.median_sm_mhz == doctest::Approx(1930));
  Fake unread(Behaviour::honest);
  CHECK(halo::bench::measure(unread, 1, 4).median_sm_mhz == 0);
}

TEST_CASE("a kernel that replays an earlier result when timed is refused after the timed runs") {
  Fake fake(Behaviour::replays_when_timed);
  const Measurement m = halo::bench::measure(fake, 2, 3);
  CHECK(m.verdict == Verdict::wrong_after);
  CHECK_FALSE(m.ok());
  CHECK(m.before.ok);
  CHECK_FALSE(m.after.ok);
  CHECK(m.runs == 0);
  CHECK(m.median_ms == 0);
  CHECK(m.message ==
        "right on the validation run, wrong after the 3 timed runs: P[0] is the result of run 0's inputs "
        "(the last timed run, for its own inputs); refused: no time is reported");
}

TEST_CASE("a kernel that does nothing when timed leaves the poison and is refused") {
  Fake fake(Behaviour::idle_when_timed);
  const Measurement m = halo::bench::measure(fake, 1, 4);
  CHECK(m.verdict == Verdict::wrong_after);
  CHECK(m.runs == 0);
  CHECK(m.message.find("wrong after the 4 timed runs: P[0] is NaN (never written: still the poison)") != std::string::npos);
  CHECK(m.message.find("refused: no time is reported") != std::string::npos);
}

TEST_CASE("a kernel wrong on the validation run is refused without being timed") {
  Fake fake(Behaviour::always_wrong);
  const Measurement m = halo::bench::measure(fake, 5, 30);
  CHECK(m.verdict == Verdict::wrong_before);
  CHECK(m.message == "P[0] is the result of run 1000's inputs (not timed)");
  CHECK(m.runs == 0);
  CHECK(m.ms.empty());
  CHECK(fake.timed_calls == 0);
  CHECK_FALSE(has(fake.log, "timed call"));
  const std::vector<std::string> expected = {"inputs 0", "poison", "flush", "call", "check 0"};
  CHECK(fake.log == expected);
}

TEST_CASE("a call that fails while timed gives an error and no time") {
  Fake fake(Behaviour::fails_when_timed);
  const Measurement m = halo::bench::measure(fake, 1, 3);
  CHECK(m.verdict == Verdict::error);
  CHECK(m.runs == 0);
  CHECK(m.message == "timed run (run 2): launch: cudaErrorLaunchFailure (unspecified launch failure)");
  CHECK_FALSE(has(fake.log, "check 4"));
}

TEST_CASE("no timed runs asked for: an error, nothing run") {
  Fake fake(Behaviour::honest);
  const Measurement m = halo::bench::measure(fake, 5, 0);
  CHECK(m.verdict == Verdict::error);
  CHECK(fake.log.empty());
}

TEST_CASE("no warm-up: the first timed run follows the validation run") {
  Fake fake(Behaviour::honest);
  const Measurement m = halo::bench::measure(fake, 0, 1);
  CHECK(m.ok());
  const std::vector<std::string> expected = {"inputs 0", "poison", "flush", "call",       "check 0",
                                             "inputs 1", "poison", "flush", "timed call", "check 1"};
  CHECK(fake.log == expected);
}
}  // namespace
