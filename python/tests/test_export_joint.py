"""The AOTAutograd joint-graph exporter (python/remat_export/export_joint.py)
on a 3-layer MLP: the Checkmate JSON it writes, and that the checked-in
fixture bench/graphs/mlp_b4.json is what it produces."""

import json
import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("functorch")

from conftest import REPO_ROOT  # noqa: E402
from remat_export import export_joint  # noqa: E402


@pytest.fixture(scope="module")
def mlp_graph():
    model, x, y, kind, name = export_joint.build("mlp", 4, 224, 128)
    recorder = export_joint.trace(model, x, y, kind)
    return export_joint.export(recorder.joint, recorder.saved, name)


def test_nodes_links_and_costs(mlp_graph):
    g = mlp_graph
    by_name = {n["name"]: n for n in g["nodes"]}
    ids = [n["id"] for n in g["nodes"]]
    assert ids == list(range(len(ids)))
    # Links follow the op order (a topological order).
    assert all(l["source"] < l["target"] for l in g["links"])
    # addmm(bias, x[4,16], W^T[16,32]): 2 * 4 * 32 * 16 FLOPs, 4x32 float32.
    assert by_name["addmm"]["cost_cpu"] == 2 * 4 * 32 * 16
    assert by_name["addmm"]["cost_ram"] == 4 * 32 * 4
    assert by_name["relu"]["cost_cpu"] == 4 * 32
    assert not by_name["addmm"]["backward"]
    # The tangent is the only gradient seed, placed before its first reader.
    seeds = [n for n in g["nodes"] if n.get("gradient_seed")]
    assert [s["name"] for s in seeds] == ["tangents_1"]
    assert seeds[0]["backward"]
    first_reader = min(l["target"] for l in g["links"]
                       if l["source"] == seeds[0]["id"])
    assert first_reader == seeds[0]["id"] + 1
    # Aliases (transposes of the weights) are contracted: no 't' node.
    assert not any(n["op"] == "aten.t" for n in g["nodes"])


def test_marks_and_saved_sets(mlp_graph):
    g = mlp_graph
    nodes = {n["id"]: n for n in g["nodes"]}
    # AOTAutograd marks nll's total weight backward although it depends on
    # forward values only ('unclaimed' by the partitioner).
    tw = [n for n in g["nodes"] if n["name"] == "getitem_1"][0]
    assert tw["backward"] and tw["aot_class"] == "unclaimed"
    # Every saved value is an activation the forward computes.
    for part in ("mincut", "default", "mincut_inductor"):
        saved = g["pytorch_saved"][part]
        assert saved, part
        for i in saved:
            assert nodes[i]["aot_class"] in ("forward", "unclaimed"), part
    # The partitioner's saved sets name the ReLU and tanh outputs.
    names = {nodes[i]["name"] for i in g["pytorch_saved"]["default"]}
    assert {"relu", "tanh"} <= names


def test_checked_in_fixture_is_reproduced(mlp_graph):
    path = os.path.join(REPO_ROOT, "bench", "graphs", "mlp_b4.json")
    with open(path) as f:
        fixture = json.load(f)
    assert fixture == json.loads(json.dumps(mlp_graph))
