"""improved-diffusion's script shape: `import torch as th`, a schedule from `np.linspace`, training
timesteps drawn by `np.random.choice(T, size=(b,))` and read with `th.from_numpy`, and
image_sample.py's `while len(all_images) * batch_size < num_samples:` loop drawing batches under
`with th.no_grad()`. Training then sampling at another batch size recompiles on the grad mode and
then on the batch; sampling alone at one batch size compiles once (the near miss), and so does a
sampler whose batches all fit one size."""
import numpy as np
import torch as th
import torch.nn as nn

IMAGE_SIZE = 8


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.time = nn.Linear(1, 3)

    def forward(self, x, t):
        return self.conv(x) + self.time(t.float()[:, None])[:, :, None, None]


class Diffusion:
    def __init__(self, steps):
        self.betas = np.linspace(1e-4, 0.02, steps)
        self.num_timesteps = int(self.betas.shape[0])

    def p_sample_loop(self, model, shape):
        img = th.randn(*shape)
        for i in list(range(self.num_timesteps))[::-1]:
            t = th.tensor([i] * shape[0])
            with th.no_grad():
                img = img - 0.1 * model(img, t)
        return img


def train(model, diffusion, steps, batch_size):
    opt = th.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(steps):
        batch = th.rand(batch_size, 3, IMAGE_SIZE, IMAGE_SIZE)
        t = th.from_numpy(np.random.choice(diffusion.num_timesteps, size=(batch_size,))).long()
        opt.zero_grad()
        ((model(batch, t) - batch) ** 2).mean().backward()
        opt.step()


def sample(model, diffusion, num_samples, batch_size):
    all_images = []
    while len(all_images) * batch_size < num_samples:
        images = diffusion.p_sample_loop(model, (batch_size, 3, IMAGE_SIZE, IMAGE_SIZE))
        all_images.append(images)
    return all_images


def train_then_sample():
    np.random.seed(0)
    model = th.compile(Denoiser())
    diffusion = Diffusion(5)
    train(model, diffusion, steps=3, batch_size=4)
    sample(model, diffusion, num_samples=6, batch_size=3)


def sample_only():
    np.random.seed(0)
    model = th.compile(Denoiser())
    sample(model, Diffusion(5), num_samples=8, batch_size=4)


RECOMPILE_CASES = [
    ("train_then_sample", train_then_sample),
    ("sample_only", sample_only),
]
