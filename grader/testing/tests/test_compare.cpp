// compare_outputs() names a known mistake only when the outputs tell it apart from the right
// result: these cases hand it outputs and alternative results directly.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compare.hpp"

namespace {
using halo::test::compare_outputs;
using halo::test::Misconception;
using halo::test::Reference;

Reference exact(std::vector<double> values) {
  Reference r{values, values};
  for (double& m : r.magnitude) m = m < 0 ? -m : m;
  return r;
}

bool names(const std::string& message, const std::string& mistake) {
  return message.find("hint: P equals " + mistake) != std::string::npos;
}
}  // namespace

TEST_CASE("compare: a mistake the wrong outputs equal at two places or more is named") {
  const Reference right = exact({2.25, 1.5, -0.5});
  const std::vector<Misconception> mistakes = {{"the mask reversed", exact({-3, 1.5, 4})}};
  const auto v = compare_outputs("P", {-3.0f, 1.5f, 4.0f}, right, mistakes);
  CHECK_FALSE(v.ok);
  CHECK(names(v.message, "the mask reversed"));
}

TEST_CASE("compare: a mistake that differs from the right result at one output only is not named") {
  // Width 1, Mask_Width 5, M[0] == M[1]: a window starting at i and a radius of 1 both give
  // M[0] * N[0]; one number cannot say which mistake it was.
  const Reference right = exact({2.25});
  const std::vector<Misconception> mistakes = {{"the result with a radius of 1", exact({-3})}};
  const auto v = compare_outputs("P", {-3.0f}, right, mistakes);
  CHECK_FALSE(v.ok);
  CHECK_FALSE(names(v.message, "the result with a radius of 1"));
  CHECK(v.message.find("1 of 1 elements of P are wrong") != std::string::npos);
  // The same mistake over a longer output, differing at one place only, is not named either.
  const auto w = compare_outputs("P", {-3.0f, 1.5f}, exact({2.25, 1.5}), {{"one term", exact({-3, 1.5})}});
  CHECK_FALSE(names(w.message, "one term"));
}

TEST_CASE("compare: a mistake whose outputs are all zero is not named") {
  const auto v = compare_outputs("P", {0.0f, 0.0f}, exact({1.0, 2.0}), {{"N[0] skipped", exact({0, 0})}});
  CHECK_FALSE(v.ok);
  CHECK_FALSE(names(v.message, "N[0] skipped"));
}

TEST_CASE("compare: outputs that two different mistakes both give name neither") {
  // On a one-row image a mask rotated by 180 degrees and one mirrored left to right give the
  // same P: naming either could send the student after the wrong mistake.
  const Reference right = exact({2.25, 1.5, -0.5});
  const std::vector<Misconception> mistakes = {{"the mask rotated", exact({-3, 1.5, 4})},
                                               {"the mask mirrored", exact({-3, 1.5, 4})}};
  const auto v = compare_outputs("P", {-3.0f, 1.5f, 4.0f}, right, mistakes);
  CHECK_FALSE(v.ok);
  CHECK_FALSE(names(v.message, "the mask rotated"));
  CHECK_FALSE(names(v.message, "the mask mirrored"));
  // One mistake listed twice (two ways to reach the same outputs, one description) is still named.
  const auto w = compare_outputs("P", {-3.0f, 1.5f, 4.0f}, right, {mistakes[0], mistakes[0]});
  CHECK(names(w.message, "the mask rotated"));
}
