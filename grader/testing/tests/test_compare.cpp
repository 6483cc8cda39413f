// compare_outputs() names a known mistake only when the outputs tell it apart from the right
// result: these cases hand it outputs and alternative results directly.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compare.hpp"
#include "conv1d.hpp"

namespace {
using halo::test::compare_outputs;
using halo::test::Misconception;
using halo::test::Reference;
using halo::test::ReferenceMaker;

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

TEST_CASE("compare: a reference made against the outputs stops at their first difference, and only then") {
  const std::vector<float> got = {1.0f, 2.0f, 3.0f};
  ReferenceMaker fitting(got.size(), &got);
  CHECK(fitting.add(1, 1));
  CHECK(fitting.add(2, 2));
  CHECK(fitting.add(3, 3));
  const Reference whole = fitting.take();
  CHECK(whole.value == std::vector<double>{1, 2, 3});
  CHECK(whole.magnitude == std::vector<double>{1, 2, 3});

  ReferenceMaker differing(got.size(), &got);
  CHECK(differing.add(1, 1));
  CHECK_FALSE(differing.add(2.5, 2.5));
  CHECK_FALSE(differing.add(3, 3));  // given up: nothing more is added
  CHECK(differing.take().value.empty());

  ReferenceMaker unchecked(got.size(), nullptr);  // no outputs to fit: the whole reference
  CHECK(unchecked.add(7, 7));
  CHECK(unchecked.add(8, 8));
  CHECK(unchecked.add(9, 9));
  CHECK(unchecked.take().value == std::vector<double>{7, 8, 9});
}

TEST_CASE("compare: misconceptions made against the outputs name what the whole references name") {
  // Each 1D mistake's own outputs, fed back as a kernel's: made against them, the list keeps that
  // mistake whole (the same values as made alone) and drops every mistake they differ from, so
  // the hint is the same one; and outputs that fit no mistake leave every reference empty.
  const std::vector<float> N = {0.5f, -1.25f, 2.0f, 3.5f, -0.75f, 1.0f, 4.5f, -2.5f, 0.625f, 1.75f, -3.0f, 2.5f};
  const std::vector<float> M = {0.5f, 1.5f, -2.0f, 0.375f, 3.0f};
  const Reference right = halo::test::conv1d_reference(N, M);
  const auto all = halo::test::conv1d_misconceptions(N, M);
  REQUIRE(all.size() > 5);
  for (const Misconception& made : all) {
    CAPTURE(made.description);
    std::vector<float> got(made.reference.value.begin(), made.reference.value.end());
    const auto fitted = halo::test::conv1d_misconceptions(N, M, &got);
    REQUIRE(fitted.size() == all.size());
    for (size_t k = 0; k < all.size(); ++k) {
      const bool kept = !fitted[k].reference.value.empty();
      CHECK(kept == (compare_outputs("P", got, all[k].reference).ok));
      if (kept) CHECK(fitted[k].reference.value == all[k].reference.value);
    }
    CHECK(compare_outputs("P", got, right, fitted).message == compare_outputs("P", got, right, all).message);
  }
  std::vector<float> none(N.size(), 100.0f);
  for (const Misconception& m : halo::test::conv1d_misconceptions(N, M, &none)) CHECK(m.reference.value.empty());
}
