//===- Graph.cpp - Stream capture into a CUDA graph, and its replay ---------------===//

#include "brick/Runtime/Graph.h"

#include <utility>

namespace brick::runtime {

namespace {
// cuda.h's CUstreamCaptureMode: relaxed, since a JIT kernel's first launch inside a capture loads a module,
// which the stricter modes refuse.
constexpr int kCaptureModeRelaxed = 2;
} // namespace

Expected<Graph> Graph::capture(const Stream &stream, std::function<Error()> launches) {
  Graph graph;
  if (!stream.driver_) { // the interpreter: launches run on the host when called
    graph.launches_ = std::move(launches);
    return graph;
  }
  if (!stream.handle_)
    return Error("capturing a graph needs a stream of its own (Stream::create), not the default stream");
  const Driver &d = *stream.driver_;
  graph.driver_ = &d;
  if (Error e = d.check(d.cuStreamBeginCapture(stream.handle_, kCaptureModeRelaxed), "beginning a stream capture"))
    return e;
  Error recorded = launches();
  // The capture ends whatever happened, so that the stream is usable again.
  CUresult ended = d.cuStreamEndCapture(stream.handle_, &graph.graph_);
  if (recorded)
    return Error("while capturing a graph: " + recorded.message());
  if (Error e = d.check(ended, "ending a stream capture (something in it was not a launch on the captured stream?)"))
    return e;
  if (Error e = d.check(d.cuGraphInstantiateWithFlags(&graph.exec_, graph.graph_, 0), "instantiating a graph"))
    return e;
  return graph;
}

Graph::Graph(Graph &&other) noexcept
    : driver_(other.driver_), graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)),
      launches_(std::move(other.launches_)) {}

Graph &Graph::operator=(Graph &&other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(graph_, other.graph_);
  std::swap(exec_, other.exec_);
  std::swap(launches_, other.launches_);
  return *this;
}

Graph::~Graph() {
  if (exec_)
    driver_->cuGraphExecDestroy(exec_);
  if (graph_)
    driver_->cuGraphDestroy(graph_);
}

Error Graph::replay(const Stream &stream) const {
  if (!driver_)
    return launches_ ? launches_() : Error();
  return driver_->check(driver_->cuGraphLaunch(exec_, stream.handle_), "replaying a graph");
}

} // namespace brick::runtime
