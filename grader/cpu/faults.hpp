// Crashes inside a kernel: a fault (segmentation fault, bus error, division by zero) raised by a
// CUDA thread becomes a `crash` diagnostic for that thread, which is then stopped; the launch
// and the test go on and report. A fault anywhere else is left to whatever handled it before.
#pragma once

#include <csignal>

namespace halo::cpu {

// Installs the handlers for the duration of a launch and puts back whatever was there (a test
// framework installs its own between tests).
class FaultHandlers {
 public:
  FaultHandlers();
  ~FaultHandlers();
  FaultHandlers(const FaultHandlers&) = delete;
  FaultHandlers& operator=(const FaultHandlers&) = delete;
};

// The signal a watchdog sends to a worker thread whose launch ran past its deadline: its
// running CUDA thread is stopped and reported (even a loop that never touches memory).
inline constexpr int kTimeoutSignal = SIGUSR2;

// An alternate signal stack for the lifetime of a worker thread, so that a fiber that overflows
// its own stack can still be reported.
class FaultStack {
 public:
  FaultStack();
  ~FaultStack();
  FaultStack(const FaultStack&) = delete;
  FaultStack& operator=(const FaultStack&) = delete;

 private:
  void* memory_;
};

}  // namespace halo::cpu
