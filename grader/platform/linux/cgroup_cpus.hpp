// The cgroup half of usable_cpus(), with its files given by path so that a test can hand it a
// fake tree. Linux only; nothing outside grader/platform/ includes it.
#pragma once

#include <optional>
#include <string>

namespace halo::platform::linux_cpus {

// The CPUs the cgroup CPU quotas allow this process (v2 cpu.max, v1 cpu.cfs_quota_us and
// cpu.cfs_period_us), rounded up, for the cgroups named in `proc_self_cgroup` (the format of
// /proc/self/cgroup) and every cgroup above them, under `cgroup_root` (/sys/fs/cgroup); nullopt
// when none sets a quota.
std::optional<unsigned> cgroup_cpus(const std::string& cgroup_root, const std::string& proc_self_cgroup);

// SLURM_CPUS_PER_TASK's value as a positive number, or nullopt (unset, 0, not a number).
std::optional<unsigned> slurm_cpus(const char* value);

}  // namespace halo::platform::linux_cpus
