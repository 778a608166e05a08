"""Forward functions (returning a scalar loss) of common network families.

Every ``build_<model>`` returns a :class:`~remat_models.builder.Function`;
every ``<model>_param_count`` gives the analytic number of scalar
parameters so tests can cross-check the generated argument list.
"""

import math
from dataclasses import dataclass
from typing import List

from .builder import Function, FunctionBuilder, Value
from .mlir_types import TensorType, tensor

#: Element types the remat dialect accepts for activations / for indices.
MODEL_DTYPES = ("f32", "f16", "bf16")
LABEL_DTYPES = ("i32", "i64")


def _check_dtype(dtype: str, label_dtype: str = "i64") -> None:
    if dtype not in MODEL_DTYPES:
        raise ValueError(f"dtype must be one of {MODEL_DTYPES}, got {dtype!r}")
    if label_dtype not in LABEL_DTYPES:
        raise ValueError(f"label dtype must be one of {LABEL_DTYPES}, got {label_dtype!r}")


def _positive(**kwargs) -> None:
    for key, value in kwargs.items():
        if int(value) < 1:
            raise ValueError(f"{key} must be >= 1, got {value}")


# --- mlp --------------------------------------------------------------------

def build_mlp(depth: int = 4, width: int = 64, batch: int = 32, classes: int = 10,
              in_features: int = 0, dtype: str = "f32", label_dtype: str = "i64",
              name: str = "mlp") -> Function:
    """x[B,In] -> depth x (matmul W_i, add b_i, relu) -> matmul W_out -> CE.

    ``in_features`` defaults to ``width``; layer 0's weight is [In, W].
    """
    in_features = in_features or width
    _positive(depth=depth, width=width, batch=batch, classes=classes, in_features=in_features)
    _check_dtype(dtype, label_dtype)
    fb = FunctionBuilder(name)
    x = fb.arg("x", tensor((batch, in_features), dtype))
    labels = fb.arg("labels", tensor((batch,), label_dtype))
    layers = []
    for i in range(depth):
        fan_in = in_features if i == 0 else width
        layers.append((fb.param(f"w{i}", tensor((fan_in, width), dtype)),
                       fb.param(f"b{i}", tensor((width,), dtype))))
    w_out = fb.param("w_out", tensor((width, classes), dtype))
    h = x
    for w, b in layers:
        h = fb.relu(fb.add(fb.matmul(h, w), b))
    logits = fb.matmul(h, w_out, name="logits")
    return fb.finish(fb.softmax_cross_entropy(logits, labels, name="loss"))


def mlp_param_count(depth: int = 4, width: int = 64, classes: int = 10,
                    in_features: int = 0, **_) -> int:
    in_features = in_features or width
    return in_features * width + (depth - 1) * width * width + depth * width + width * classes


# --- chain ------------------------------------------------------------------

def build_chain(length: int = 8, width: int = 4, batch: int = 2, act: str = "tanh",
                dtype: str = "f32", name: str = "chain") -> Function:
    """A plain MLP chain for scheduler tests: ``length`` x (matmul W_i, act) -> mse.

    ``act`` is ``tanh``, ``relu`` or ``alternate`` (tanh on even layers,
    relu on odd ones).  No biases, so every layer is exactly two ops.
    """
    _positive(length=length, width=width, batch=batch)
    _check_dtype(dtype)
    if act not in ("tanh", "relu", "alternate"):
        raise ValueError(f"act must be tanh, relu or alternate, got {act!r}")
    fb = FunctionBuilder(name)
    x = fb.arg("x", tensor((batch, width), dtype))
    target = fb.arg("target", tensor((batch, width), dtype))
    ws = [fb.param(f"w{i}", tensor((width, width), dtype)) for i in range(length)]
    h = x
    for i, w in enumerate(ws):
        op = act if act != "alternate" else ("tanh" if i % 2 == 0 else "relu")
        h = fb.unary(op, fb.matmul(h, w))
    return fb.finish(fb.mse(h, target, name="loss"))


def chain_param_count(length: int = 8, width: int = 4, **_) -> int:
    return length * width * width


# --- resnet -----------------------------------------------------------------

def resnet_stage_sizes(blocks: int, stages: int) -> List[int]:
    """Splits ``blocks`` residual blocks over ``stages`` stages (earlier get extras)."""
    if not 1 <= stages <= blocks:
        raise ValueError(f"need 1 <= stages <= blocks, got stages={stages}, blocks={blocks}")
    return [blocks // stages + (1 if s < blocks % stages else 0) for s in range(stages)]


def build_resnet(blocks: int = 4, width: int = 16, batch: int = 8, image: int = 32,
                 in_channels: int = 3, classes: int = 10, stages: int = 1,
                 stem_pool: bool = False, dtype: str = "f32", label_dtype: str = "i64",
                 epsilon: float = 1e-5, name: str = "resnet") -> Function:
    """ResNet-like CNN (NCHW).

    stem: conv3x3 -> batch_norm -> relu [-> max_pool2d 2x2/2];
    ``blocks`` basic blocks split over ``stages`` stages; the first block of
    each stage after the first halves the resolution (stride-2 conv) and
    doubles the channels, with a 1x1 stride-2 conv + batch_norm projection
    on the skip path; head: global_avg_pool -> matmul -> add bias -> CE.
    """
    _positive(blocks=blocks, width=width, batch=batch, image=image,
              in_channels=in_channels, classes=classes, stages=stages)
    _check_dtype(dtype, label_dtype)
    sizes = resnet_stage_sizes(blocks, stages)
    fb = FunctionBuilder(name)
    x = fb.arg("x", tensor((batch, in_channels, image, image), dtype))
    labels = fb.arg("labels", tensor((batch,), label_dtype))

    def bn_params(prefix: str, channels: int):
        return (fb.param(f"{prefix}_gamma", tensor((channels,), dtype)),
                fb.param(f"{prefix}_beta", tensor((channels,), dtype)))

    stem_w = fb.param("stem_w", tensor((width, in_channels, 3, 3), dtype))
    stem_bn = bn_params("stem_bn", width)
    plan = []  # (prefix, cin, cout, stride, params)
    cin = width
    for s, count in enumerate(sizes):
        cout = width * 2 ** s
        for j in range(count):
            stride = 2 if (s > 0 and j == 0) else 1
            p = f"s{s}b{j}"
            params = {
                "w1": fb.param(f"{p}_w1", tensor((cout, cin, 3, 3), dtype)),
                "bn1": bn_params(f"{p}_bn1", cout),
                "w2": fb.param(f"{p}_w2", tensor((cout, cout, 3, 3), dtype)),
                "bn2": bn_params(f"{p}_bn2", cout),
            }
            if stride != 1 or cin != cout:
                params["proj"] = fb.param(f"{p}_proj_w", tensor((cout, cin, 1, 1), dtype))
                params["proj_bn"] = bn_params(f"{p}_proj_bn", cout)
            plan.append((stride, params))
            cin = cout
    fc_w = fb.param("fc_w", tensor((cin, classes), dtype))
    fc_b = fb.param("fc_b", tensor((classes,), dtype))

    h = fb.conv2d(x, stem_w, strides=(1, 1), padding=(1, 1))
    h = fb.relu(fb.batch_norm(h, *stem_bn, epsilon=epsilon))
    if stem_pool:
        h = fb.max_pool2d(h, kernel=(2, 2), strides=(2, 2), padding=(0, 0))
    for stride, p in plan:
        y = fb.conv2d(h, p["w1"], strides=(stride, stride), padding=(1, 1))
        y = fb.relu(fb.batch_norm(y, *p["bn1"], epsilon=epsilon))
        y = fb.conv2d(y, p["w2"], strides=(1, 1), padding=(1, 1))
        y = fb.batch_norm(y, *p["bn2"], epsilon=epsilon)
        skip = h
        if "proj" in p:
            skip = fb.conv2d(h, p["proj"], strides=(stride, stride), padding=(0, 0))
            skip = fb.batch_norm(skip, *p["proj_bn"], epsilon=epsilon)
        h = fb.relu(fb.add(y, skip))
    pooled = fb.global_avg_pool(h)
    logits = fb.add(fb.matmul(pooled, fc_w), fc_b, name="logits")
    return fb.finish(fb.softmax_cross_entropy(logits, labels, name="loss"))


def resnet_param_count(blocks: int = 4, width: int = 16, in_channels: int = 3,
                       classes: int = 10, stages: int = 1, **_) -> int:
    total = width * in_channels * 9 + 2 * width
    cin = width
    for s, count in enumerate(resnet_stage_sizes(blocks, stages)):
        cout = width * 2 ** s
        for j in range(count):
            total += cout * cin * 9 + cout * cout * 9 + 4 * cout
            if (s > 0 and j == 0) or cin != cout:
                total += cout * cin + 2 * cout
            cin = cout
    return total + cin * classes + classes


# --- gpt --------------------------------------------------------------------

def build_gpt(layers: int = 2, embed: int = 64, heads: int = 4, seq: int = 16,
              vocab: int = 128, batch: int = 4, mlp_ratio: int = 4,
              dropout: float = 0.1, tie_embeddings: bool = False, dtype: str = "f32",
              label_dtype: str = "i64", epsilon: float = 1e-5, name: str = "gpt") -> Function:
    """GPT-like decoder (pre-norm), targets [B,T] -> mean token CE.

    Inputs: ``tokens`` [B,T], ``targets`` [B,T], ``mask`` [T,T] (additive
    causal mask: 0 on/below the diagonal, a large negative value above),
    and, when ``dropout > 0``, ``seed`` (tensor<i64>).  A single seed feeds
    every dropout op.  The attention scale 1/sqrt(D) is a splat constant.
    """
    _positive(layers=layers, embed=embed, heads=heads, seq=seq, vocab=vocab,
              batch=batch, mlp_ratio=mlp_ratio)
    _check_dtype(dtype, label_dtype)
    if embed % heads:
        raise ValueError(f"embed ({embed}) must be divisible by heads ({heads})")
    B, T, C, H = batch, seq, embed, heads
    D, F = C // H, C * mlp_ratio
    fb = FunctionBuilder(name)
    tokens = fb.arg("tokens", tensor((B, T), label_dtype))
    targets = fb.arg("targets", tensor((B, T), label_dtype))
    mask = fb.arg("mask", tensor((T, T), dtype))
    seed = fb.arg("seed", tensor((), "i64")) if dropout > 0 else None
    wte = fb.param("wte", tensor((vocab, C), dtype))
    wpe = fb.param("wpe", tensor((T, C), dtype))

    def vec(pname: str, n: int) -> Value:
        return fb.param(pname, tensor((n,), dtype))

    def mat(pname: str, m: int, n: int) -> Value:
        return fb.param(pname, tensor((m, n), dtype))

    blocks = []
    for l in range(layers):
        p = f"h{l}"
        blocks.append(dict(
            ln1=(vec(f"{p}_ln1_gamma", C), vec(f"{p}_ln1_beta", C)),
            q=(mat(f"{p}_wq", C, C), vec(f"{p}_bq", C)),
            k=(mat(f"{p}_wk", C, C), vec(f"{p}_bk", C)),
            v=(mat(f"{p}_wv", C, C), vec(f"{p}_bv", C)),
            o=(mat(f"{p}_wo", C, C), vec(f"{p}_bo", C)),
            ln2=(vec(f"{p}_ln2_gamma", C), vec(f"{p}_ln2_beta", C)),
            fc=(mat(f"{p}_w_fc", C, F), vec(f"{p}_b_fc", F)),
            proj=(mat(f"{p}_w_proj", F, C), vec(f"{p}_b_proj", C)),
        ))
    lnf = (vec("lnf_gamma", C), vec("lnf_beta", C))
    head = None if tie_embeddings else mat("lm_head", C, vocab)

    def drop(x: Value) -> Value:
        return fb.dropout(x, seed, rate=dropout) if seed is not None else x

    def linear(x: Value, wb) -> Value:
        return fb.add(fb.matmul(x, wb[0]), wb[1])

    def to_heads(x: Value) -> Value:  # [B,T,C] -> [B,H,T,D]
        return fb.transpose(fb.reshape(x, (B, T, H, D)), (0, 2, 1, 3))

    scale = fb.constant(1.0 / math.sqrt(D), tensor((), dtype), name="scale")
    x = drop(fb.add(fb.embedding(wte, tokens), wpe))
    for blk in blocks:
        h = fb.layer_norm(x, *blk["ln1"], epsilon=epsilon)
        q, k, v = (to_heads(linear(h, blk[n])) for n in ("q", "k", "v"))
        scores = fb.mul(fb.matmul(q, k, transpose_b=True), scale)
        probs = fb.softmax(fb.add(scores, mask), axis=-1)
        att = fb.matmul(probs, v)  # [B,H,T,D]
        att = fb.reshape(fb.transpose(att, (0, 2, 1, 3)), (B, T, C))
        x = fb.add(x, drop(linear(att, blk["o"])))
        h = fb.layer_norm(x, *blk["ln2"], epsilon=epsilon)
        h = linear(fb.gelu(linear(h, blk["fc"])), blk["proj"])
        x = fb.add(x, drop(h))
    x = fb.layer_norm(x, *lnf, epsilon=epsilon)
    logits = (fb.matmul(x, wte, transpose_b=True, name="logits") if tie_embeddings
              else fb.matmul(x, head, name="logits"))
    return fb.finish(fb.softmax_cross_entropy(logits, targets, name="loss"))


def gpt_param_count(layers: int = 2, embed: int = 64, seq: int = 16, vocab: int = 128,
                    mlp_ratio: int = 4, tie_embeddings: bool = False, **_) -> int:
    C, F = embed, embed * mlp_ratio
    per_layer = 4 * C + 4 * (C * C + C) + (C * F + F) + (F * C + C)
    return vocab * C + seq * C + layers * per_layer + 2 * C + (0 if tie_embeddings else C * vocab)


def causal_mask(seq: int, neg: float = -1e9):
    """The additive causal mask expected by :func:`build_gpt` (numpy array)."""
    import numpy as np
    return np.triu(np.full((seq, seq), neg, dtype=np.float32), k=1)


# --- lstm -------------------------------------------------------------------

def build_lstm(steps: int = 8, batch: int = 4, input_size: int = 16, hidden: int = 32,
               outputs: int = 8, loss: str = "mse", dtype: str = "f32",
               label_dtype: str = "i64", name: str = "lstm") -> Function:
    """Unrolled single-layer LSTM.

    Inputs: ``x`` [T,B,I] (step t is ``slice`` [t,0,0]+[1,B,I] then
    ``reshape`` to [B,I]), initial state ``h0``/``c0`` [B,H], and either
    ``target`` [B,O] (``loss='mse'``) or ``labels`` [B] (``loss='ce'``,
    O classes).  Gate order in W_ih/W_hh/b columns: i, f, g, o.
    """
    _positive(steps=steps, batch=batch, input_size=input_size, hidden=hidden, outputs=outputs)
    _check_dtype(dtype, label_dtype)
    if loss not in ("mse", "ce"):
        raise ValueError(f"loss must be 'mse' or 'ce', got {loss!r}")
    T, B, I, Hd, O = steps, batch, input_size, hidden, outputs
    fb = FunctionBuilder(name)
    x = fb.arg("x", tensor((T, B, I), dtype))
    h = fb.arg("h0", tensor((B, Hd), dtype))
    c = fb.arg("c0", tensor((B, Hd), dtype))
    target = (fb.arg("target", tensor((B, O), dtype)) if loss == "mse"
              else fb.arg("labels", tensor((B,), label_dtype)))
    w_ih = fb.param("w_ih", tensor((I, 4 * Hd), dtype))
    w_hh = fb.param("w_hh", tensor((Hd, 4 * Hd), dtype))
    b = fb.param("b", tensor((4 * Hd,), dtype))
    w_out = fb.param("w_out", tensor((Hd, O), dtype))
    b_out = fb.param("b_out", tensor((O,), dtype))
    for t in range(T):
        x_t = fb.reshape(fb.slice(x, (t, 0, 0), (1, B, I), (1, 1, 1)), (B, I))
        gates = fb.add(fb.add(fb.matmul(x_t, w_ih), fb.matmul(h, w_hh)), b)
        i_g, f_g, g_g, o_g = (fb.slice(gates, (0, k * Hd), (B, Hd), (1, 1)) for k in range(4))
        i_g, f_g, o_g = fb.sigmoid(i_g), fb.sigmoid(f_g), fb.sigmoid(o_g)
        g_g = fb.tanh(g_g)
        c = fb.add(fb.mul(f_g, c), fb.mul(i_g, g_g))
        h = fb.mul(o_g, fb.tanh(c))
    out = fb.add(fb.matmul(h, w_out), b_out, name="out")
    result = fb.mse(out, target, name="loss") if loss == "mse" else \
        fb.softmax_cross_entropy(out, target, name="loss")
    return fb.finish(result)


def lstm_param_count(input_size: int = 16, hidden: int = 32, outputs: int = 8, **_) -> int:
    return input_size * 4 * hidden + hidden * 4 * hidden + 4 * hidden + hidden * outputs + outputs


#: name -> (builder, analytic parameter count)
MODELS = {
    "mlp": (build_mlp, mlp_param_count),
    "chain": (build_chain, chain_param_count),
    "resnet": (build_resnet, resnet_param_count),
    "gpt": (build_gpt, gpt_param_count),
    "lstm": (build_lstm, lstm_param_count),
}
