// A check's outcome with the message a student reads when it fails.
#pragma once

#include <string>

namespace halo::test {

struct Verdict {
  bool ok = true;
  std::string message;

  void fail(const std::string& line) {
    ok = false;
    if (!message.empty()) message += "\n";
    message += line;
  }
  void merge(const Verdict& other) {
    if (!other.ok) fail(other.message);
  }
};

}  // namespace halo::test
