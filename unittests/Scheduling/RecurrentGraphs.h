//===- RecurrentGraphs.h - Two-carry recurrences for the tests --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SCHEDULING_RECURRENTGRAPHS_H
#define REMAT_UNITTESTS_SCHEDULING_RECURRENTGRAPHS_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {
namespace sched {
namespace test {

/// An LSTM-like recurrence unrolled over `steps` steps that carries two
/// values, h and c, across every step boundary, so that the only separators
/// are z_0, h_{T-1} and the loss. Step t has three forward nodes
///   z_t = gates(h_{t-1})          (`gateBytes`, z_0 reads only graph inputs)
///   c_t = cell(z_t, c_{t-1})      (`carryBytes`)
///   h_t = hidden(z_t, c_t)        (`carryBytes`)
/// followed, after the last step, by a forward loss reading h_{T-1}
/// (`carryBytes`). The backward pass runs t = T-1..0, three nodes a step:
///   gz_t = (gh_{t+1}, gc_{t+1}, z_t, c_t, c_{t-1})   (`gateBytes`)
///   gc_t = (gz_t, gc_{t+1}, z_t)                    (`carryBytes`)
///   gh_t = (gz_t)                                   (`carryBytes`)
/// where gh_T and gc_T stand for the loss; gh_0 is the step's output.
/// Every forward node costs 1, every backward node 2.
struct TwoCarry {
  Graph graph;
  std::vector<unsigned> z, c, h, gz, gc, gh;
  unsigned loss = 0;
};

inline TwoCarry makeTwoCarry(unsigned steps, int64_t gateBytes = 4,
                             int64_t carryBytes = 1) {
  TwoCarry r;
  auto add = [&](std::string name, int64_t bytes, bool backward,
                 std::vector<unsigned> operands) {
    Node node;
    node.name = std::move(name);
    node.bytes = bytes;
    node.cost = backward ? 2 : 1;
    node.backward = backward;
    node.operands = std::move(operands);
    return r.graph.addNode(node);
  };
  for (unsigned t = 0; t < steps; ++t) {
    std::string s = std::to_string(t);
    r.z.push_back(
        add("z" + s, gateBytes, false,
            t ? std::vector<unsigned>{r.h[t - 1]} : std::vector<unsigned>{}));
    r.c.push_back(add("c" + s, carryBytes, false,
                      t ? std::vector<unsigned>{r.z[t], r.c[t - 1]}
                        : std::vector<unsigned>{r.z[t]}));
    r.h.push_back(add("h" + s, carryBytes, false, {r.z[t], r.c[t]}));
  }
  r.loss = add("loss", carryBytes, false, {r.h[steps - 1]});
  r.gz.resize(steps);
  r.gc.resize(steps);
  r.gh.resize(steps);
  for (unsigned t = steps; t-- > 0;) {
    std::string s = std::to_string(t);
    unsigned gh = t + 1 == steps ? r.loss : r.gh[t + 1];
    unsigned gc = t + 1 == steps ? r.loss : r.gc[t + 1];
    std::vector<unsigned> ops{gh, gc, r.z[t], r.c[t]};
    if (t)
      ops.push_back(r.c[t - 1]);
    r.gz[t] = add("gz" + s, gateBytes, true, ops);
    r.gc[t] = add("gc" + s, carryBytes, true, {r.gz[t], gc, r.z[t]});
    r.gh[t] = add("gh" + s, carryBytes, true, {r.gz[t]});
  }
  r.graph.nodes[r.gh[0]].output = true;
  return r;
}

} // namespace test
} // namespace sched
} // namespace remat

#endif // REMAT_UNITTESTS_SCHEDULING_RECURRENTGRAPHS_H
