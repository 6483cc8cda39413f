#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "device_array.hpp"

namespace halo::test {

bool close_enough(float got, double want, double magnitude) {
  if (std::isnan(got)) return false;
  double scale = magnitude > 0 ? magnitude : std::fabs(want);
  return std::fabs(double(got) - want) <= kRelativeTolerance * scale + 1e-30;
}

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// "P[3]..P[9], P[40]" for the given (sorted) indices, at most `limit` ranges.
std::string ranges(const std::vector<size_t>& idx, const std::string& array, const IndexName& name, size_t limit = 6) {
  auto one = [&](size_t i) { return name ? name(i) : array + "[" + std::to_string(i) + "]"; };
  std::string out;
  size_t shown = 0;
  for (size_t k = 0; k < idx.size(); ++shown) {
    if (shown == limit) return out + ", ...";
    size_t end = k;
    while (end + 1 < idx.size() && idx[end + 1] == idx[end] + 1) ++end;
    out += (out.empty() ? "" : ", ") + one(idx[k]) + (end > k ? ".." + one(idx[end]) : "");
    k = end + 1;
  }
  return out;
}

// The kernel's output `got` equals the reference's value: written, and within the tolerance.
bool fits(float got, double value, double magnitude) { return !is_poison(got) && close_enough(got, value, magnitude); }

// A reference cut short by ReferenceMaker is one the outputs did not fit.
bool matches(const std::vector<float>& got, const Reference& r) {
  if (r.value.size() != got.size()) return false;
  for (size_t i = 0; i < got.size(); ++i)
    if (!fits(got[i], r.value[i], r.magnitude[i])) return false;
  return true;
}

// Every value written is a whole number (some not zero) while most right results are not: the
// sum went through an int, which drops each product's fraction.
bool whole_numbers_only(const std::vector<float>& got, const Reference& want) {
  size_t written = 0, nonzero = 0, fractional = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (is_poison(got[i])) continue;
    if (std::isnan(got[i]) || got[i] != std::trunc(got[i])) return false;
    ++written;
    nonzero += got[i] != 0.0f;
    fractional += std::fabs(want.value[i] - std::round(want.value[i])) > 1e-3;
  }
  return written > 0 && 4 * nonzero >= written && 2 * fractional > written;
}

}  // namespace

ReferenceMaker::ReferenceMaker(size_t size, const std::vector<float>* fit)
    : fit_(fit && fit->size() == size ? fit : nullptr) {
  // Reserved, not filled: pages of a reference given up early are never touched.
  r_.value.reserve(size);
  r_.magnitude.reserve(size);
}

bool ReferenceMaker::add(double value, double magnitude) {
  if (given_up_) return false;
  if (fit_ && !fits((*fit_)[r_.value.size()], value, magnitude)) {
    r_ = Reference{};
    given_up_ = true;
    return false;
  }
  r_.value.push_back(value);
  r_.magnitude.push_back(magnitude);
  return true;
}

bool any_unwritten(const std::vector<float>& got) {
  return std::any_of(got.begin(), got.end(), [](float x) { return is_poison(x); });
}

Verdict compare_outputs(const std::string& array, const std::vector<float>& got, const Reference& want,
                        const std::vector<Misconception>& misconceptions, IndexName index_name) {
  Verdict v;
  std::vector<size_t> unwritten, wrong;
  for (size_t i = 0; i < got.size(); ++i) {
    if (is_poison(got[i])) unwritten.push_back(i);
    else if (!close_enough(got[i], want.value[i], want.magnitude[i])) wrong.push_back(i);
  }
  if (unwritten.empty() && wrong.empty()) return v;

  // The mistake first, when the outputs say which one it is; then what is wrong where.
  // A misconception whose outputs are all 0 (N[0] skipped in a 1-element N) would name a mistake
  // for any kernel that writes zeros: it tells nothing. Nor does one that differs from the right
  // result at a single output: the random inputs repeat values, and one number can fit two
  // mistakes (with M[0] == M[1], a 1-element P of a window starting at i equals a radius of 1).
  // A hint needs two outputs that tell its mistake from the right result.
  auto telling = [&want](const Reference& r) {
    if (std::none_of(r.value.begin(), r.value.end(), [](double x) { return x != 0; })) return false;
    size_t differing = 0;
    for (size_t i = 0; i < r.value.size() && differing < 2; ++i)
      differing += !close_enough(float(r.value[i]), want.value[i], want.magnitude[i]);
    return differing >= 2;
  };
  // Outputs that fit two different mistakes (on a one-row image a mask rotated by 180 degrees and
  // one mirrored left to right give the same P) name neither.
  std::vector<const std::string*> fitting;
  for (const auto& m : misconceptions)
    if (telling(m.reference) && matches(got, m.reference) &&
        std::none_of(fitting.begin(), fitting.end(), [&m](const std::string* d) { return *d == m.description; }))
      fitting.push_back(&m.description);
  if (fitting.size() == 1) v.fail("hint: " + array + " equals " + *fitting.front() + ".");
  if (v.ok && whole_numbers_only(got, want))
    v.fail("hint: every value the kernel wrote to " + array + " is a whole number, though the right results are "
           "not: is the sum kept in an int? Each += then drops the fraction of the product; accumulate in a float.");
  if (!unwritten.empty())
    v.fail(std::to_string(unwritten.size()) + " of " + std::to_string(got.size()) + " elements of " + array +
           " were never written (they still hold the poison value): " + ranges(unwritten, array, index_name));
  if (!wrong.empty()) {
    std::string line = std::to_string(wrong.size()) + " of " + std::to_string(got.size()) + " elements of " + array +
                       " are wrong:";
    for (size_t k = 0; k < wrong.size() && k < 4; ++k) {
      size_t i = wrong[k];
      line += "\n    " + (index_name ? index_name(i) : array + "[" + std::to_string(i) + "]") + " = " +
              number(got[i]) + ", expected " + number(want.value[i]);
    }
    if (wrong.size() > 4) line += "\n    ...";
    v.fail(line);
  }
  return v;
}

}  // namespace halo::test
