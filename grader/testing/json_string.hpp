// A string as a JSON literal, for the small report files the tests write for ./workbook grade.
#pragma once

#include <string>

namespace halo::test {

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace halo::test
