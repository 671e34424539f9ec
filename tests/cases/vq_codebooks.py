"""Vector quantizers shared by the codec models of this package."""
import torch
import torch.nn as nn


def cast_tuple(t, length=1):
    return t if isinstance(t, tuple) else (t,) * length


class Quantizer(nn.Module):
    def __init__(self, dim, codebook_size, seeded=False):
        super().__init__()
        self.codebook = nn.Parameter(torch.randn(codebook_size, dim))
        if seeded:  # seeded when the model is built: the branch below is on a Python flag
            self.initted = True
        else:
            self.register_buffer("initted", torch.tensor(False))

    def forward(self, x, transform=None):
        codebook = self.codebook if transform is None else transform(self.codebook)
        if not self.initted:
            # the first batch seeds the codebook, rather than noise
            codebook = x.reshape(-1, x.shape[-1])[: codebook.shape[0]]
        indices = torch.cdist(x, codebook).argmin(-1)
        quantized = codebook[indices]
        return x + (quantized - x).detach(), indices


class ResidualQuantizer(nn.Module):
    """Each stage quantizes what the earlier ones left."""

    def __init__(self, dim=8, codebook_size=16, num_quantizers=3, seeded=False):
        super().__init__()
        sizes = cast_tuple(codebook_size, num_quantizers)
        self.layers = nn.ModuleList([Quantizer(dim, size, seeded) for size in sizes])

    def forward(self, x):
        residual, quantized_out, all_indices = x, torch.zeros_like(x), []
        transforms = (None,) * len(self.layers)
        for layer, transform in zip(self.layers, transforms):
            quantized, indices = layer(residual, transform)
            residual = residual - quantized
            quantized_out = quantized_out + quantized
            all_indices.append(indices)
        return quantized_out, torch.stack(all_indices, -1)
