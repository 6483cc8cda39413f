// The timing protocol: in which order the benchmark regenerates inputs, flushes the cache, times
// calls and checks outputs, and when it refuses to report a time. Header-only and free of CUDA,
// so that the order itself is tested on any machine (grader/bench/protocol_test.cpp drives it
// with fake operations); timing.cu supplies the operations on a GPU.
//
// For one entry and mask, with W warm-up runs and R timed runs (run numbers 0 .. W + R):
//   validation  run 0: its inputs, the output poisoned, the cache flushed, one call, the output
//               compared with the reference of run 0's inputs. Wrong: refused, never timed.
//   warm-up     runs 1 .. W: fresh inputs, flush, one call each, not timed.
//   timed       runs W + 1 .. W + R: fresh inputs, flush, one call each between its own pair of
//               events. The output is poisoned before the last of them.
//   after       the output of the last timed run compared with the reference of that run's
//               inputs. Wrong: refused, no time reported (a kernel that is right when checked
//               and does less, or answers from an earlier result, when timed).
// Every run's inputs are written afresh from its run number, outside the timed region, so a
// kernel never sees the same inputs twice and cannot return a result it computed before. The
// flush comes after the inputs are written and the output poisoned, so neither leaves those
// bytes in the cache for the timed call.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace halo::bench {

struct CallResult {
  std::string error;  // "" when the call ran
  double ms = 0;      // a timed call: between its own start and stop events
  double sm_mhz = 0;  // a timed call: the SM clock across it (0: not read)
};

struct Check {
  bool ok = false;
  std::string message;  // the first wrong output, in words ("" when ok)
  double max_rel_error = 0;
  size_t checked = 0;  // outputs compared
};

// What the protocol needs done, in its order. Each returns "" (or ok) when it worked.
class ProtocolOps {
 public:
  virtual ~ProtocolOps() = default;
  virtual std::string regenerate(int run) = 0;  // write the inputs of this run (a function of its number)
  virtual std::string poison() = 0;             // fill the output with values no kernel computes (NaN)
  virtual std::string flush() = 0;              // evict the cache, reset persisting L2 lines
  virtual CallResult call(bool timed) = 0;      // one call, waited for; timed: its own event pair
  virtual Check check(int run) = 0;             // the output against the reference of run's inputs
};

enum class Verdict {
  timed,         // right before and after: the times stand
  error,         // a step failed (a launch error, a failed copy): no time
  wrong_before,  // wrong on the validation run: never timed
  wrong_after,   // right on the validation run, wrong after the timed runs: refused, no time
};

struct Measurement {
  Verdict verdict = Verdict::error;
  std::string message;     // why there is no time ("" when timed)
  Check before, after;     // the two checks (after: only once timed)
  std::vector<double> ms;  // every timed call, in order (kept when refused: for the record, never reported)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double median_sm_mhz = 0;  // over the timed calls that read the clock (0: none did)
  int runs = 0;
  bool ok() const { return verdict == Verdict::timed; }
};

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The validation run, `warmup` untimed runs, `runs` timed runs, the check after them.
inline Measurement measure(ProtocolOps& ops, int warmup, int runs) {
  Measurement m;
  auto stop = [&m](Verdict v, std::string why) {
    m.verdict = v;
    m.message = std::move(why);
    return m;
  };
  auto step = [](const char* what, int run, const std::string& error) {
    return std::string(what) + " (run " + std::to_string(run) + "): " + error;
  };
  if (runs < 1) return stop(Verdict::error, "no timed runs asked for (at least one is needed)");
  if (warmup < 0) warmup = 0;

  // One run without a time: fresh inputs, (poison), flush, call. "" or what failed.
  auto untimed = [&](int run, bool poisoned) -> std::string {
    if (std::string e = ops.regenerate(run); !e.empty()) return step("writing the inputs", run, e);
    if (poisoned)
      if (std::string e = ops.poison(); !e.empty()) return step("poisoning the output", run, e);
    if (std::string e = ops.flush(); !e.empty()) return step("flushing the cache", run, e);
    if (CallResult c = ops.call(false); !c.error.empty()) return step(run == 0 ? "validation run" : "warm-up run", run, c.error);
    return std::string();
  };

  if (std::string e = untimed(0, true); !e.empty()) return stop(Verdict::error, e);
  m.before = ops.check(0);
  if (!m.before.ok) return stop(Verdict::wrong_before, m.before.message + " (not timed)");

  for (int run = 1; run <= warmup; ++run)
    if (std::string e = untimed(run, false); !e.empty()) return stop(Verdict::error, e);

  const int first = warmup + 1, last = warmup + runs;
  std::vector<double> clocks;
  for (int run = first; run <= last; ++run) {
    if (std::string e = ops.regenerate(run); !e.empty()) return stop(Verdict::error, step("writing the inputs", run, e));
    if (run == last)
      if (std::string e = ops.poison(); !e.empty()) return stop(Verdict::error, step("poisoning the output", run, e));
    if (std::string e = ops.flush(); !e.empty()) return stop(Verdict::error, step("flushing the cache", run, e));
    const CallResult c = ops.call(true);
    if (!c.error.empty()) return stop(Verdict::error, step("timed run", run, c.error));
    m.ms.push_back(c.ms);
    if (c.sm_mhz > 0) clocks.push_back(c.sm_mhz);
  }

  m.after = ops.check(last);
  if (!m.after.ok)
    return stop(Verdict::wrong_after, "right on the validation run, wrong after the " + std::to_string(runs) +
                                          " timed runs: " + m.after.message + " (the last timed run, for its own inputs); "
                                          "refused: no time is reported");
  m.verdict = Verdict::timed;
  m.runs = int(m.ms.size());
  m.median_ms = median_of(m.ms);
  m.median_sm_mhz = median_of(clocks);
  m.min_ms = *std::min_element(m.ms.begin(), m.ms.end());
  m.max_ms = *std::max_element(m.ms.begin(), m.ms.end());
  return m;
}

}  // namespace halo::bench
