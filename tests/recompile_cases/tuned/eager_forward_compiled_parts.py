"""A model whose own forward runs eagerly and calls compiled parts: blocks whose `forward`
carries `@torch.compile()` and a `@torch.compile` function (minRF's MMDiT compiles its blocks,
attention and timestep embedder this way). Each compiled part is a frame of its own, called
with what the eager forward computed (a patchified image through a Sequential, a timestep
embedding): training steps compile each part once; a step under no_grad recompiles each on the
grad mode; a new batch size recompiles each once on a shape; steps of one shape in one mode
(the near miss) compile each part once, whatever the keywords a block's `**kwargs` takes and
never reads."""
import torch
import torch.nn as nn


@torch.compile()
def embed_time(t, table):
    return torch.cat([torch.cos(t[:, None] * table[None]), torch.sin(t[:, None] * table[None])], dim=-1)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.mod = nn.Linear(dim, 2 * dim)

    @torch.compile()
    def forward(self, x, cond, **kwargs):
        shift, scale = self.mod(cond).chunk(2, dim=1)
        return x + self.mlp(self.norm(x) * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1))


class Model(nn.Module):
    def __init__(self, channels=4, patch=2, dim=16, depth=2):
        super().__init__()
        self.patch = patch
        self.embed = nn.Sequential(nn.Linear(patch * patch * channels, dim), nn.SiLU())
        self.time = nn.Linear(dim, dim)
        self.register_buffer("table", torch.linspace(0.0, 1.0, dim // 2))
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def patchify(self, x):
        b, c, h, w = x.shape
        x = x.view(b, c, h // self.patch, self.patch, w // self.patch, self.patch)
        return x.permute(0, 2, 4, 1, 3, 5).flatten(-3).flatten(1, 2)

    def forward(self, x, t, **kwargs):
        x = self.embed(self.patchify(x))
        cond = self.time(embed_time(t, self.table))
        for block in self.blocks:
            x = block(x, cond, **kwargs)
        return x.mean()


def train_then_no_grad():
    model = Model()
    for step in range(3):
        model(torch.randn(2, 4, 8, 8), torch.rand(2)).backward()
    with torch.no_grad():
        model(torch.randn(2, 4, 8, 8), torch.rand(2))


def new_batch_size():
    model = Model()
    model(torch.randn(2, 4, 8, 8), torch.rand(2)).backward()
    model(torch.randn(2, 4, 8, 8), torch.rand(2)).backward()
    model(torch.randn(3, 4, 8, 8), torch.rand(3)).backward()


def same_shapes_one_mode():
    model = Model()
    model.eval()
    with torch.no_grad():
        for step in range(4):
            model(torch.randn(2, 4, 8, 8), torch.rand(2), scale=0.5 * step, mode=str(step))


RECOMPILE_CASES = [
    ("train_then_no_grad", train_then_no_grad),
    ("new_batch_size", new_batch_size),
    ("same_shapes_one_mode", same_shapes_one_mode),
]
