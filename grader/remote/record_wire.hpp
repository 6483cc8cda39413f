// A launch's record (what the CPU backend measured) as bytes: written by the worker after each
// launch, read by the judge, which keeps it as its own last_launch(). The judge checks sizes
// against the launch it asked for, so a record cannot claim blocks or threads that never were.
#pragma once

#include "halo/cpu/launch_record.hpp"
#include "wire.hpp"

namespace halo::remote {

void write_record(Writer& w, const cpu::LaunchRecord& r);
// Throws WireError when the bytes are not a record of a launch of `grid` x `block`.
cpu::LaunchRecord read_record(Reader& in, dim3 grid, dim3 block, bool per_thread);

}  // namespace halo::remote
