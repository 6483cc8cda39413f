// The book's worked examples (chapters/*/questions.toml [examples]) as test inputs.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compare.hpp"
#include "halo/chapter_data.hpp"

namespace halo::test {

inline std::vector<float> as_floats(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// The grader's own reference must give every value the book prints; a disagreement is a bug
// in the grader (or the book), never the student's, so it stops the test with that message.
inline void require_book_values(const halo::data::Example& ex, const Reference& reference) {
  for (const auto& known : ex.P_known) {
    const size_t index = size_t(known.first);
    // doctest's message macros take one value: build the text first.
    const std::string message = std::string("the grader's reference disagrees with the book's example ") + ex.name +
                                " at element " + std::to_string(index);
    REQUIRE_MESSAGE(reference.value.at(index) == known.second, message);
  }
}

}  // namespace halo::test
