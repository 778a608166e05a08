"""Checks that the MLIR printed for a graph file is exactly that graph.

Usage: check_import.py GRAPH.json OUTPUT.mlir [--all-forward]

Reads the JSON independently of remat-import and checks, op by op, that the
function has one remat.opaque per node, in the file's topological order, with
the node's name, cost, bytes and phase, that its operands are exactly the
node's predecessors (or the function argument for a node without any), and
that the function returns exactly the nodes without successors.
"""
import json
import re
import struct
import sys

OPAQUE = re.compile(
    r'^\s*(%[\w$.-]+) = remat\.opaque "([^"]*)"\(([^)]*)\) \{([^}]*)\} : '
    r'\(([^)]*)\) -> tensor<(\d+)xi8>$')
RETURN = re.compile(r'^\s*(?:func\.)?return (.*) : .*$')
FUNC = re.compile(r'^\s*func\.func @[\w$.]+\((%[\w$.-]+): tensor<(\d+)xi8>\)')


def load(path):
    with open(path) as f:
        data = json.load(f)
    nodes, preds, order = {}, {}, []
    if 'cost_ram' in data['nodes'][0]:
        for n in data['nodes']:
            nodes[n['id']] = (str(n['name']), float(n['cost_cpu']),
                              int(n['cost_ram']), bool(n['backward']))
        order = sorted(nodes)
        links = [(l['source'], l['target']) for l in data['links']]
    else:
        for n in data['nodes']:
            nodes[n['name']] = (str(n['name']), float(n['duration']),
                                int(n['out_cost']), False)
        order = data['graph']['order']
        if isinstance(order, str):
            order = json.loads(order)
        links = [(l['0'], l['1']) for l in data['links']]
    for key in nodes:
        preds[key] = set()
    for s, t in links:
        preds[t].add(s)
    sinks = set(nodes) - {s for s, _ in links}
    return nodes, preds, order, sinks


def parse_f64(text):
    """An f64 as MLIR prints it: decimal, or hexadecimal bits when the short
    decimal form would not round-trip."""
    if text.startswith('0x'):
        return struct.unpack('>d', bytes.fromhex(text[2:]))[0]
    return float(text)


def main():
    graph, output = sys.argv[1], sys.argv[2]
    all_forward = '--all-forward' in sys.argv[3:]
    nodes, preds, order, sinks = load(graph)
    value_of = {}  # SSA value -> node key
    ops = []
    arg = None
    returned = None
    with open(output) as f:
        for line in f:
            m = FUNC.match(line)
            if m:
                arg = m.group(1)
                continue
            m = OPAQUE.match(line)
            if m:
                ops.append(m.groups())
                continue
            m = RETURN.match(line)
            if m:
                returned = [v.strip() for v in m.group(1).split(',')]
    errors = []
    if len(ops) != len(order):
        errors.append('%d ops for %d nodes' % (len(ops), len(order)))
    for key, (ssa, name, operands, attrs, _, nbytes) in zip(order, ops):
        want_name, cost, want_bytes, backward = nodes[key]
        backward = backward and not all_forward
        if name != want_name:
            errors.append('op %s is "%s", expected node "%s"' % (ssa, name, want_name))
        if int(nbytes) != want_bytes:
            errors.append('%s: %s bytes, expected %d' % (name, nbytes, want_bytes))
        m = re.search(r'cost = ([-+.\w]+) : f64', attrs)
        if not m or parse_f64(m.group(1)) != cost:
            errors.append('%s: cost %s, expected %s' % (name, attrs, cost))
        if ('#remat.phase<backward>' in attrs) != backward:
            errors.append('%s: backward phase is wrong' % name)
        got = [o.strip() for o in operands.split(',') if o.strip()]
        if preds[key]:
            got_keys = [value_of.get(o) for o in got]
            if None in got_keys or set(got_keys) != preds[key] or \
                    len(got_keys) != len(preds[key]):
                errors.append('%s: operands %s, expected predecessors %s' %
                              (name, got, sorted(nodes[p][0] for p in preds[key])))
        elif got != [arg]:
            errors.append('%s: operands %s, expected the argument %s' % (name, got, arg))
        value_of[ssa] = key
    if returned is None or sorted(value_of.get(v, v) for v in returned) != \
            sorted(sinks):
        errors.append('returns %s, expected the sinks %s' % (returned, sorted(sinks)))
    if errors:
        print('\n'.join(errors[:20]))
        sys.exit(1)
    print('ok: %d nodes, %d edges, %d sinks' % (
        len(order), sum(len(p) for p in preds.values()), len(sinks)))


if __name__ == '__main__':
    main()
