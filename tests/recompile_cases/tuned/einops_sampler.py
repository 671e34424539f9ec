"""A sampler written the way FLUX's is: the latent image patchified with einops' `rearrange`,
its position ids built with einops' `repeat`, a prompt embedder that is a plain object with
`__call__`, a schedule from `linspace(...).tolist()` walked in pairs with `zip`, the compiled
denoiser called with keywords (recording needs einops). A second resolution recompiles once on the
image's length; several guidance scales and seeds at one resolution (the near miss) compile once."""
import torch
import torch.nn as nn
from einops import rearrange, repeat


class Denoiser(nn.Module):
    def __init__(self, channels=16, width=32, context=8):
        super().__init__()
        self.img_in = nn.Linear(channels * 4, width)
        self.ids_in = nn.Linear(3, width)
        self.txt_in = nn.Linear(context, width)
        self.out = nn.Linear(width, channels * 4)

    def forward(self, img, img_ids, txt, timesteps, guidance):
        h = self.img_in(img) + self.ids_in(img_ids) + self.txt_in(txt).mean(dim=1, keepdim=True)
        h = h * (1 + timesteps[:, None, None]) * guidance[:, None, None]
        return self.out(h)


class Embedder:
    def __init__(self, width):
        self.width = width

    def __call__(self, prompts):
        generator = torch.Generator().manual_seed(len(prompts[0]))
        return torch.randn(len(prompts), 6, self.width, generator=generator)


def prepare(embedder, x, prompt):
    bs, c, h, w = x.shape
    img = rearrange(x, "b c (h ph) (w pw) -> b (h w) (c ph pw)", ph=2, pw=2)
    img_ids = torch.zeros(h // 2, w // 2, 3)
    img_ids = repeat(img_ids, "h w c -> b (h w) c", b=bs)
    return img, img_ids, embedder([prompt])


def sample(model, embedder, height, width, steps, guidance, seed=0):
    x = torch.randn(1, 16, height // 8, width // 8, generator=torch.Generator().manual_seed(seed))
    img, img_ids, txt = prepare(embedder, x, "a fox")
    timesteps = torch.linspace(1, 0, steps + 1).tolist()
    guidance_vec = torch.full((img.shape[0],), guidance)
    for t_curr, t_prev in zip(timesteps[:-1], timesteps[1:]):
        t_vec = torch.full((img.shape[0],), t_curr)
        pred = model(img=img, img_ids=img_ids, txt=txt, timesteps=t_vec, guidance=guidance_vec)
        img = img + (t_prev - t_curr) * pred
    return img


def two_resolutions():
    model = torch.compile(Denoiser().eval())
    embedder = Embedder(8)
    with torch.inference_mode():
        sample(model, embedder, 64, 64, 2, 3.5)
        sample(model, embedder, 96, 64, 2, 3.5)


def guidance_scales():
    model = torch.compile(Denoiser().eval())
    embedder = Embedder(8)
    with torch.inference_mode():
        for seed, guidance in enumerate((2.5, 3.5, 5.0)):
            sample(model, embedder, 64, 64, 2, guidance, seed=seed)


RECOMPILE_CASES = [
    ("two_resolutions", two_resolutions),
    ("guidance_scales", guidance_scales),
]
