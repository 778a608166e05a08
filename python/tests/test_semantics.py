"""The generated text computes the intended network: evaluate it with a
small torch interpreter and compare with independent torch implementations
(torch.nn.LSTM, torch.nn.MultiheadAttention, F.batch_norm, ...)."""

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from remat_models import build_gpt, build_lstm, build_mlp, build_resnet  # noqa: E402
from remat_models.models import causal_mask  # noqa: E402
from remat_models.textcheck import check_text  # noqa: E402
from torch_interp import evaluate, random_inputs  # noqa: E402


def run(func, **int_high):
    fn = check_text(func.text())
    inputs = random_inputs(fn, int_high=int_high)
    inputs = {k: (v.double() if v.is_floating_point() else v) for k, v in inputs.items()}
    return evaluate(fn, inputs), inputs


def test_mlp_matches_reference():
    loss, p = run(build_mlp(depth=3, width=8, batch=5, classes=4), labels=4)
    h = p["x"]
    for i in range(3):
        h = F.relu(F.linear(h, p[f"w{i}"].t(), p[f"b{i}"]))
    ref = F.cross_entropy(h @ p["w_out"], p["labels"])
    assert torch.allclose(loss, ref)


@pytest.mark.parametrize("stages,stem_pool", [(1, False), (2, True)])
def test_resnet_matches_reference(stages, stem_pool):
    loss, p = run(build_resnet(blocks=3, width=4, batch=3, image=8, stages=stages,
                               stem_pool=stem_pool, classes=5), labels=5)

    def bn(x, prefix):
        return F.batch_norm(x, None, None, p[prefix + "_gamma"], p[prefix + "_beta"],
                            training=True, eps=1e-5)

    h = F.relu(bn(F.conv2d(p["x"], p["stem_w"], padding=1), "stem_bn"))
    if stem_pool:
        h = F.max_pool2d(h, 2)
    names = sorted({k.split("_")[0] for k in p if k.startswith("s") and "b" in k.split("_")[0]},
                   key=lambda s: (int(s[1:s.index("b")]), int(s[s.index("b") + 1:])))
    assert len(names) == 3
    for blk in names:
        stride = 2 if f"{blk}_proj_w" in p else 1
        y = F.relu(bn(F.conv2d(h, p[f"{blk}_w1"], stride=stride, padding=1), f"{blk}_bn1"))
        y = bn(F.conv2d(y, p[f"{blk}_w2"], padding=1), f"{blk}_bn2")
        skip = h
        if stride == 2:
            skip = bn(F.conv2d(h, p[f"{blk}_proj_w"], stride=2), f"{blk}_proj_bn")
        h = F.relu(y + skip)
    logits = F.adaptive_avg_pool2d(h, 1).flatten(1) @ p["fc_w"] + p["fc_b"]
    assert torch.allclose(loss, F.cross_entropy(logits, p["labels"]))


@pytest.mark.parametrize("tie", [False, True])
def test_gpt_matches_torch_multihead_attention(tie):
    B, T, C, H, V, L = 2, 6, 12, 3, 11, 2
    func = build_gpt(layers=L, embed=C, heads=H, seq=T, vocab=V, batch=B, dropout=0.0,
                     tie_embeddings=tie)
    fn = check_text(func.text())
    p = {k: (v.double() if v.is_floating_point() else v)
         for k, v in random_inputs(fn, seed=3, int_high={"tokens": V, "targets": V}).items()}
    p["mask"] = torch.from_numpy(causal_mask(T)).double()
    loss = evaluate(fn, p)

    x = F.embedding(p["tokens"], p["wte"]) + p["wpe"]
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    for l in range(L):
        q = f"h{l}_"
        mha = torch.nn.MultiheadAttention(C, H, batch_first=True, dtype=torch.float64)
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([p[q + "wq"].t(), p[q + "wk"].t(), p[q + "wv"].t()]))
            mha.in_proj_bias.copy_(torch.cat([p[q + "bq"], p[q + "bk"], p[q + "bv"]]))
            mha.out_proj.weight.copy_(p[q + "wo"].t())
            mha.out_proj.bias.copy_(p[q + "bo"])
        h = F.layer_norm(x, (C,), p[q + "ln1_gamma"], p[q + "ln1_beta"])
        x = x + mha(h, h, h, attn_mask=causal, need_weights=False)[0]
        h = F.layer_norm(x, (C,), p[q + "ln2_gamma"], p[q + "ln2_beta"])
        h = F.gelu(h @ p[q + "w_fc"] + p[q + "b_fc"], approximate="tanh") @ p[q + "w_proj"] + p[q + "b_proj"]
        x = x + h
    x = F.layer_norm(x, (C,), p["lnf_gamma"], p["lnf_beta"])
    logits = x @ (p["wte"].t() if tie else p["lm_head"])
    ref = F.cross_entropy(logits.reshape(-1, V), p["targets"].reshape(-1))
    assert torch.allclose(loss, ref)
    # The mask input is really used: without it the loss changes.
    p2 = dict(p, mask=torch.zeros(T, T, dtype=torch.float64))
    assert not torch.allclose(evaluate(fn, p2), loss)


@pytest.mark.parametrize("loss_kind", ["mse", "ce"])
def test_lstm_matches_torch_lstm(loss_kind):
    T, B, I, Hd, O = 5, 3, 4, 6, 7
    func = build_lstm(steps=T, batch=B, input_size=I, hidden=Hd, outputs=O, loss=loss_kind)
    loss, p = run(func, labels=O)
    lstm = torch.nn.LSTM(I, Hd, dtype=torch.float64)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(p["w_ih"].t())
        lstm.weight_hh_l0.copy_(p["w_hh"].t())
        lstm.bias_ih_l0.copy_(p["b"])
        lstm.bias_hh_l0.zero_()
    _, (h, _) = lstm(p["x"], (p["h0"][None], p["c0"][None]))
    out = h[0] @ p["w_out"] + p["b_out"]
    ref = F.mse_loss(out, p["target"]) if loss_kind == "mse" else F.cross_entropy(out, p["labels"])
    assert torch.allclose(loss, ref)
