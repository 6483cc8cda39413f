// Everything a section's test file needs, in one include.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "advice.hpp"
#include "backend.hpp"
#include "book_examples.hpp"
#include "compare.hpp"
#include "conv1d.hpp"
#include "conv2d.hpp"
#include "device_array.hpp"
#include "launch_check.hpp"
#include "load_report.hpp"
#include "measured_launch.hpp"
#include "pitched_image.hpp"
#include "random_inputs.hpp"
#include "thread_order.hpp"
#include "verdict.hpp"

// Fails the current test with the verdict's message (and any stub TODO notes) when it failed.
#define HALO_REQUIRE_VERDICT(verdict_expr)                          \
  do {                                                              \
    const ::halo::test::Verdict halo_v_ = (verdict_expr);           \
    if (!halo_v_.ok) FAIL(::halo::test::failure_text(halo_v_));     \
  } while (0)

namespace halo::test {
// The verdict's message followed by any stub TODO notes and what the kernel printed, as one
// string (doctest's FAIL() must be given a single value).
inline std::string failure_text(const Verdict& v) {
  std::string text = v.message;
  for (const std::string& more : {stub_notes(), kernel_printed()})
    if (!more.empty()) text += "\n" + more;
  return text;
}
}  // namespace halo::test
