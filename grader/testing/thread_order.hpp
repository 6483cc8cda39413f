// Order independence (CPU backend): a correct kernel gives the same output whichever order the
// threads of a block run in between barriers. Running it first to last and last to first
// exposes results that depend on the order, including through global memory, where the
// shared-memory race checks do not look.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "backend.hpp"
#include "verdict.hpp"

namespace halo::test {

#if defined(HALO_BACKEND_CPU)
// `run()` launches the kernel on fixed inputs and returns {output, launch verdict}.
template <class Run>
Verdict same_in_both_orders(const std::string& array, Run run) {
  cpu::set_schedule(cpu::Schedule::forward);
  auto forward = run();
  cpu::set_schedule(cpu::Schedule::reverse);
  auto reverse = run();
  cpu::set_schedule(cpu::Schedule::forward);
  Verdict v = forward.launch;
  v.merge(reverse.launch);
  if (!v.ok) return v;
  for (size_t i = 0; i < forward.P.size() && i < reverse.P.size(); ++i)
    if (std::memcmp(&forward.P[i], &reverse.P[i], sizeof(float)) != 0) {
      v.fail(array + "[" + std::to_string(i) + "] = " + std::to_string(forward.P[i]) +
             " when the threads of each block run first to last, but " + std::to_string(reverse.P[i]) +
             " when they run last to first: the result depends on the order in which threads run");
      break;
    }
  return v;
}
#endif

}  // namespace halo::test
