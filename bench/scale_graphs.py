#!/usr/bin/env python3
"""Writes a generated training step of about N nodes as Checkmate JSON.

Usage: scale_graphs.py FAMILY N OUT.json

Families (bench/scale.sh):
  chain        N/2 forward nodes in a chain with a skip every 8 nodes; N/2
               backward nodes, each reading the previous backward node and its
               forward mirror.
  resnet       forward blocks conv, bn, relu, conv, bn, add(block input),
               relu (7 nodes; the add is a skip over the block).
  transformer  forward blocks ln, q, k, v, scores(q, k), softmax,
               attend(softmax, v), proj, add(block input), ln, fc1, gelu,
               fc2, add (14 nodes: a three-way branch and two skips).
For resnet and transformer the backward pass is the reverse-mode mirror of
the forward DAG: one gradient node per forward node (reverse order) reading
the gradients of its consumers, its forward operands and its own value.
Node sizes 256..4096 bytes and costs 1..100, seeded by N: the same graph on
every run.
"""
import json
import random
import sys

BLOCKS = {
    # name: list of (node name, operand offsets within the block; -1 is the
    # block input)
    "resnet": [("conv1", [-1]), ("bn1", [0]), ("relu1", [1]), ("conv2", [2]),
               ("bn2", [3]), ("add", [4, -1]), ("relu2", [5])],
    "transformer": [("ln1", [-1]), ("q", [0]), ("k", [0]), ("v", [0]),
                    ("scores", [1, 2]), ("softmax", [4]), ("attend", [5, 3]),
                    ("proj", [6]), ("add1", [7, -1]), ("ln2", [8]),
                    ("fc1", [9]), ("gelu", [10]), ("fc2", [11]),
                    ("add2", [12, 8])],
}


def chain(n, rng):
    half = n // 2
    nodes, links = [], []
    for i in range(n):
        backward = i >= half
        nodes.append({"id": i, "name": f"n{i}", "backward": backward,
                      "cost_cpu": rng.randint(1, 100),
                      "cost_ram": 256 * rng.randint(1, 16)})
        if i == 0:
            continue
        links.append({"source": i - 1, "target": i})
        if not backward and i >= 8 and i % 8 == 0:
            links.append({"source": i - 8, "target": i})
        if backward and i > half:
            links.append({"source": n - 1 - i, "target": i})
    return nodes, links


def blocks(family, n, rng):
    block = BLOCKS[family]
    forward = n // 2
    names, operands = [], []
    block_input = None
    while len(names) < forward:
        start = len(names)
        for name, ops in block:
            if len(names) == forward:
                break
            resolved = []
            for o in ops:
                src = block_input if o < 0 else start + o
                if src is not None and src < len(names):
                    resolved.append(src)
            names.append(f"{name}_{start // len(block)}")
            operands.append(resolved)
        block_input = len(names) - 1
    consumers = [[] for _ in range(forward)]
    for v, ops in enumerate(operands):
        for u in ops:
            consumers[u].append(v)
    nodes, links = [], []

    def add(name, backward, ops):
        i = len(nodes)
        nodes.append({"id": i, "name": name, "backward": backward,
                      "cost_cpu": rng.randint(1, 100),
                      "cost_ram": 256 * rng.randint(1, 16)})
        for u in sorted(set(ops)):
            links.append({"source": u, "target": i})
        return i

    for v in range(forward):
        add(names[v], False, operands[v])
    grad = {}
    for v in reversed(range(forward)):
        ops = [grad[w] for w in consumers[v]] + operands[v] + [v]
        grad[v] = add("d_" + names[v], True, ops)
    return nodes, links


def main():
    family, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(n)
    nodes, links = chain(n, rng) if family == "chain" else blocks(family, n,
                                                                   rng)
    with open(out, "w") as f:
        json.dump({"directed": True, "multigraph": False,
                   "graph": {"name": f"{family}{n}_1_(1)_train"},
                   "nodes": nodes, "links": links}, f)


if __name__ == "__main__":
    main()
