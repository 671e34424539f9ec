"""A decorated compiled function with an int used in range(), called by a training loop; and a
denoiser whose output feeds its next call."""
import torch
import torch.nn as nn


@torch.compile
def unrolled_smoothing(x, passes: int):
    for _ in range(passes):
        x = 0.5 * (x + x.roll(1, dims=-1))
    return x


class Refiner(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, strength: float):
        return x - strength * self.fc(x)


def growing_passes():
    x = torch.randn(4, 16)
    for passes in (1, 2, 3):
        unrolled_smoothing(x, passes)


def chained_refinement():
    model = torch.compile(Refiner())
    x = torch.randn(4, 16)
    with torch.no_grad():
        for step in range(4):
            x = model(x, 1.0 / (step + 1))


RECOMPILE_CASES = [
    ("growing_passes", growing_passes),
    ("chained_refinement", chained_refinement),
]
