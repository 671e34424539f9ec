"""Residual VQ, FSQ and LFQ, called as the README shows."""
import torch
import torch.nn as nn
from vector_quantize_pytorch import FSQ, LFQ, ResidualVQ


class ResidualCodec(nn.Module):
    def __init__(self):
        super().__init__()
        self.rvq = ResidualVQ(dim=16, num_quantizers=3, codebook_size=32)

    def forward(self, x):
        quantized, indices, commit_loss = self.rvq(x)
        return quantized, commit_loss.sum()


class FSQCodec(nn.Module):
    def __init__(self):
        super().__init__()
        self.quantizer = FSQ(levels=[8, 5, 5])

    def forward(self, x):
        xhat, indices = self.quantizer(x)
        return xhat, indices


class LFQCodec(nn.Module):
    def __init__(self):
        super().__init__()
        self.quantizer = LFQ(codebook_size=16, dim=16, entropy_loss_weight=0.1, diversity_gamma=1.0)

    def forward(self, image_feats):
        quantized, indices, entropy_aux_loss = self.quantizer(image_feats)
        return quantized, entropy_aux_loss


CASES = [
    ("ResidualCodec", lambda: ResidualCodec(), lambda: (torch.randn(2, 10, 16),)),
    ("FSQCodec", lambda: FSQCodec(), lambda: (torch.randn(2, 10, 3),)),
    ("LFQCodec", lambda: LFQCodec(), lambda: (torch.randn(2, 16, 4, 4),)),
]
