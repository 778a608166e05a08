"""Exports the joint forward/backward training graph of a PyTorch model.

The graph is traced by functorch's AOTAutograd (torch 1.13): a custom
partition function receives the joint graph, runs PyTorch's own min-cut
partitioner (`min_cut_rematerialization_partition`) and the default
partitioner on it, and records which values each of them saves for the
backward pass. The joint graph is written, in the op order PyTorch emits, in
the Checkmate node-link JSON format that `remat-import` reads (docs/Import.md),
with extra fields remat-import ignores or uses:

- node `backward`: AOTAutograd's label, i.e. the node is not needed for the
  forward outputs (so batch-norm statistics and max-pool indices, computed
  from forward values and read only by the backward, are labelled backward,
  as are transposes of weights traced inside the backward);
- node `gradient_seed: true` on the tangent input (the loss gradient), the
  one node with which phases can be derived from the dependences;
- node `aot_class`: `forward`, `backward` (depends on the tangent) or
  `unclaimed` (neither), as the min-cut partitioner classifies nodes;
- top-level `pytorch_saved`: for each partitioner, the node ids of the
  activations it saves for the backward (parameters and inputs omitted).

Cost model (documented in docs/Import.md): FLOPs from shapes. Convolution
2 * out * (Cin / groups) * kh * kw; mm/addmm/bmm 2 * M * N * K (per batch);
convolution_backward twice its forward convolution; any other op one FLOP per
element of its largest input or output. Bytes are numel * dtype size of the
value. Ops that only alias their input (views, transposes, expand, detach)
allocate nothing: they are contracted, their users read the aliased value
(which stays live as long as any alias is used). A multi-result op (batch
norm, max-pool with indices, layer norm, nll loss) becomes one node per
result that is used; the first used result carries the op's cost, the others
one FLOP per element of the op's largest input.
"""

import argparse
import json
import math
import operator
import sys

import torch
import torch.fx as fx
from functorch.compile import (aot_module, default_partition,
                               min_cut_rematerialization_partition)

aten = torch.ops.aten

# Ops whose result aliases an operand (no new memory).
ALIAS_OPS = {
    aten.view, aten._unsafe_view, aten.t, aten.transpose, aten.permute,
    aten.expand, aten.squeeze, aten.unsqueeze, aten.slice, aten.select,
    aten.as_strided, aten.alias, aten.detach, aten.reshape,
}

DTYPE_BYTES = {
    torch.float32: 4, torch.float16: 2, torch.bfloat16: 2, torch.float64: 8,
    torch.int64: 8, torch.int32: 4, torch.int16: 2, torch.int8: 1,
    torch.uint8: 1, torch.bool: 1,
}


def packet(node):
    target = node.target
    return getattr(target, "overloadpacket", target)


def meta_list(node):
    """The tensor metadata of a node's results (a list; [] if none)."""
    meta = node.meta.get("tensor_meta")
    if meta is None:
        return []
    if hasattr(meta, "shape"):
        return [meta]
    return [m for m in meta if hasattr(m, "shape")]


def numel(meta):
    return math.prod(meta.shape)


def nbytes(meta):
    return numel(meta) * DTYPE_BYTES.get(meta.dtype, 4)


def arg_metas(node):
    metas = []
    for a in node.args:
        if isinstance(a, fx.Node):
            metas.extend(meta_list(a))
    return metas


def conv_flops(out_meta, weight_meta, groups):
    cin_per_group = weight_meta.shape[1]
    kernel = math.prod(weight_meta.shape[2:])
    return 2 * numel(out_meta) * cin_per_group * kernel


def op_flops(node, out_metas):
    """FLOPs of one execution of `node` (all of its results)."""
    p = packet(node)
    ins = arg_metas(node)
    elem = max([numel(m) for m in ins + out_metas] or [0])
    if p == aten.convolution:
        return conv_flops(out_metas[0], meta_list(node.args[1])[0],
                          node.args[8])
    if p == aten.convolution_backward:
        # grad_output, input, weight, ...: the forward conv's output is
        # grad_output's shape.
        grad_out = meta_list(node.args[0])[0]
        weight = meta_list(node.args[2])[0]
        return 2 * conv_flops(grad_out, weight, node.args[9])
    if p in (aten.mm, aten.bmm, aten.addmm):
        a = meta_list(node.args[1] if p == aten.addmm else node.args[0])[0]
        out = out_metas[0]
        return 2 * numel(out) * a.shape[-1]
    return elem


class JointRecorder:
    """A partition_fn recording the joint graph and both partitioners'
    saved values."""

    def __init__(self):
        self.joint = None
        self.saved = {}

    def __call__(self, joint_module, joint_inputs, num_fwd_outputs=None):
        # min-cut eliminates dead code and CSEs the joint graph in place; the
        # default partition and the export then see the same graph.
        fw_i, _ = min_cut_rematerialization_partition(
            joint_module, joint_inputs, compiler="inductor")
        self.saved["mincut_inductor"] = self._saved_names(fw_i)
        fw, bw = min_cut_rematerialization_partition(joint_module,
                                                     joint_inputs)
        self.saved["mincut"] = self._saved_names(fw)
        fw_d, _ = default_partition(joint_module, joint_inputs)
        self.saved["default"] = self._saved_names(fw_d)
        self.joint = joint_module
        return fw, bw

    @staticmethod
    def _saved_names(fw_module):
        out = [n for n in fw_module.graph.nodes if n.op == "output"][0]
        values = out.args[0]
        return [v.name for v in values if isinstance(v, fx.Node)]


def classify(joint):
    """AOTAutograd's node classes, as min_cut_rematerialization_partition
    computes them."""
    nodes = list(joint.graph.nodes)
    required_bw = set()
    for n in nodes:
        if n.op == "placeholder" and "tangents" in n.target:
            required_bw.add(n)
        if n in required_bw:
            required_bw.update(n.users)
    num_fwd = joint._out_spec.children_specs[0].num_leaves
    output = [n for n in nodes if n.op == "output"][0]
    flat = fx.node.map_arg(output.args, lambda x: x)
    outs = torch.utils._pytree.tree_flatten(flat)[0]
    fwd_outputs = [o for o in outs[:num_fwd] if isinstance(o, fx.Node)]
    required_fw = set()
    stack = list(fwd_outputs)
    while stack:
        n = stack.pop()
        if n in required_fw or n.op == "placeholder":
            continue
        required_fw.add(n)
        stack.extend(a for a in n.all_input_nodes)
    grad_outputs = [o for o in outs[num_fwd:] if isinstance(o, fx.Node)]
    return required_fw, required_bw, fwd_outputs, grad_outputs


def export(joint, saved, name):
    """The Checkmate JSON (a dict) of the recorded joint graph."""
    required_fw, required_bw, fwd_outputs, grad_outputs = classify(joint)
    # value[n]: what reading fx node n reads after contraction: a node id,
    # None (a graph input or parameter), or for a multi-result op the dict
    # {result index: node id} filled in by its getitems.
    value = {}
    nodes, links = [], []
    tuple_cost_used = set()
    pending_seeds = []

    def add(fx_node, bytes_, cost, operands, extra=None):
        nid = len(nodes)
        cls = ("backward" if fx_node in required_bw else
               "forward" if fx_node in required_fw else "unclaimed")
        entry = {
            "id": nid, "name": fx_node.name, "cost_cpu": float(cost),
            "cost_ram": int(bytes_), "backward": fx_node not in required_fw,
            "aot_class": cls, "op": str(packet(fx_node)),
        }
        if extra:
            entry.update(extra)
        nodes.append(entry)
        for src in sorted(set(o for o in operands if o is not None)):
            links.append({"source": src, "target": nid})
        return nid

    def operand_ids(fx_node):
        ids = []
        for a in fx_node.all_input_nodes:
            v = value.get(a)
            if isinstance(v, dict):
                raise ValueError(f"{fx_node.name} reads the tuple {a.name}")
            ids.append(v)
        return ids

    for n in joint.graph.nodes:
        if n.op == "placeholder":
            # A tangent (the loss gradient) becomes a node right before its
            # first reader: an input of the backward, not an op.
            value[n] = None
            if "tangents" in n.target:
                pending_seeds.append(n)
            continue
        if n.op != "call_function":
            continue
        for seed in list(pending_seeds):
            if seed in n.all_input_nodes:
                pending_seeds.remove(seed)
                value[seed] = add(seed, sum(nbytes(m) for m in meta_list(seed)),
                                  0, [], {"gradient_seed": True})
        metas = meta_list(n)
        if n.target == operator.getitem:
            src, index = n.args
            owner = value[src]
            if not isinstance(owner, dict):
                raise ValueError(f"getitem of a non-tuple {src.name}")
            item_meta = meta_list(n)[0]
            if src in tuple_cost_used:
                ins = arg_metas(src)
                cost = max([numel(m) for m in ins] or [0])
                if packet(src) == aten.convolution_backward and index == 1:
                    cost = op_flops(src, [item_meta]) / 2
            else:
                tuple_cost_used.add(src)
                cost = owner["cost"]
            value[n] = add(n, nbytes(item_meta), cost, owner["operands"])
            continue
        if not n.users and n not in fwd_outputs and n not in grad_outputs:
            continue
        if packet(n) in ALIAS_OPS:
            (src,) = [a for a in n.all_input_nodes][:1]
            value[n] = value[src]
            continue
        raw = n.meta.get("tensor_meta")
        if raw is None or not hasattr(raw, "shape"):
            # A multi-result op: its getitems become the nodes.
            out_metas = [m for m in (raw or []) if hasattr(m, "shape")]
            users = [u for u in n.users if u.target == operator.getitem]
            out_metas = out_metas or [meta_list(u)[0] for u in users]
            value[n] = {"cost": op_flops(n, out_metas),
                        "operands": operand_ids(n)}
            continue
        value[n] = add(n, nbytes(metas[0]), op_flops(n, metas),
                       operand_ids(n))

    # Drop nodes nothing reads that are not outputs (unused tuple results).
    keep_ids = set()
    outputs = set()
    for o in fwd_outputs + grad_outputs:
        v = value.get(o)
        if isinstance(v, int):
            outputs.add(v)
    used = {l["source"] for l in links}
    for nd in nodes:
        if nd["id"] in used or nd["id"] in outputs:
            keep_ids.add(nd["id"])
    renumber = {}
    for nd in nodes:
        if nd["id"] in keep_ids:
            renumber[nd["id"]] = len(renumber)
    nodes = [dict(nd, id=renumber[nd["id"]]) for nd in nodes
             if nd["id"] in keep_ids]
    links = [{"source": renumber[l["source"]], "target": renumber[l["target"]]}
             for l in links if l["target"] in keep_ids]

    by_name = {n.name: n for n in joint.graph.nodes}
    saved_ids = {}
    for part, names in saved.items():
        ids = set()
        for nm in names:
            v = value.get(by_name[nm])
            if isinstance(v, int) and v in renumber:
                ids.add(renumber[v])
        saved_ids[part] = sorted(ids)
    return {
        "directed": True, "multigraph": False,
        "graph": {"name": name, "exporter": "python/remat_export/export_joint.py",
                  "order": "pytorch (AOTAutograd joint graph)"},
        "nodes": nodes, "links": links, "pytorch_saved": saved_ids,
    }


class WithLoss(torch.nn.Module):
    """A model with its loss: the joint graph's only forward output."""

    def __init__(self, model, kind):
        super().__init__()
        self.model = model
        self.kind = kind

    def forward(self, x, y):
        out = self.model(x)
        if self.kind == "lm":
            return torch.nn.functional.cross_entropy(
                out.reshape(-1, out.shape[-1]), y.reshape(-1))
        if self.kind == "sum":
            return out.sum()
        return torch.nn.functional.cross_entropy(out, y)


def decompositions():
    """What functorch's memory_efficient_fusion decomposes, plus batch and
    layer norm (forward and backward), so that the partitioners see their
    element-wise parts (which min-cut may recompute) instead of one opaque
    op."""
    from functorch.compile import default_decompositions
    from torch._decomp import get_decompositions
    table = dict(default_decompositions)
    table.update(get_decompositions([
        aten.native_batch_norm, aten.native_batch_norm_backward,
        aten.native_layer_norm, aten.native_layer_norm_backward]))
    return table


def trace(model, x, y, kind, decompose=True):
    recorder = JointRecorder()
    compiled = aot_module(WithLoss(model, kind), fw_compiler=_boxed,
                          bw_compiler=_boxed, partition_fn=recorder,
                          decompositions=decompositions() if decompose else {})
    loss = compiled(x, y)
    loss.backward()
    return recorder


def _boxed(gm, inputs):
    from functorch.compile import make_boxed_func
    return make_boxed_func(gm.forward)


class Block(torch.nn.Module):
    """A pre-norm GPT decoder block with causal self-attention."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.reshape(b, t, h, d // h).transpose(1, 2)
        k = k.reshape(b, t, h, d // h).transpose(1, 2)
        v = v.reshape(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class GPT(torch.nn.Module):
    def __init__(self, layers, d, heads, vocab, seq):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Parameter(torch.zeros(1, seq, d))
        self.blocks = torch.nn.Sequential(
            *[Block(d, heads) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab)

    def forward(self, idx):
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos)))


class Encoder(torch.nn.Module):
    def __init__(self, layers, d, heads, classes, vocab):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        layer = torch.nn.TransformerEncoderLayer(
            d, heads, dim_feedforward=4 * d, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers)
        self.head = torch.nn.Linear(d, classes)

    def forward(self, idx):
        return self.head(self.enc(self.tok(idx)).mean(dim=1))


def build(model_name, batch, image, seq):
    """(model, x, y, loss kind, graph name) for a model name."""
    import torchvision
    torch.manual_seed(0)
    if model_name in ("resnet18", "resnet50", "mobilenet_v2"):
        ctor = getattr(torchvision.models, model_name)
        model = ctor(num_classes=10)
        x = torch.randn(batch, 3, image, image)
        y = torch.randint(0, 10, (batch,))
        return model, x, y, "ce", f"{model_name}_{batch}_(3, {image}, {image})_train"
    if model_name.startswith("gpt"):
        layers = int(model_name[3:] or 12)
        model = GPT(layers, 256, 4, 512, seq)
        x = torch.randint(0, 512, (batch, seq))
        y = torch.randint(0, 512, (batch, seq))
        return model, x, y, "lm", f"{model_name}_{batch}_({seq})_train"
    if model_name.startswith("encoder"):
        layers = int(model_name[7:] or 12)
        model = Encoder(layers, 256, 4, 10, 512)
        x = torch.randint(0, 512, (batch, seq))
        y = torch.randint(0, 10, (batch,))
        return model, x, y, "ce", f"{model_name}_{batch}_({seq})_train"
    if model_name == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                    torch.nn.Linear(32, 32), torch.nn.Tanh(),
                                    torch.nn.Linear(32, 4))
        x = torch.randn(batch, 16)
        y = torch.randint(0, 4, (batch,))
        return model, x, y, "ce", f"mlp_{batch}_(16)_train"
    raise ValueError(f"unknown model {model_name}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="resnet18, resnet50, mobilenet_v2, "
                        "gptN (N layers, default 12), encoderN, mlp")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--image", type=int, default=224)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--no-decompose", action="store_true",
                        help="keep batch/layer norm as single ops")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    model, x, y, kind, name = build(args.model, args.batch, args.image,
                                    args.seq)
    model.train()
    recorder = trace(model, x, y, kind, decompose=not args.no_decompose)
    graph = export(recorder.joint, recorder.saved, name)
    with open(args.output, "w") as f:
        json.dump(graph, f, separators=(",", ":"))
        f.write("\n")
    nb = sum(n["backward"] for n in graph["nodes"])
    print(f"{args.output}: {len(graph['nodes'])} nodes ({nb} labelled "
          f"backward), {len(graph['links'])} links, min-cut saves "
          f"{len(graph['pytorch_saved']['mincut'])} (inductor list "
          f"{len(graph['pytorch_saved']['mincut_inductor'])}), default saves "
          f"{len(graph['pytorch_saved']['default'])}", file=sys.stderr)


if __name__ == "__main__":
    main()
