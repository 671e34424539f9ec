"""The graph CLI: `python -m flake8_staticfx graph FILE [--root NAME] [--format text|dot|json]`.

Golden files live in tests/golden/; regenerate them after an intended change with
    STATICFX_UPDATE_GOLDEN=1 python -m pytest tests/test_graph.py
and review the diff.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_staticfx.__main__ import main
from flake8_staticfx.ir import OPCODES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden"
SIMPLE = str(EXAMPLES / "simple_net.py")
CONDITIONAL = str(EXAMPLES / "conditional_net.py")


def cli(*args: str) -> str:
    """Run the CLI in a subprocess, as a user does; return stdout."""
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", *args], capture_output=True,
                            text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def graph_in_process(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["graph", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- text -----------------------------------------------------------------------------

def table_rows(text: str) -> list[dict[str, str]]:
    """The rows of every tabular graph in the text output, keyed by the header's columns."""
    rows = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.split()[:3] != ["opcode", "name", "target"]:
            continue
        starts = [match.start() for match in re.finditer(r"\S+", line)]
        headers = line.split()
        for row in lines[index + 2:]:
            if not row.strip() or row.startswith("  break") or not row[:1].strip():
                break
            cells = [row[a:b].strip() for a, b in zip(starts, [*starts[1:], None])]
            rows.append(dict(zip(headers, cells)))
    return rows


def test_text_simple_net():
    text = cli(SIMPLE)
    assert text.splitlines()[0].startswith("SimpleNet.forward  (5 nodes, 0 graph breaks, 1 graph(s) predicted)")
    rows = table_rows(text)
    assert [(r["opcode"], r["name"], r["target"]) for r in rows] == [
        ("placeholder", "x", "x"),
        ("call_module", "fc1", "fc1"),
        ("call_function", "relu", "torch.relu"),
        ("call_module", "fc2", "fc2"),
        ("output", "output", "output"),
    ]
    assert [r["args"] for r in rows] == ["()", "(%x,)", "(%fc1,)", "(%relu,)", "(%fc2,)"]
    assert [r["line"] for r in rows[1:4]] == ["13", "14", "15"]
    assert all(r.get("break", "") == "" for r in rows)
    assert "break SFX" not in text


def test_text_conditional_net():
    text = cli(CONDITIONAL)
    assert text.splitlines()[0].startswith("ConditionalNet.forward  (")
    assert "1 graph breaks, 2 graph(s) predicted" in text.splitlines()[0]
    rows = {r["name"]: r for r in table_rows(text)}
    assert rows["x"]["opcode"] == "placeholder"
    assert (rows["fc1"]["opcode"], rows["fc1"]["target"]) == ("call_module", "fc1")
    assert (rows["relu"]["opcode"], rows["relu"]["target"]) == ("call_function", "torch.relu")
    assert (rows["tanh"]["opcode"], rows["tanh"]["target"]) == ("call_function", "torch.tanh")
    assert rows["fc2"]["opcode"] == "call_module"
    assert rows["output"]["opcode"] == "output"
    # the branch, and both of its arms, belong to the break
    assert rows["relu"]["break"] == rows["tanh"]["break"] == "SFX101"
    assert [r["name"] for r in rows.values() if r["break"] == "SFX101" and r["line"] == "14"]
    assert rows["fc1"]["break"] == rows["fc2"]["break"] == ""
    assert "  break SFX101 line 14: branch on a tensor's value: `x.sum() > 0` (GB0170)" in text
    assert "    workaround: compute both branches and select with torch.where" in text
    nodes_line = next(line for line in text.splitlines() if line.startswith("    nodes: "))
    assert {"relu", "tanh"} <= set(nodes_line.split(": ", 1)[1].split(", "))


def test_text_is_the_default_format(capsys):
    code, out, _ = graph_in_process(capsys, CONDITIONAL)
    assert code == 0
    assert out == cli(CONDITIONAL, "--format", "text")


def golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("STATICFX_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}: run with STATICFX_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")


def test_golden_text_conditional_net():
    golden("conditional_net.txt", cli("examples/conditional_net.py"))


@pytest.mark.parametrize("example", ["simple_net", "resnet_block", "moe_router", "transformer_block"])
def test_golden_text_examples(example):
    golden(f"{example}.txt", cli(f"examples/{example}.py"))


def test_loop_with_unknown_trip_count_is_marked(tmp_path):
    """Where the trip count is not known statically, the body is drawn once and says so."""
    path = tmp_path / "decoder.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Decoder(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.cell = nn.GRUCell(4, 4)\n\n"
        "    def forward(self, x, steps: int):\n        h = x\n        for _ in range(steps):\n"
        "            h = self.cell(x, h)\n        return h\n")
    graph, = json.loads(cli(str(path), "--format", "json"))["graphs"]
    repeat = {node["name"]: node["repeat"] for node in graph["nodes"]}
    assert repeat["cell"] == "loop at line 12, trip count unknown"
    assert repeat["x"] is None


def test_arithmetic_on_sizes_is_drawn_as_fx_records_it(tmp_path):
    """`(-x.shape[-1]) % self.multiple` as a pad width: fx records getattr, getitem, neg and mod
    (tensor_values.py StaticPad), and so does the static graph."""
    path = tmp_path / "pad.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\nclass Pad(nn.Module):\n"
        "    def __init__(self, multiple=8):\n        super().__init__()\n        self.multiple = multiple\n\n"
        "    def forward(self, x):\n        extra = (-x.shape[-1]) % self.multiple\n"
        "        return F.pad(x, (0, extra))\n")
    graph, = json.loads(cli(str(path), "--format", "json"))["graphs"]
    targets = [node["target"] for node in graph["nodes"] if node["op"] == "call_function"]
    assert targets == ["getattr", "operator.getitem", "operator.neg", "operator.mod", "torch.nn.functional.pad"]


# -- DOT -------------------------------------------------------------------------------

DOT_NODE = re.compile(r'^\s*"(?P<id>[^"]+)" \[label="(?P<label>(?:[^"\\]|\\.)*)"(?P<rest>[^\]]*)\];$')
DOT_EDGE = re.compile(r'^\s*"(?P<src>[^"]+)" -> "(?P<dst>[^"]+)";$')


def parse_dot(text: str) -> tuple[dict[str, dict], list[tuple[str, str]], list[str]]:
    """A strict reading of the DOT we emit: (nodes by id, edges, cluster labels)."""
    lines = text.strip().splitlines()
    assert lines[0] == "digraph staticfx {" and lines[-1] == "}"
    assert text.count("{") == text.count("}")
    nodes, edges, clusters = {}, [], []
    for line in lines[1:-1]:
        if node := DOT_NODE.match(line):
            attrs = dict(re.findall(r'(\w+)=("[^"]*"|\w+)', node["rest"]))
            nodes[node["id"]] = {"label": node["label"], **{k: v.strip('"') for k, v in attrs.items()}}
        elif edge := DOT_EDGE.match(line):
            edges.append((edge["src"], edge["dst"]))
        elif match := re.match(r'^\s*label="([^"]*)";$', line):
            clusters.append(match[1])
        else:
            assert re.match(r"^\s*(subgraph cluster_\d+ \{|\}|node \[.*\];)$", line), line
    for src, dst in edges:
        assert src in nodes and dst in nodes
    return nodes, edges, clusters


def test_dot_simple_net_has_no_highlight():
    nodes, edges, clusters = parse_dot(cli(SIMPLE, "--format", "dot"))
    assert clusters == ["SimpleNet.forward"]
    assert [n["label"].split("\\n")[0] for n in nodes.values()] == ["x", "fc1", "relu", "fc2", "output"]
    assert len(edges) == 4
    assert not any("fillcolor" in n for n in nodes.values())


def test_dot_conditional_net_highlights_the_break():
    nodes, edges, clusters = parse_dot(cli(CONDITIONAL, "--format", "dot"))
    assert clusters == ["ConditionalNet.forward"]
    by_name = {n["label"].split("\\n")[0]: n for n in nodes.values()}
    filled = {name for name, n in by_name.items() if n.get("style") == "filled"}
    assert {"relu", "tanh"} < filled
    red = [name for name, n in by_name.items() if n.get("fillcolor") == "red"]
    assert len(red) == 1  # the node where the graph breaks; its region is orange
    assert by_name[red[0]]["tooltip"] == "SFX101: line 14"
    assert {"x", "fc1", "fc2", "output"}.isdisjoint(filled)
    ids = {n["label"].split("\\n")[0]: node_id for node_id, n in nodes.items()}
    assert (ids["x"], ids["fc1"]) in edges and (ids["fc1"], ids["relu"]) in edges


def test_dot_renders_with_graphviz_when_installed(tmp_path):
    dot = pytest.importorskip("shutil").which("dot")
    if dot is None:
        pytest.skip("graphviz is not installed")
    (tmp_path / "g.dot").write_text(cli(CONDITIONAL, "--format", "dot"))
    subprocess.run([dot, "-Tsvg", str(tmp_path / "g.dot"), "-o", str(tmp_path / "g.svg")], check=True)


# -- JSON ------------------------------------------------------------------------------

NODE_KEYS = {"name", "op", "target", "args", "kwargs", "users", "line", "break"}
REGION_KEYS = {"code", "reason", "gb", "line", "col", "workaround", "fixable", "nodes"}


def node_refs(value) -> list[str]:
    if isinstance(value, dict) and set(value) == {"node"}:
        return [value["node"]]
    if isinstance(value, dict):
        return [ref for item in value.values() for ref in node_refs(item)]
    if isinstance(value, list):
        return [ref for item in value for ref in node_refs(item)]
    return []


def check_graph_json(graph: dict) -> None:
    """Invariants of every graph: fx opcodes, unique names, args earlier, users mirror args."""
    names = [node["name"] for node in graph["nodes"]]
    assert len(names) == len(set(names))
    seen: set[str] = set()
    users: dict[str, list[str]] = {name: [] for name in names}
    for node in graph["nodes"]:
        assert NODE_KEYS <= set(node), node
        assert node["op"] in OPCODES
        assert isinstance(node["line"], int) and node["line"] > 0
        for ref in node_refs([node["args"], node["kwargs"]]):
            assert ref in seen, f"{node['name']} uses {ref} before it is defined"
            if node["name"] not in users[ref]:
                users[ref].append(node["name"])
        seen.add(node["name"])
    for node in graph["nodes"]:
        assert node["users"] == users[node["name"]]
    assert graph["nodes"][-1]["op"] == "output"
    region_of = {}
    for region in graph["regions"]:
        assert REGION_KEYS <= set(region), region
        assert set(region["nodes"]) <= set(names)
        region_of.update(dict.fromkeys(region["nodes"], region["code"]))
    for node in graph["nodes"]:
        assert node["break"] == region_of.get(node["name"])


def test_json_simple_net():
    data = json.loads(cli(SIMPLE, "--format", "json"))
    assert set(data) >= {"graphs"}
    (graph,) = data["graphs"]
    check_graph_json(graph)
    assert [(n["op"], n["target"]) for n in graph["nodes"]] == [
        ("placeholder", "x"), ("call_module", "fc1"), ("call_function", "torch.relu"),
        ("call_module", "fc2"), ("output", "output")]
    assert graph["nodes"][1]["args"] == [{"node": "x"}]
    assert graph["nodes"][0]["users"] == ["fc1"]
    assert graph["regions"] == []


def test_json_conditional_net():
    data = json.loads(cli(CONDITIONAL, "--format", "json"))
    (graph,) = data["graphs"]
    check_graph_json(graph)
    (region,) = graph["regions"]
    assert region["code"] == "SFX101"
    assert region["gb"] == ["GB0170"]
    assert region["line"] == 14
    assert region["col"] == (EXAMPLES / "conditional_net.py").read_text().splitlines()[13].index("x.sum()")
    assert "x.sum() > 0" in region["reason"]
    assert region["workaround"].startswith("compute both branches")
    assert region["fixable"] is True
    by_name = {n["name"]: n for n in graph["nodes"]}
    covered = [by_name[name] for name in region["nodes"]]
    targets = {n["target"] for n in covered}
    assert {"torch.relu", "torch.tanh"} <= targets  # nodes of both branches
    assert {n["line"] for n in covered} >= {14, 15, 17}
    assert by_name["fc1"]["break"] is None and by_name["fc2"]["break"] is None


def test_json_transformer_block_regions():
    data = json.loads(cli(str(EXAMPLES / "transformer_block.py"), "--format", "json", "--root",
                          "TransformerBlock.forward"))
    (graph,) = data["graphs"]
    check_graph_json(graph)
    assert [(r["code"], r["line"], r["gb"]) for r in graph["regions"]] == [
        ("SFX102", 35, ["GB0124"]), ("SFX202", 36, ["GB0291", "GB4841"])]
    # the submodule's forward is inlined: its layers are call_module nodes with dotted paths
    assert {"ff.up", "ff.down", "ff.drop"} <= {n["target"] for n in graph["nodes"] if n["op"] == "call_module"}


def test_fullgraph_flag():
    data = json.loads(cli(str(EXAMPLES / "transformer_block.py"), "--format", "json", "--fullgraph",
                          "--root", "TransformerBlock"))
    assert [r["code"] for r in data["graphs"][0]["regions"]] == ["SFX202"]


def test_every_example_gives_valid_json():
    for path in sorted(EXAMPLES.glob("*.py")):
        data = json.loads(cli(str(path), "--format", "json"))
        assert data["graphs"], path
        for graph in data["graphs"]:
            check_graph_json(graph)


# -- roots and errors -----------------------------------------------------------------------

def test_root_selects_one_graph(capsys):
    path = str(EXAMPLES / "transformer_block.py")
    _, everything, _ = graph_in_process(capsys, path)
    assert "FeedForward.forward" in everything and "TransformerBlock.forward" in everything
    for name in ("FeedForward", "FeedForward.forward"):
        code, out, _ = graph_in_process(capsys, path, "--root", name)
        assert code == 0
        assert out.startswith("FeedForward.forward") and "TransformerBlock.forward" not in out


def test_unknown_root(capsys):
    code, out, err = graph_in_process(capsys, SIMPLE, "--root", "Nope")
    assert code == 2 and out == ""
    assert "Nope" in err


def test_missing_file():
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", "no/such/file.py"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "no/such/file.py" in result.stderr


def test_bad_format():
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", SIMPLE, "--format", "pdf"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "invalid choice" in result.stderr


# -- agreement with torch -----------------------------------------------------------------------

def test_simple_net_matches_torch_fx():
    torch = pytest.importorskip("torch")
    import importlib.util

    spec = importlib.util.spec_from_file_location("simple_net_example", SIMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    traced = torch.fx.symbolic_trace(module.SimpleNet())
    fx_nodes = []
    for node in traced.graph.nodes:
        target = node.target
        if callable(target):
            target = f"{target.__module__.replace('torch._C._VariableFunctions', 'torch')}.{target.__name__}"
            target = re.sub(r"^torch\._C\._?[A-Za-z]*\.", "torch.", target)
        fx_nodes.append((node.op, node.name, str(target)))
    (graph,) = json.loads(cli(SIMPLE, "--format", "json"))["graphs"]
    assert [(n["op"], n["name"], n["target"]) for n in graph["nodes"]] == fx_nodes


@pytest.mark.parametrize(("file", "cls"), [(SIMPLE, "SimpleNet"), (CONDITIONAL, "ConditionalNet")])
def test_predicted_graph_count_matches_torch_compile(file, cls):
    torch = pytest.importorskip("torch")
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"example_{cls}", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    compiled = []

    def backend(gm, example_inputs):
        compiled.append(gm)
        return gm.forward

    torch._dynamo.reset()
    try:
        torch.compile(getattr(module, cls)(), backend=backend)(torch.randn(4, 16))
    finally:
        torch._dynamo.reset()
    (graph,) = json.loads(cli(file, "--format", "json"))["graphs"]
    assert graph["predicted_graphs"] == len(compiled)


def test_html_page_without_graphviz():
    page = cli(CONDITIONAL, "--format", "html")
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert page.rstrip().endswith("</html>")
    assert "ConditionalNet.forward" in page and "SFX101" in page
    assert "<script src=" not in page and "<link " not in page  # self-contained


def test_svg_without_graphviz_is_a_clear_error(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}  # no `dot` on this PATH
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "graph", CONDITIONAL, "--format", "svg"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 2 and "Graphviz" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_svg_with_graphviz():
    import shutil

    if not shutil.which("dot"):
        pytest.skip("graphviz is not installed")
    svg = cli(CONDITIONAL, "--format", "svg")
    assert "<svg" in svg and "ConditionalNet.forward" in svg


@pytest.mark.parametrize("reuse", [True, False])
def test_every_graph_keeps_the_ir_invariants(reuse):
    """Unique names, inputs defined before use, users mirroring inputs, regions on own nodes."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    options = Options(reuse_inlined=reuse, follow_defaults=not reuse)
    files = sorted([*EXAMPLES.glob("*.py"), *(ROOT / "tests" / "cases").glob("*.py")])
    for path in files:
        for graph in analyze(path.read_text(encoding="utf-8"), str(path), options=options).graphs:
            graph.lint()


def test_module_level_tensor_leaves_no_trace_in_the_graph(tmp_path):
    """A module-level tensor is a constant to the graph: the ops that computed it are not
    nodes, and no node keeps them among its users."""
    from flake8_staticfx.analysis import analyze

    path = tmp_path / "model.py"
    path.write_text("import torch\nimport torch.nn as nn\n\nSCALE = torch.ones(4) * 2\n\n\n"
                    "class Net(nn.Module):\n    def forward(self, x):\n        y = x.relu()\n"
                    "        return y * SCALE\n", encoding="utf-8")
    graph, = analyze(path.read_text(), str(path)).graphs
    graph.lint()
    assert [n.target for n in graph.nodes] == ["x", "relu", "operator.mul", "output"]


@pytest.mark.parametrize(("name", "targets"), [
    ('f"_pool_{self.mode}"', ["x", "mean", "output"]),
    ('"_pool_{}".format(self.mode)', ["x", "mean", "output"]),
    ('"_{kind}_{}".format(self.mode, kind="pool")', ["x", "mean", "output"]),
    # a format spec or a field reaching into its argument is not computed: no method is known
    ('"_pool_{:>4}".format(self.mode)', ["x", "output"]),
    ('"_pool_{0.real}".format(self.mode)', ["x", "output"]),
])
def test_formatted_method_name_of_known_values_selects_a_method(tmp_path, name, targets):
    """`getattr(self, f"_pool_{mode}")` with a known mode inlines that method (fx does too), and
    `"{}_reduction".format(kind)` (pytorch-metric-learning's BaseReducer) is computed as the
    f-string is, when each field just names a known argument."""
    from flake8_staticfx.analysis import analyze

    source = textwrap.dedent('''\
        import torch.nn as nn


        class Pooling(nn.Module):
            def __init__(self, mode="mean"):
                super().__init__()
                self.mode = mode

            def _pool_mean(self, x):
                return x.mean(1)

            def forward(self, x):
                return getattr(self, NAME)(x)
    ''').replace("NAME", name)
    graph, = analyze(source, str(tmp_path / "pool.py")).graphs
    assert [node.target for node in graph.nodes] == targets


def test_forward_writes_to_an_init_container_stay_visible(tmp_path):
    """`self._memo[key] = ...` then `self._memo[key] * 2`: the read sees the write (the
    container from __init__ is not copied for forward unless it holds another graph's
    tensors)."""
    from flake8_staticfx.analysis import analyze

    source = textwrap.dedent('''\
        import torch.nn as nn


        class Memo(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                self._memo = {}

            def forward(self, x):
                self._memo["k"] = self.proj(x)
                return self._memo["k"] * 2.0
    ''')
    graph, = analyze(source, str(tmp_path / "memo.py")).graphs
    assert [node.target for node in graph.nodes] == ["x", "proj", "operator.mul", "output"]


def test_norm_layer_class_handed_to_init_is_drawn(tmp_path):
    """torchvision's ResNet hands `norm_layer=nn.BatchNorm2d` to each block, whose `__init__`
    defaults it with `if norm_layer is None:`: a torch class is never None, so the block's
    norm is the class handed in (before, both branches were joined and the norm was lost)."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''\
        from torch import nn


        class Block(nn.Module):
            def __init__(self, dim, norm_layer=None):
                super().__init__()
                if norm_layer is None:
                    norm_layer = nn.BatchNorm1d
                self.fc = nn.Linear(dim, dim)
                self.bn = norm_layer(dim)

            def forward(self, x):
                return self.bn(self.fc(x))


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self._norm_layer = nn.LayerNorm
                self.layer = self._make()

            def _make(self):
                return Block(4, self._norm_layer)

            def forward(self, x):
                return self.layer(x)
    '''))
    for follow_defaults in (True, False):
        graphs = analyze(path.read_text(), str(path), options=Options(follow_defaults=follow_defaults)).graphs
        net = next(g for g in graphs if g.root == "Net.forward")
        assert [n.target for n in net.nodes if n.op == "call_module"] == ["layer.fc", "layer.bn"]


def test_dataclass_config_gives_its_fields_and_post_init_values(tmp_path):
    """`TowerConfig()` of a @dataclass: defaults (a `field(default=...)` too) and `__post_init__`
    values are known, so `range(config.depth)` unrolls and `config.hidden` sizes the layers."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = ROOT / "tests" / "cases" / "cfg_dataclass_blocks.py"
    graphs = analyze(path.read_text(), str(path), options=Options(follow_defaults=True, reuse_inlined=False)).graphs
    tower = next(g for g in graphs if g.root == "Tower.forward")
    assert [n.target for n in tower.nodes if n.op == "call_module"] == [
        f"blocks.{i}.{name}" for i in range(2) for name in ("up", "down", "drop")]
    assert not tower.regions and tower.unknown_values() == 0


def test_config_made_a_dataclass_by_its_base_gives_the_call_sites_values():
    """transformers' configs are dataclasses through a `@dataclass_transform` base whose
    `__init_subclass__` applies `dataclass`, and their `__post_init__` calls the base's through
    `super()`: the keyword arguments of `DecoderConfig(num_layers=2, trace_norms=True)` unroll
    the layers built over `range(config.num_layers)` and run over `layers[: config.num_layers]`,
    and decide which model prints (before, the config was unknown and no layer was drawn)."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = ROOT / "tests" / "cases" / "cfg_dataclass_transform_config.py"
    graphs = analyze(path.read_text(), str(path), options=Options(reuse_inlined=False)).graphs
    layers = [f"decoder.layers.{i}.{name}" for i in range(2) for name in ("attn", "mlp")]
    for root, codes in (("TracedDecoder.forward", {"SFX201"}), ("QuietDecoder.forward", set())):
        graph = next(g for g in graphs if g.root == root)
        assert [n.target for n in graph.nodes if n.op == "call_module"] == layers
        assert {r.code for r in graph.regions} == codes


def test_pretrained_model_base_stores_the_config_it_is_given(tmp_path):
    """`super().__init__(config)` into transformers' PreTrainedModel, whose source is not read,
    sets `self.config`: forward's `self.layers[: self.config.num_layers]` is the two layers."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''\
        from torch import nn
        from transformers import PreTrainedModel


        class StackConfig:
            def __init__(self, hidden_size=8, num_layers=6):
                self.hidden_size = hidden_size
                self.num_layers = num_layers


        class Stack(PreTrainedModel):
            def __init__(self, config):
                super().__init__(config)
                self.layers = nn.ModuleList([nn.Linear(config.hidden_size, config.hidden_size)
                                             for _ in range(config.num_layers)])

            def forward(self, x):
                for layer in self.layers[: self.config.num_layers]:
                    x = layer(x)
                return x


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.stack = Stack(StackConfig(num_layers=2))

            def forward(self, x):
                return self.stack(x)
    '''))
    graphs = analyze(path.read_text(), str(path), options=Options(reuse_inlined=False)).graphs
    model = next(g for g in graphs if g.root == "Model.forward")
    assert [n.target for n in model.nodes if n.op == "call_module"] == ["stack.layers.0", "stack.layers.1"]


def test_activation_built_by_a_dict_subclass_registry_is_drawn():
    """transformers' `ACT2FN[name]` indexes a ClassInstantier, an OrderedDict subclass whose
    `__getitem__` builds `super().__getitem__(key)` unless it is a (class, kwargs) tuple: the
    block's activation is the module its name maps to (before, it was unknown: nn.GELU was not
    drawn and the probing activation's breaks were not found from the model using it)."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = ROOT / "tests" / "cases" / "cfg_activation_registry.py"
    graphs = {g.root: g for g in analyze(path.read_text(), str(path), options=Options(reuse_inlined=False)).graphs}
    assert [n.target for n in graphs["FeedForward.forward"].nodes if n.op == "call_module"] == ["up", "act", "down"]
    probed = graphs["ProbedFeedForward.forward"]
    assert probed.inlined_modules == ["ffn", "ffn.act"]
    assert {r.code for r in probed.regions} == {"SFX201", "SFX102"}


def test_json_lists_each_inlined_module_call(tmp_path, capsys):
    """A project module's forward is drawn as its body, not as a call_module node: the JSON
    names the module once per call, so that a block called twice counts twice."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''\
        import torch
        from torch import nn


        class RMSNorm(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(dim))

            def forward(self, x):
                return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = RMSNorm(8)
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                return self.norm(self.proj(self.norm(x)))
    '''))
    assert main(["graph", str(path), "--format", "json", "--root", "Model.forward"]) == 0
    graph, = json.loads(capsys.readouterr().out)["graphs"]
    assert graph["inlined_modules"] == ["norm", "norm"]
    assert [n["target"] for n in graph["nodes"] if n["op"] == "call_module"] == ["proj"]


def test_a_config_method_run_while_it_is_built_sets_its_attributes(tmp_path):
    """A config's `__post_init__` in another file fills defaults in a method of its own (as
    transformers' PreTrainedConfig standardizes `rope_parameters`): building the model follows
    that method, so the layer count it sets is known, not the field's None."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "configs.py").write_text(textwrap.dedent('''\
        from dataclasses import dataclass


        @dataclass
        class StackConfig:
            hidden_size: int = 8
            num_layers: int | None = None

            def __post_init__(self):
                self.fill_defaults()

            def fill_defaults(self):
                if self.num_layers is None:
                    self.num_layers = 2
    '''))
    path = package / "model.py"
    path.write_text(textwrap.dedent('''\
        from torch import nn

        from .configs import StackConfig


        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                config = StackConfig(hidden_size=4)
                self.layers = nn.ModuleList([nn.Linear(config.hidden_size, config.hidden_size)
                                             for _ in range(config.num_layers)])

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x
    '''))
    graph, = analyze(path.read_text(), str(path), options=Options(reuse_inlined=False)).graphs
    assert [n.target for n in graph.nodes if n.op == "call_module"] == ["layers.0", "layers.1"]


def test_a_dict_subclass_item_set_through_its_own_setitem_replaces_the_old_one(tmp_path):
    """`table["Mixer"] = nn.Identity` on a dict subclass whose `__setitem__` lowercases keys
    replaces the LSTM under "mixer": the block's mixer is the Identity, and no RNN break is
    reported (a store that skipped the class's `__setitem__` kept the LSTM)."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''\
        from torch import nn


        class LayerTable(dict):
            def __setitem__(self, key, value):
                super().__setitem__(key.lower(), value)


        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                table = LayerTable({"mixer": nn.LSTM})
                table["Mixer"] = nn.Identity
                self.mixer = table["mixer"](4, 4)

            def forward(self, x):
                return self.mixer(x)
    '''))
    graph, = analyze(path.read_text(), str(path), options=Options(reuse_inlined=False)).graphs
    assert [n.target for n in graph.nodes if n.op == "call_module"] == ["mixer"]
    assert not graph.regions


def test_layer_choices_computed_from_known_values_are_drawn(tmp_path):
    """timm's way of choosing layers: `isinstance(name, str)` of a class handed in,
    `isinstance(gate, nn.Module)` of a flag, `'deep' in stem_type`, `sum(depths)` blocks,
    `to_2tuple(3)` as `tuple(repeat(3, 2))`. Each is computed from the values it is given;
    before, each was unknown and the layers it chose were lost."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''\
        import collections.abc
        import functools
        from itertools import repeat

        from torch import nn


        def _ntuple(n):
            def parse(x):
                if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
                    return tuple(x)
                return tuple(repeat(x, n))
            return parse


        to_2tuple = _ntuple(2)


        def get_act_layer(name):
            if not isinstance(name, str):
                return name
            return dict(relu=nn.ReLU, gelu=nn.GELU)[name]


        def get_norm_layer(norm_layer):
            if isinstance(norm_layer, functools.partial):
                return functools.partial(norm_layer.func, **norm_layer.keywords)
            return norm_layer


        def create_gate(gate):
            if isinstance(gate, nn.Module):
                return gate
            return nn.Sigmoid() if gate else nn.Identity()


        class Net(nn.Module):
            def __init__(self, depths=(1, 2), stem_type="", act_layer=nn.ReLU, norm_layer=nn.BatchNorm2d):
                super().__init__()
                stem_depth = 3 if "deep" in stem_type else 1
                self.stem = nn.Sequential(*[nn.Conv2d(8 if i else 3, 8, 3) for i in range(stem_depth)])
                self.norm = get_norm_layer(norm_layer)(8)
                self.act = get_act_layer(act_layer)()
                self.convs = nn.Sequential(*[nn.Conv2d(8, 8, k, padding=k // 2) for k in to_2tuple(3)])
                self.blocks = nn.Sequential(*[nn.Conv2d(8, 8, 1) for _ in range(sum(depths))])
                self.attn = create_gate(True)

            def forward(self, x):
                return self.attn(self.blocks(self.convs(self.act(self.norm(self.stem(x))))))
    '''))
    graphs = analyze(path.read_text(), str(path), options=Options(follow_defaults=True, reuse_inlined=False)).graphs
    net = next(g for g in graphs if g.root == "Net.forward")
    assert [n.target for n in net.nodes if n.op == "call_module"] == [
        "stem.0", "norm", "act", "convs.0", "convs.1", "blocks.0", "blocks.1", "blocks.2", "attn"]
    assert net.unknown_values() == 0


def test_stages_built_by_a_function_of_another_file_are_drawn(tmp_path):
    """timm's ResNet gets its stages from a module-level `make_blocks(...)` as (name, module)
    pairs, registered with `self.add_module(*stage)`, and its head from `create_classifier`:
    functions that are no methods are followed from `__init__` into any file of the project."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options

    (tmp_path / "layers.py").write_text(textwrap.dedent('''\
        from torch import nn


        def make_stages(channels, depths):
            stages = []
            for index, (width, depth) in enumerate(zip(channels, depths)):
                blocks = [nn.Conv2d(width, width, 3, padding=1) for _ in range(depth)]
                stages.append((f"layer{index + 1}", nn.Sequential(*blocks)))
            return stages


        def create_classifier(num_features, num_classes):
            return nn.AdaptiveAvgPool2d(1), nn.Linear(num_features, num_classes)
    '''))
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''\
        from torch import nn

        from layers import create_classifier, make_stages


        class Net(nn.Module):
            def __init__(self, channels=(8, 8), depths=(1, 2)):
                super().__init__()
                for stage in make_stages(channels, depths):
                    self.add_module(*stage)
                self.global_pool, self.fc = create_classifier(channels[-1], 10)

            def forward(self, x):
                x = self.layer2(self.layer1(x))
                return self.fc(self.global_pool(x).flatten(1))
    '''))
    graphs = analyze(path.read_text(), str(path), options=Options(follow_defaults=True, reuse_inlined=False)).graphs
    net = next(g for g in graphs if g.root == "Net.forward")
    assert [n.target for n in net.nodes if n.op == "call_module"] == [
        "layer1.0", "layer2.0", "layer2.1", "global_pool", "fc"]
    assert net.unknown_values() == 0


def test_instance_view_does_not_take_a_default_that_raises(tmp_path):
    """The instance view takes optional inputs at their defaults and `self.training` as true,
    but a call that raises is not the one a user compiles: with every input optional
    (`input_ids is None and inputs_embeds is None: raise`), the view drew transformers'
    BartModel as its inputs and an empty output, "0 graph(s) predicted"."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''
        from typing import Optional

        import torch
        from torch import nn


        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(10, 8)
                self.proj = nn.Linear(8, 8)
                self.drop = nn.Dropout(0.1)

            def forward(self, input_ids: Optional[torch.Tensor] = None,
                        inputs_embeds: Optional[torch.Tensor] = None):
                if input_ids is None and inputs_embeds is None:
                    raise ValueError("pass input_ids or inputs_embeds")
                if inputs_embeds is None:
                    inputs_embeds = self.embed(input_ids)
                hidden = self.proj(inputs_embeds)
                if self.training:
                    hidden = self.drop(hidden)
                return hidden
    '''))
    text = cli(str(path))
    assert text.splitlines()[0] == "Encoder.forward  (6 nodes, 0 graph breaks, 1 graph(s) predicted)"
    assert [row["target"] for row in table_rows(text) if row["opcode"] == "call_module"] == ["embed", "proj", "drop"]


def test_report_counts_a_root_s_graphs_as_the_graph_command_does(tmp_path):
    """`report` drew calls as summaries, which keep a callee's breaks but not its graphs: for
    the same root it printed 4 graphs where `graph --view lint` printed 6 (transformers'
    BartModel: 2 against 8)."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''
        import torch
        from torch import nn


        def gated(x):
            if x.sum() > 0:
                x = x * 2
            return x.relu()


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                return gated(self.proj(gated(self.proj(x))))
    '''))
    header = cli(str(path), "--view", "lint").splitlines()[0]
    predicted = int(re.search(r"(\d+) graph\(s\) predicted", header).group(1))
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "report", str(path), "--format", "json"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    [row] = json.loads(result.stdout)
    assert row["graphs"] == predicted
    assert row["breaks"] == {"SFX101": 1}  # one site, met twice


def test_two_torch_layers_one_per_branch_are_one_call_module(tmp_path):
    """timm's `_create_fc` makes an nn.Identity if `num_classes <= 0`, else an nn.Linear: either
    is a `call_module` of `fc` (ResNet's hooks record it), so the join keeps the layer. An LSTM
    against a Linear stays unknown: which one decides whether the call breaks."""
    path = tmp_path / "head.py"
    path.write_text(textwrap.dedent("""\
        import torch.nn as nn


        def make_fc(n_in, n_out):
            if n_out <= 0:
                fc = nn.Identity()
            else:
                fc = nn.Linear(n_in, n_out)
            return fc


        class Head(nn.Module):
            def __init__(self, n_in, n_out):
                super().__init__()
                self.fc = make_fc(n_in, n_out)

            def forward(self, x):
                return self.fc(x)
    """))
    (graph,) = json.loads(cli(str(path), "--format", "json"))["graphs"]
    assert [(n["op"], n["target"]) for n in graph["nodes"]] == [
        ("placeholder", "x"), ("call_module", "fc"), ("output", "output")]


# -- unknown is drawn, never dropped (issue 32) -------------------------------------------------

STAGES = '''
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc(x).relu()


class TorchvisionStyle(nn.Module):
    """torchvision's ResNet: stages from `self._make_layer(block, 64, layers[0])`, counts unknown."""

    def __init__(self, block, layers, dim=8):
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        self.layer1 = self._make_layer(block, dim, layers[0])
        self.layer2 = self._make_layer(block, dim, layers[1])
        self.head = nn.Linear(dim, 2)

    def _make_layer(self, block, dim, blocks):
        layers = [block(dim)]
        for _ in range(1, blocks):
            layers.append(block(dim))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer1(x)
        x = self.layer2(x)
        return self.head(x)


class TimmStyle(nn.Module):
    """timm's ResNet: `self.add_module(*stage)` over stages made elsewhere."""

    def __init__(self, stages, dim=8):
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        for stage in stages:
            self.add_module(*stage)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer1(x)
        return self.layer2(x)


class LlamaStyle(nn.Module):
    """transformers' LlamaModel: one decoder layer per `range(config.num_hidden_layers)`."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([Block(8) for _ in range(config.num_hidden_layers)])

    def forward(self, x):
        for layer in self.layers[: self.config.num_hidden_layers]:
            x = layer(x)
        return x
'''


def test_stages_built_from_unknown_values_are_drawn_opaque(tmp_path):
    path = tmp_path / "stages.py"
    path.write_text(STAGES)
    text = cli(str(path), "--root", "TorchvisionStyle.forward")
    assert re.search(r"call_module +layer1 \(opaque\) +layer1 +\(%stem,\)", text)
    assert re.search(r"call_module +layer2 \(opaque\) +layer2", text)
    assert "at least 1 graph(s) predicted" in text
    assert "notice: could not analyse layer1 (line 33): `layer1` is built from values not known statically" in text
    timm = cli(str(path), "--root", "TimmStyle.forward")
    assert re.search(r"call_module +layer1 \(opaque\)", timm) and re.search(r"call_module +layer2 \(opaque\)", timm)
    (graph,) = json.loads(cli(str(path), "--root", "TimmStyle.forward", "--format", "json"))["graphs"]
    assert graph["predicted_graphs_at_least"] is True
    assert [n["opaque"] is not None for n in graph["nodes"] if n["op"] == "call_module"] == [False, True, True]


def test_a_slice_of_layers_of_unknown_count_is_drawn_once_marked(tmp_path):
    path = tmp_path / "stages.py"
    path.write_text(STAGES)
    text = cli(str(path), "--root", "LlamaStyle.forward")
    assert re.search(r"call_module +layers___fc ×\? +layers\.\?\.fc", text)
    assert "1 graph(s) predicted" in text and "at least" not in text  # no break in the loop: still one
