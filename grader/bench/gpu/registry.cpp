// The one list of benchmark entries. Each unit (kernels/<folder>.cu, cudnn_conv.cu) adds its
// entries from a static initialiser, so the build decides what is benchmarked by what it links:
// every reference unit for `./workbook bench`, one section's reference and student units for
// `./workbook bench 7.6`. Nothing here names a section.
#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "bench.hpp"

namespace halo::bench {
namespace {
std::vector<Entry>& storage() {  // function-local: safe whatever order the units initialise in
  static std::vector<Entry> all;
  return all;
}

int variant_rank(const std::string& v) {
  if (v == "reference") return 0;
  if (v == "student") return 1;
  return 2;  // a vendor library
}

// "7.10" after "7.9": compare section ids number by number.
std::vector<int> section_key(const std::string& s) {
  std::vector<int> key;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t dot = s.find('.', start);
    key.push_back(std::atoi(s.substr(start, dot - start).c_str()));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return key;
}
}  // namespace

std::vector<std::pair<std::string, std::string>>& fact_storage() {
  static std::vector<std::pair<std::string, std::string>> all;
  return all;
}

bool add_entries(std::vector<Entry> entries) {
  for (auto& e : entries) storage().push_back(std::move(e));
  return true;
}

void add_fact(const std::string& key, const std::string& value) { fact_storage().emplace_back(key, value); }
std::vector<std::pair<std::string, std::string>> facts() { return fact_storage(); }

std::vector<Entry> entries() {
  std::vector<Entry> sorted = storage();
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
    const bool va = variant_rank(a.variant) == 2, vb = variant_rank(b.variant) == 2;
    return std::make_tuple(a.dims, va, section_key(a.section), a.order, variant_rank(a.variant)) <
           std::make_tuple(b.dims, vb, section_key(b.section), b.order, variant_rank(b.variant));
  });
  return sorted;
}

}  // namespace halo::bench
