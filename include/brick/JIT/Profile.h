//===- Profile.h - Where each launch stands against the device's roofline -------------===//
//
//   BRICK_PROFILE=1 build/bin/softmax        # a table on stderr when the program exits
//   BRICK_PROFILE=json build/bin/softmax     # the same as JSON
//
//   brick::profile::enable();                # or from the program
//   ... launches ...
//   for (const brick::profile::Record &r : brick::profile::records()) use(r.medianMs, r.achievedBytesPerSecond());
//
// While profiling is on, every Kernel::launch (plain or through the autotuner, not its trial launches) is timed
// with events around it on its stream, and counted: the bytes its loads, stores, atomics and descriptor blocks
// request and the FLOPs of its dots, from the kernel's brick IR evaluated for the launch's arguments and grid
// (brick/Analysis/LaunchCost.h says how). Launches are grouped by kernel, specialization, grid and the integer
// arguments the count depends on. A record gives the median time, the achieved rates, their share of the
// device's peaks (read from the device) and which one bounds the kernel.
//
// Timing waits for nothing at launch; records() waits for the launches recorded so far. Events around each launch
// cost a few microseconds of host time, so a profiled program runs nearly as it would, not exactly.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_JIT_PROFILE_H
#define BRICK_JIT_PROFILE_H

#include "brick/Analysis/LaunchCost.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace brick::profile {

using mlir::brick::DotKind;
using mlir::brick::kDotKinds;

/// Turns recording on or off (BRICK_PROFILE=1 or =json turns it on when the program starts, and prints the
/// records when it exits).
void enable(bool on = true);
bool enabled();

/// Launches made while one of these lives (on its thread) are not recorded: the autotuner's trials.
class Pause {
public:
  Pause();
  ~Pause();
  Pause(const Pause &) = delete;
  Pause &operator=(const Pause &) = delete;
};

/// What the device can do at most; zeros where it is not known (the interpreter, an unknown architecture).
struct Peaks {
  std::string device;
  /// 2 transfers per memory clock times the bus width.
  double dramBytesPerSecond = 0;
  /// Dense tensor-core rate of each kind of dot (f32: the FMA units), at the SMs' reported clock.
  std::array<double, kDotKinds> dotFlopsPerSecond{};
  /// The FMA units' rate for other floating-point work (an fma counting two).
  double otherFlopsPerSecond = 0;
};

/// One group of launches: one kernel, specialization, grid and set of the arguments its count depends on.
struct Record {
  std::string kernel;
  /// The parameters' types: "(*f16, *f16, *f16, i32, ..., Const<i32>)".
  std::string signature;
  /// The specialization and options, as the JIT's log names them ("(%16, %16, _, 1024) warps=4 ... sm_90a").
  std::string specialization;
  std::array<unsigned, 3> grid = {1, 1, 1};
  uint64_t launches = 0;
  /// Of the timed launches (the device's events; host time on the interpreter).
  double medianMs = 0, totalMs = 0;
  /// Per launch: bytes requested by loads (and atomics) and by stores, and the traffic to device memory when
  /// each argument's buffer is read and written at most once (brick::mlir::LaunchCost::dramBytes).
  double readBytes = 0, writtenBytes = 0, dramBytes = 0;
  std::array<double, kDotKinds> dotFlops{};
  double otherFlops = 0;
  bool exact = true;
  std::string inexact;
  Peaks peaks;

  double flops() const;
  /// dramBytes / medianMs, flops() / medianMs.
  double achievedBytesPerSecond() const;
  double achievedFlopsPerSecond() const;
  /// Shares of the peaks (0 where the peak is unknown); the compute share weighs each kind of FLOP by its own
  /// peak (the time the FLOPs would take at peak, over the measured time).
  double memoryShare() const;
  double computeShare() const;
  /// "memory" or "compute": the resource whose time at its peak is the larger; "latency" when neither reaches
  /// a fifth of the measured time; "unknown" without peaks.
  std::string bound() const;
};

/// Every group recorded so far (waits for their launches to finish), in the order they were first launched.
std::vector<Record> records();
/// Forgets every record.
void reset();

/// A line per record, with the peaks they are compared against.
std::string table(const std::vector<Record> &records);
/// {"records": [{"kernel": ..., "grid": [x, y, z], "launches": ..., "median_ms": ..., ...}, ...]}
std::string json(const std::vector<Record> &records);

} // namespace brick::profile

#endif // BRICK_JIT_PROFILE_H
