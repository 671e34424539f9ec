"""The driver replay (flake8_staticfx.recompiles) followed into what real drivers do: an eager
forward calling compiled parts, the shapes of rearranged tensors, keywords a frame's `**kwargs`
never reads. The recorded cases (tests/recompile_cases/tuned, scored by test_recompiles.py) hold
the dynamo behaviour; these hold the parts on small sources."""
from __future__ import annotations

import ast
import os
import textwrap

import pytest

from flake8_staticfx.recompiles import predict
from flake8_staticfx.recompiles.rearranging import einops, einsum, pieces, rearranged
from flake8_staticfx.recompiles.shapes import ShapeUnknown, tensor_method
from flake8_staticfx.recompiles.values import Const, TensorValue


def _predict(source: str, *parts: str):
    return predict(ast.parse(textwrap.dedent(source) + "".join(parts)))


def _net(width: int) -> str:
    """A module of one nn.Linear, the frame the small drivers below compile."""
    return textwrap.dedent(f"""
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear({width}, 4)

            def forward(self, x):
                return self.fc(x)
    """)


@pytest.mark.parametrize("name, numbers, options, shape", [
    ("permute", [0, 2, 4, 1, 3, 5], {}, (2, 4, 4, 3, 2, 2)),
    ("flatten", [-3], {}, (2, 3, 4, 16)),
    ("flatten", [1, 2], {}, (2, 12, 2, 4, 2)),
    ("unsqueeze", [1], {}, (2, 1, 3, 4, 2, 4, 2)),
    ("squeeze", [0], {}, (2, 3, 4, 2, 4, 2)),  # a size that is not 1 stays
    ("repeat", [2, 1, 1, 1, 1, 1, 1], {}, (2, 2, 3, 4, 2, 4, 2)),
    ("permute", [0, 0, 1, 2, 3, 4], {}, None),  # not a permutation
])
def test_dimensions_reordered_merged_added_and_repeated(name, numbers, options, shape):
    assert rearranged((2, 3, 4, 2, 4, 2), name, numbers, options) == shape


def test_chunks_splits_and_einsum():
    assert pieces((2, 192), "chunk", [6], {"dim": 1}) == [(2, 32)] * 6
    assert pieces((2, 7), "chunk", [2], {"dim": 1}) == [(2, 4), (2, 3)]
    assert pieces((2, 30, 8), "split", [(14, 16)], {"dim": 1}) == [(2, 14, 8), (2, 16, 8)]
    assert pieces((2, 30, 8), "split", [(14, 15)], {"dim": 1}) is None  # sizes that do not add up
    assert einsum("nhwpqc->nchpwq", [(2, 4, 4, 2, 2, 3)]) == (2, 3, 4, 2, 4, 2)
    assert einsum("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]) == (2, 3, 5)
    assert einsum("...ij->...ji", [(2, 3, 4)]) is None  # an ellipsis: not followed


@pytest.mark.parametrize("function, pattern, shape, axes, result", [
    ("rearrange", "b c (h ph) (w pw) -> b (h w) (c ph pw)", (1, 16, 8, 12), {"ph": 2, "pw": 2}, (1, 24, 64)),
    ("rearrange", "B L (K H D) -> K B H L D", (1, 24, 96), {"K": 3, "H": 2}, (3, 1, 2, 24, 16)),
    ("rearrange", "B H L D -> B L (H D)", (1, 2, 24, 16), {}, (1, 24, 32)),
    ("repeat", "h w c -> b (h w) c", (4, 6, 3), {"b": 2}, (2, 24, 3)),
    ("repeat", "1 ... -> bs ...", (1, 6, 40), {"bs": 3}, (3, 6, 40)),
    ("rearrange", "b (h w) -> b h w", (1, 24), {}, None),  # two unknown axes in one group
    ("rearrange", "b c -> b c d", (1, 24), {}, None),  # an axis from nowhere
    ("reduce", "b c -> b", (1, 24), {}, None),
])
def test_einops_patterns(function, pattern, shape, axes, result):
    assert einops(function, pattern, shape, axes) == result


def test_a_permuted_tensor_is_a_view_and_a_known_size_is_needed():
    permuted = tensor_method(TensorValue((2, 3, 4)), "permute", [Const(0), Const(2), Const(1)], {}, False)
    assert permuted.shape == (2, 4, 3) and permuted.view  # its strides are its base's: not a fresh tensor's
    with pytest.raises(ShapeUnknown):
        tensor_method(TensorValue((2, object(), 4)), "flatten", [Const(1)], {}, False)


EAGER_FORWARD = """\
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
            self.drop = nn.Dropout(0.1)

        @torch.compile()
        def forward(self, x, **kwargs):
            return self.drop(self.fc(x))


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Sequential(nn.Linear(8, 16), nn.SiLU())
            self.blocks = nn.ModuleList([Block(16) for _ in range(2)])

        def forward(self, x, **kwargs):
            x = self.embed(x.permute(0, 2, 1).flatten(1))
            for block in self.blocks:
                x = block(x, **kwargs)
            return x


    def run():
        model = Model()
        model(torch.randn(2, 4, 2)){between}
        model(torch.randn(2, 4, 2){keywords})
"""


@pytest.mark.parametrize("between, keywords, compiles, guard", [
    ("", ", scale=2.0", 1, None),  # a keyword the block's **kwargs never reads: guarded on nothing
    ("\n        model.eval()", "", 2, "self.training"),  # eval() reaches the blocks, whose dropout reads it
    ("\n        model.blocks[0].eval()", "", 2, "self.training"),  # the first block alone: the blocks differ
    ("", "[:1]", 2, "x"),  # a batch of one: a new shape for every block
])
def test_an_eager_forward_calls_its_compiled_blocks_as_frames(between, keywords, compiles, guard):
    frames, recompiles = _predict(EAGER_FORWARD.format(between=between, keywords=keywords))
    block = next(f for f in frames if f.root == "Block.forward")
    assert (block.compiles, block.calls, block.known) == (compiles, 4, True)
    assert block.first_line == 11  # the decorator's line: dynamo's co_firstlineno
    assert [r.guard for r in recompiles] == ([guard] if guard else [])


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


@pytest.mark.parametrize("body, only_reads", [
    ("decay, no_decay = set(), set()\n"
     "for mn, m in self.named_modules():\n"
     "    for pn, p in m.named_parameters():\n"
     "        if pn.endswith('bias'):\n"
     "            no_decay.add(pn)\n"
     "optimizer = torch.optim.AdamW([{'params': sorted(decay)}], lr=lr)\n"
     "return optimizer", True),
    ("names = []\nfor pn, p in self.named_parameters():\n    names.append(pn)\nreturn names", True),
    ("self.groups = list(self.parameters())", False),  # writes an attribute
    ("for p in self.parameters():\n    torch.nn.init.zeros_(p)", False),  # a torch function not known to only read
    ("blocks = self.blocks\nblocks.append(1)", False),  # fills a container it did not make
    ("return self.blocks", False),  # hands back what the caller could change through it
    ("return self(x)", False),  # calls the module
])
def test_a_function_that_only_reads_what_it_is_given(body, only_reads):
    from flake8_staticfx.recompiles.read_only import reads_only
    source = "def configure(self, lr, x):\n" + textwrap.indent(body, "    ")
    assert reads_only(_function(source), {}) is only_reads


def test_a_nested_list_prompt_and_topk_have_shapes():
    from flake8_staticfx.recompiles.shapes import tensor_of, torch_function
    from flake8_staticfx.recompiles.values import ListValue
    prompt = tensor_of(ListValue([ListValue([Const(1), Const(2), Const(3)])]))
    assert prompt.shape == (1, 3)
    assert tensor_of(ListValue([ListValue([Const(1)]), ListValue([Const(1), Const(2)])])).shape is None  # ragged
    values, indices = torch_function("topk", [TensorValue((1, 11))], {"k": Const(1), "dim": Const(-1)}, False).items
    assert values.shape == indices.shape == (1, 1)


@pytest.mark.parametrize("pattern, shape, axes, strides", [  # each measured with torch and einops 0.8.2
    ("h w c -> b (h w) c", (4, 4, 3), {"b": 1}, "fresh"),
    ("h w c -> b (h w) c", (4, 4, 3), {"b": 2}, (0, 3, 1)),  # broadcast: a stride of 0
    ("1 ... -> bs ...", (1, 6, 40), {"bs": 3}, (0, 40, 1)),
    ("b c (h ph) (w pw) -> b (h w) (c ph pw)", (1, 16, 8, 8), {"ph": 2, "pw": 2}, "fresh"),  # the reshape copies
    ("B L (K H D) -> K B H L D", (1, 24, 96), {"K": 3, "H": 2}, (32, 768, 16, 96, 1)),  # a transposed view
    ("b n d (i j) -> b n d i j", (1, 5, 3, 4), {"i": 2, "j": 2}, "fresh"),
])
def test_einops_results_are_views_where_torch_makes_them(pattern, shape, axes, strides):
    from flake8_staticfx.recompiles.rearranging import einops_strides
    assert einops_strides(pattern, shape, axes) == strides


def test_a_schedule_walked_in_pairs_and_an_embedder_object_reach_the_frame():
    frames, recompiles = _predict('''\
        import torch
        import torch.nn as nn
        from einops import rearrange as r


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 16)

            def forward(self, img, txt, t):
                return self.fc(img) * t[:, None, None] + txt.mean(dim=1, keepdim=True)


        class Embed:
            def __call__(self, prompts):
                return torch.randn(len(prompts), 6, 16)


        def run():
            model = torch.compile(Net())
            embed = Embed()
            with torch.no_grad():
                for size in (8, 8, 12):
                    img = r(torch.randn(1, 4, size, 8), "b c (h p) (w q) -> b (h w) (c p q)", p=2, q=2)
                    schedule = torch.linspace(1, 0, 3).tolist()
                    for now, later in zip(schedule[:-1], schedule[1:]):
                        img = img + (later - now) * model(img=img, txt=embed(["a fox"]), t=torch.full((1,), now))
    ''')
    assert [(f.compiles, f.calls, f.known) for f in frames] == [(2, 6, True)]  # the third size: once
    assert [(r.guard, r.call_line) for r in recompiles] == [("img", 28)]


def test_a_forward_replaced_by_its_compiled_self_is_the_frame_a_call_runs():
    """minRF's inference notebook: `model.forward = torch.compile(model.forward)`; calling the
    module runs the compiled forward (not the class's forward eagerly)."""
    frames, recompiles = _predict('''\
        import torch
        import torch.nn as nn


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 3)

            def forward(self, features):
                return torch.relu(self.proj(features))


        def run():
            head = Head()
            head.forward = torch.compile(head.forward)
            for rows in (2, 2, 5):
                head(torch.randn(rows, 4))
    ''')
    assert [(f.root, f.compiles, f.calls, f.known) for f in frames] == [("Head.forward", 2, 3, True)]
    assert [(r.guard, r.line) for r in recompiles] == [("features", 10)]


def test_keywords_a_frame_spreads_into_a_helper_are_guarded_where_the_helper_uses_them():
    """tuned/keywords_read_by_frame.py (dynamo 2.13: 3 compiles, `options['scale'] == 1.0` at the
    helper's line, then the grad mode)."""
    path = os.path.join(os.path.dirname(__file__), "recompile_cases", "tuned", "keywords_read_by_frame.py")
    with open(path, encoding="utf-8") as handle:
        frames, recompiles = predict(ast.parse(handle.read()))
    assert [(f.driver, f.compiles, f.known) for f in frames] == [
        ("changing_keyword_then_no_grad", 3, True), ("same_keywords", 1, True)]
    assert [(r.guard, r.line) for r in recompiles] == [("options['scale']", 10), ("global state", 13)]


@pytest.mark.parametrize("frame_body, keywords, followed", [
    ("return helper(x, **options)", {"scale": Const(2.0)}, True),
    ("return helper(x, **options)", {"shift": Const(2.0)}, False),  # no parameter of the helper takes it
    ("return helper(x, **options) + options['scale']", {"scale": Const(2.0)}, False),  # read another way
    ("return torch.relu(x, **options)", {"inplace": Const(False)}, False),  # spread into a library function
])
def test_keywords_are_followed_only_into_the_files_functions(frame_body, keywords, followed):
    from flake8_staticfx.recompiles.keywords import followed as is_followed
    helper = _function("def helper(x, scale=1.0):\n    return x * scale")
    frame = _function("def step(x, **options):\n    " + frame_body)
    assert is_followed(frame, {"helper": helper}, keywords) is followed


_LOADER_DRIVER = """
    import random
    from types import SimpleNamespace
    import torch
    from torch.optim.lr_scheduler import StepLR
    from torch.utils.data import DataLoader, TensorDataset

    args = SimpleNamespace(batch_size=32, epochs=2)

    def run():
        random.seed(1)
        loader = DataLoader(TensorDataset(torch.rand(ROWS, 16), torch.zeros(ROWS)), batch_size=args.batch_size,
                            shuffle=True, drop_last=DROP)
        model = torch.compile(Net())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=1)
        for epoch in range(args.epochs):
            for i, (data, target) in enumerate(loader):
                model(data).sum().backward()
                print(f"epoch {epoch}", 'batch {}/{}'.format(i, len(loader)), '%d rows' % len(loader.dataset))
            scheduler.step()
"""


@pytest.mark.parametrize("rows, drop_last, compiles, calls", [
    (100, False, 2, 8),  # batches of 32, 32, 32 and 4: the last one recompiles with a dynamic batch
    (96, False, 1, 6),  # the batch size divides the rows
    (100, True, 1, 6),  # the smaller last batch dropped
])
def test_a_data_loader_batches_its_rows_and_the_driver_setup_is_passed(rows, drop_last, compiles, calls):
    """tuned/data_loader_batches.py: seeds, a namespace of settings, a scheduler and formatted log
    lines change nothing a guard reads; the DataLoader's batches are its rows cut by batch_size."""
    source = _LOADER_DRIVER.replace("ROWS", str(rows)).replace("DROP", str(drop_last))
    frames, _ = _predict(source, _net(16))
    assert [(frame.compiles, frame.calls, frame.known) for frame in frames] == [(compiles, calls, True)]


@pytest.mark.parametrize("name, sizes, options, shape", [
    ("Conv2d", (3, 4, 4, 2, 1), {}, (2, 4, 4, 4)),  # DCGAN's halving convolution
    ("Conv2d", (3, 4, 3), {"padding": 1}, (2, 4, 8, 8)),
    ("ConvTranspose2d", (3, 4, 4, 2, 1), {}, (2, 4, 16, 16)),  # and its doubling transposed one
    ("ConvTranspose2d", (3, 4, 4, 1, 0), {}, (2, 4, 11, 11)),
    ("Conv2d", (3, 4, 3), {"padding": "same"}, None),  # not followed
])
def test_convolutions_give_torch_sizes(name, sizes, options, shape):
    from flake8_staticfx.recompiles.shapes import layer_output
    from flake8_staticfx.recompiles.values import Layer
    try:
        result = layer_output(Layer(name, sizes, options), [TensorValue((2, 3, 8, 8))], True).shape
    except ShapeUnknown:
        result = None
    assert result == shape


_GAN_DRIVER = """
    from types import SimpleNamespace
    import torch
    import torch.nn as nn

    opt = SimpleNamespace(nz=4)
    nz = int(opt.nz)

    def weights_init(m):
        if m.__class__.__name__.find('Conv') != -1:
            INIT

    class D(nn.Module):
        def __init__(self, ngpu):
            super().__init__()
            self.ngpu = ngpu
            self.main = nn.Sequential(nn.Conv2d(3, 4, 4, 2, 1), nn.Sigmoid())

        def forward(self, input):
            if (input.is_cuda or input.is_xpu) and self.ngpu > 1:
                output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
            else:
                output = self.main(input)
            return output

    def run():
        d = D(NGPU)
        d.apply(weights_init)
        netD = torch.compile(d)
        for size in (16, 16, 8):
            fake = nn.ConvTranspose2d(nz, 3, 4, 2, 1)(torch.randn(size, nz, 4, 4))
            netD(fake.detach())
            netD(fake)
"""


@pytest.mark.parametrize("init, ngpu, compiles", [
    ("torch.nn.init.normal_(m.weight, 0.0, 0.02)", 1, 4),  # tuned/gan_detach.py: requires_grad stays guarded
    ("m.weight = None", 1, None),  # an initialiser that rebinds an attribute: not followed
])
def test_a_gan_discriminator_fed_detached_then_attached_fakes(init, ngpu, compiles):
    frames, _ = _predict(_GAN_DRIVER.replace("INIT", init).replace("NGPU", str(ngpu)))
    assert [frame.compiles for frame in frames if frame.known] == ([compiles] if compiles else [])


@pytest.mark.parametrize("samples, compiles", [(0, 1), (6, 2)])  # no batch drawn; two under no_grad
def test_a_while_loop_of_known_tests_under_th_no_grad(samples, compiles):
    """tuned/th_sampler.py: `import torch as th`, image_sample.py's while loop, `th.no_grad()`."""
    frames, _ = _predict(f"""
        import numpy as np
        import torch as th

        class Net(th.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = th.nn.Linear(4, 4)

            def forward(self, x, t):
                return self.fc(x) * t.float()[:, None]

        def run():
            model = th.compile(Net())
            t = th.from_numpy(np.random.choice(10, size=(4,))).long()
            model(th.rand(4, 4), t)
            images = []
            while len(images) * 4 < {samples}:
                with th.no_grad():
                    images.append(model(th.rand(4, 4), t))
    """)
    assert [(frame.compiles, frame.known) for frame in frames] == [(compiles, True)]


@pytest.mark.parametrize("statement, known", [
    ("os.makedirs(out, exist_ok=True)", True),
    ("logging.info('loss %.4f', loss.item())", True),
    ("watcher.watch(model)", False),  # a library given the module: it may hook it, not followed
    ("helper(model)", False),  # a function not followed, given the module
])
def test_a_library_call_for_its_side_effect_passes_unless_given_the_model(statement, known):
    """tuned/driver_side_effects.py: os.makedirs, logging, time, tqdm and a file opened for
    json.dump change nothing a guard reads."""
    frames, _ = _predict(f"""
        import logging
        import os
        import torch
        import watcher
        from tqdm import tqdm
        from helpers import helper

        def run():
            out = os.path.join("/tmp", "x")
            model = torch.compile(Net())
            for x in tqdm([torch.rand(2, 4), torch.rand(2, 4)], desc="batches"):
                loss = model(x).sum()
                {statement}
            with open(os.path.join(out, "done.json"), "w") as handle:
                handle.write("done")
    """, _net(4))
    assert [(frame.compiles, frame.known) for frame in frames] == [(1, known)]


def test_the_compiled_wrapper_reads_its_modules_attributes():
    """tuned/wrapper_attributes.py: `model.block_size` through `torch.compile(model)` sizes the batch."""
    path = os.path.join(os.path.dirname(__file__), "recompile_cases", "tuned", "wrapper_attributes.py")
    with open(path) as handle:
        frames, _ = predict(ast.parse(handle.read()))
    assert sorted((frame.driver, frame.compiles, frame.known) for frame in frames) == [
        ("full_only", 1, True), ("full_then_half", 2, True)]


def test_a_break_or_continue_whose_test_is_known_ends_or_skips_the_loop():
    """tuned/known_breaks.py: makemore's `while True:` loop ended by `step >= max_steps`."""
    path = os.path.join(os.path.dirname(__file__), "recompile_cases", "tuned", "known_breaks.py")
    with open(path) as handle:
        frames, _ = predict(ast.parse(handle.read()))
    assert sorted((frame.driver, frame.calls, frame.compiles, frame.known) for frame in frames) == [
        ("batches_until_a_limit", 3, 1, True), ("breaks_before_evaluating", 3, 1, True), ("evaluates", 6, 2, True)]


@pytest.mark.parametrize("base, update, known", [
    ("object", "meter.update(loss.item(), 8)", True),  # tuned/plain_objects.py: imagenet's AverageMeter
    ("object", "meter.watch(model)", False),  # given the model: what it does to it is not followed
    ("torch.nn.Module", "meter.update(loss.item(), 8)", False),  # a module's state: not passed over
])
def test_a_plain_objects_method_not_followed_changes_only_itself(base, update, known):
    frames, _ = _predict(f"""
        import torch

        class Meter({base}):
            def __init__(self):
                self.sum = 0

            def update(self, val, n=1):
                self.sum += val * n

            def watch(self, model):
                self.model = model
                self.sum += len(model)

        def run():
            meter = Meter()
            model = torch.compile(Net())
            for _ in range(2):
                loss = model(torch.rand(8, 4)).sum()
                {update}
    """, _net(4))
    assert [(frame.compiles, frame.known) for frame in frames] == [(1, known)]


def test_blocks_built_by_list_concatenation_are_compiled_one_by_one():
    """mnist_forward_forward's `self.layers = self.layers + [Layer(...)]`: the list is followed,
    so the blocks compiled in a loop over it are (the second block's wider input recompiles the
    shared forward, its size guarded)."""
    frames, recompiles = _predict("""
        import torch

        class Block(torch.nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = torch.nn.Linear(width, 8)

            def forward(self, x):
                return self.fc(x)

        class Net(torch.nn.Module):
            def __init__(self, widths):
                super().__init__()
                self.layers = []
                for width in widths:
                    self.layers = self.layers + [Block(width)]

        def run():
            net = Net([4, 6])
            for layer in net.layers:
                layer.compile()
            with torch.no_grad():
                for layer, width in zip(net.layers, [4, 6]):
                    layer(torch.randn(2, width))
    """)
    assert [(f.root, f.compiles, f.known) for f in frames] == [("Block.forward", 2, True)]
    assert [r.rule.code for r in recompiles] == ["SFX504"]
