//===- Graph.h - Launches recorded once and replayed as one unit (CUDA graphs) ---===//
//
// A decode step's MoE layer is five small kernels: launched one by one, the host's launch cost is a large part
// of its time. A Graph records what a callable enqueues on a stream (stream capture) and replays it all with one
// launch:
//
//   auto graph = runtime::Graph::capture(stream, [&] { return layer.run(&stream); });
//   for (...) graph->replay(stream);
//
// Capture runs nothing on the GPU: it records. Launch the kernels once before capturing them (a JIT kernel's first
// launch compiles and loads it, host work a recording does not need), and enqueue only launches on `stream` while
// capturing: a synchronous copy, an allocation or work on another stream inside the callable is an error the driver
// reports at the end of capture. The recorded launches keep their arguments: a replay reads and writes the same
// buffers. On the interpreter (where launches run at once, on the host) the callable itself is what replays, so
// its errors come at replay.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_GRAPH_H
#define BRICK_RUNTIME_GRAPH_H

#include "brick/Runtime/Device.h"

#include <functional>

namespace brick::runtime {

class Graph {
public:
  /// Records what `launches` enqueues on `stream` (not the default stream, which cannot be captured).
  static Expected<Graph> capture(const Stream &stream, std::function<Error()> launches);
  Graph(Graph &&other) noexcept;
  Graph &operator=(Graph &&other) noexcept;
  ~Graph();
  /// Enqueues the recorded launches on `stream`.
  Error replay(const Stream &stream) const;

private:
  Graph() = default;
  const Driver *driver_ = nullptr; // null: the interpreter's graph, `launches` itself
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  std::function<Error()> launches_;
};

} // namespace brick::runtime

#endif // BRICK_RUNTIME_GRAPH_H
