"""A flag that is a tensor only after a training-mode branch (`skip = False`, then
`if self.training: skip = torch.rand([]) < p`), as transformers' layerdrop loops have it:
testing it breaks in training mode only. The cases are named by the mode (`-train`, `-eval`)."""
import torch
import torch.nn as nn


class EncoderConfig:
    layerdrop = 0.1


class LayerDropEncoder(nn.Module):
    def __init__(self, config=EncoderConfig()):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            skip_the_layer = False
            if self.training and self.config.layerdrop > 0.0:
                dropout_probability = torch.rand([])
                skip_the_layer = dropout_probability < self.config.layerdrop
            if not skip_the_layer:
                x = layer(x)
        return x


class StochasticSkip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        skip = False
        if self.training:
            skip = torch.rand([]) < self.p
        if skip:
            return x
        return self.proj(x)


class MaskTestedForNone(nn.Module):
    """Near miss: the mask made in training is only compared with None and multiplied."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        mask = None
        if self.training:
            mask = torch.rand_like(x) > self.p
        h = self.proj(x)
        if mask is not None:
            h = h * mask
        return h


class NoiseByConstructor(nn.Module):
    """Near miss: the tensor flag needs a constructor argument the model is not built with."""

    def __init__(self, noisy=False):
        super().__init__()
        self.noisy = noisy
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        flip = False
        if self.noisy:
            flip = torch.rand([]) < 0.5
        if flip:
            x = -x
        return self.proj(x)


CASES = [
    ("LayerDropEncoder-train", LayerDropEncoder, lambda: (torch.randn(2, 8),)),
    ("LayerDropEncoder-eval", lambda: LayerDropEncoder().eval(), lambda: (torch.randn(2, 8),)),
    ("StochasticSkip-train", StochasticSkip, lambda: (torch.randn(2, 8),)),
    ("StochasticSkip-eval", lambda: StochasticSkip().eval(), lambda: (torch.randn(2, 8),)),
    ("MaskTestedForNone-train", MaskTestedForNone, lambda: (torch.randn(2, 8),)),
    ("MaskTestedForNone-eval", lambda: MaskTestedForNone().eval(), lambda: (torch.randn(2, 8),)),
    ("NoiseByConstructor-train", NoiseByConstructor, lambda: (torch.randn(2, 8),)),
    ("NoiseByConstructor-eval", lambda: NoiseByConstructor().eval(), lambda: (torch.randn(2, 8),)),
]
