// platform::usable_cpus() on Linux: the cgroup quota rule on the fake cgroup trees of
// cgroup_cases.txt (written under a temporary folder and given by path), SLURM_CPUS_PER_TASK's
// parsing, and, with `--expect-usable N`, the count this very process gets (CTest runs it under
// `taskset -c 0` and expects 1: the host's count would be every core).
//
//   usable_cpus_test [--expect-usable N]      Exit status 0 when every check passed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../linux/cgroup_cpus.hpp"
#include "../platform.hpp"

namespace fs = std::filesystem;
using halo::platform::linux_cpus::cgroup_cpus;
using halo::platform::linux_cpus::slurm_cpus;

namespace {

int failures = 0;

std::string shown(std::optional<unsigned> n) { return n ? std::to_string(*n) : "none"; }

void check(std::optional<unsigned> got, std::optional<unsigned> wanted, const std::string& what) {
  const bool ok = got == wanted;
  std::printf("  %s  %s (got %s, wanted %s)\n", ok ? "PASS" : "FAIL", what.c_str(), shown(got).c_str(),
              shown(wanted).c_str());
  if (!ok) ++failures;
}

std::string trimmed(const std::string& s) {
  const auto lo = s.find_first_not_of(' '), hi = s.find_last_not_of(' ');
  return lo == std::string::npos ? std::string() : s.substr(lo, hi - lo + 1);
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, by);) parts.push_back(trimmed(part));
  return parts;
}

// Each case of cgroup_cases.txt (its header says the format) on a fake tree under a temporary
// folder: root/fs is the cgroup root, root/self-cgroup the /proc/self/cgroup text.
void cgroup_cases(const std::string& cases_file) {
  const fs::path root = fs::temp_directory_path() / ("halo-cgroup-" + std::to_string(getpid()));
  std::ifstream cases(cases_file);
  int read = 0;
  for (std::string line; std::getline(cases, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto field = split(line, '|');
    if (field.size() != 4) {
      check(std::nullopt, 0, cases_file + ": not four fields: " + line);
      continue;
    }
    fs::remove_all(root);
    fs::create_directories(root / "fs");
    std::ofstream proc(root / "self-cgroup");
    for (const auto& l : split(field[2], ';')) proc << l << "\n";
    proc.close();
    for (const auto& file : split(field[3], ';')) {
      const auto eq = file.find('=');
      fs::create_directories((root / "fs" / file.substr(0, eq)).parent_path());
      std::ofstream(root / "fs" / file.substr(0, eq)) << file.substr(eq + 1) << "\n";
    }
    const std::optional<unsigned> wanted =
        field[0] == "none" ? std::nullopt : std::optional<unsigned>(unsigned(std::stoul(field[0])));
    check(cgroup_cpus((root / "fs").string(), (root / "self-cgroup").string()), wanted, field[1]);
    ++read;
  }
  fs::remove_all(root);
  // A file that could not be read, or lost its cases, must not pass for want of checks.
  check(read >= 6 ? 1u : 0u, 1u, "at least 6 cases read from " + cases_file);
}

void slurm_cases() {
  check(slurm_cpus("3"), 3, "SLURM_CPUS_PER_TASK=3");
  check(slurm_cpus("0"), std::nullopt, "SLURM_CPUS_PER_TASK=0 is ignored");
  check(slurm_cpus("lots"), std::nullopt, "SLURM_CPUS_PER_TASK=lots is ignored");
  check(slurm_cpus(nullptr), std::nullopt, "SLURM_CPUS_PER_TASK unset");
}

}  // namespace

int main(int argc, char** argv) {
  cgroup_cases(HALO_CGROUP_CASES);
  slurm_cases();
  if (argc == 3 && std::string(argv[1]) == "--expect-usable")
    check(halo::platform::usable_cpus(), unsigned(std::atoi(argv[2])), "usable_cpus() of this process");
  std::printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
