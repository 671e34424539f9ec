"""PerceiverLM as the README shows: token ids in, logits out, with a padding mask."""
import torch
import torch.nn as nn
from perceiver_pytorch import PerceiverLM


def tiny_lm():
    return PerceiverLM(num_tokens=50, dim=16, depth=2, max_seq_len=16, num_latents=8, latent_dim=16,
                       cross_heads=1, latent_heads=2, cross_dim_head=8, latent_dim_head=8,
                       weight_tie_layers=False)


class MaskedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = tiny_lm()

    def forward(self, seq, mask):
        return self.lm(seq, mask=mask)


CASES = [
    ("PerceiverLM", tiny_lm, lambda: (torch.randint(0, 50, (1, 12)),)),
    ("MaskedLM", lambda: MaskedLM(),
     lambda: (torch.randint(0, 50, (2, 12)), torch.tensor([[True] * 12, [True] * 8 + [False] * 4]))),
]
