// The CPUs this process may use on Linux: the fewest of its affinity mask (sched_getaffinity),
// its cgroups' CPU quotas and SLURM_CPUS_PER_TASK. std::thread::hardware_concurrency() is the
// host's count: in a container given 2 CPUs of 64, or a Slurm slot of 4, a launch sized by it
// runs 64 fibers' threads on 2 or 4 CPUs. tools/halo/core/cpus.py applies the same rule.
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "../platform.hpp"
#include "cgroup_cpus.hpp"

namespace halo::platform {
namespace linux_cpus {
namespace {

std::vector<std::string> words_of(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> words;
  for (std::string w; f >> w;) words.push_back(w);
  return words;
}

// CPUs a quota of `quota` per `period` allows, rounded up (1.5 CPUs lets two threads progress).
std::optional<unsigned> from_quota(const std::string& quota, const std::string& period) {
  char* end = nullptr;
  const long long q = std::strtoll(quota.c_str(), &end, 10);
  if (end == quota.c_str() || *end) return std::nullopt;  // "max"
  const long long p = std::strtoll(period.c_str(), &end, 10);
  if (end == period.c_str() || *end || q <= 0 || p <= 0) return std::nullopt;
  return unsigned(std::max(1LL, (q + p - 1) / p));
}

std::optional<unsigned> quota_in(int version, const std::string& folder) {
  if (version == 2) {
    const auto w = words_of(folder + "/cpu.max");
    return w.size() >= 2 ? from_quota(w[0], w[1]) : std::nullopt;
  }
  const auto q = words_of(folder + "/cpu.cfs_quota_us"), p = words_of(folder + "/cpu.cfs_period_us");
  return q.empty() || p.empty() ? std::nullopt : from_quota(q[0], p[0]);
}

bool has_controller(const std::string& list, const std::string& name) {
  std::stringstream s(list);
  for (std::string c; std::getline(s, c, ',');)
    if (c == name) return true;
  return false;
}

}  // namespace

std::optional<unsigned> cgroup_cpus(const std::string& cgroup_root, const std::string& proc_self_cgroup) {
  std::optional<unsigned> fewest;
  std::ifstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // "hierarchy:controllers:path": "0::/path" for v2, "2:cpu,cpuacct:/path" for v1
    const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string hierarchy = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
    std::string base;
    int version = 0;
    if (hierarchy == "0" && controllers.empty()) {
      base = cgroup_root, version = 2;
    } else if (has_controller(controllers, "cpu")) {
      base = cgroup_root + "/" + controllers, version = 1;
      std::error_code ec;  // no exception: an unreadable folder is one without a quota
      if (!std::filesystem::is_directory(base, ec)) base = cgroup_root + "/cpu";  // mounted as cpu alone, or as a link
    } else {
      continue;
    }
    // Its own cgroup and every one above it: a parent's quota limits its children. In a
    // container the path may be the host's, and the container's own cgroup is the root.
    std::string path = line.substr(b + 1);
    while (true) {
      if (auto n = quota_in(version, base + path); n && (!fewest || *n < *fewest)) fewest = n;
      if (path.empty() || path == "/") break;
      const auto cut = path.rfind('/');
      path = cut == std::string::npos ? std::string() : path.substr(0, cut);
    }
  }
  return fewest;
}

std::optional<unsigned> slurm_cpus(const char* value) {
  if (!value || !*value) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  return *end || n <= 0 ? std::nullopt : std::optional<unsigned>(unsigned(n));
}

}  // namespace linux_cpus

unsigned usable_cpus() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) n = std::max(1, CPU_COUNT(&mask));
  if (auto q = linux_cpus::cgroup_cpus("/sys/fs/cgroup", "/proc/self/cgroup")) n = std::min(n, *q);
  if (auto s = linux_cpus::slurm_cpus(std::getenv("SLURM_CPUS_PER_TASK"))) n = std::min(n, *s);
  return std::max(1u, n);
}

}  // namespace halo::platform
