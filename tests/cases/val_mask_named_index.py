"""A tensor input named a mask (`mlm_mask`, `padding_mask`) and not annotated with another dtype
is a boolean mask: indexing with it keeps a number of rows only the data decides (a dynamic output
shape). Writing through the same mask, `masked_fill` with it, an index not named a mask, and a
mask annotated `torch.LongTensor` (a gather) all trace."""
import torch
import torch.nn as nn


class MaskedLMHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Linear(8, 5)

    def forward(self, hidden_states, mlm_mask):
        selected = hidden_states[mlm_mask]
        return self.decoder(selected)


class PaddedFramesPool(nn.Module):
    def forward(self, frames: torch.Tensor, padding_mask: torch.Tensor) -> torch.Tensor:
        return frames[padding_mask].mean(0)


class MaskedWrite(nn.Module):
    def forward(self, hidden_states, mask):
        hidden_states = hidden_states.clone()
        hidden_states[mask] = 0.0
        return hidden_states.masked_fill(mask.unsqueeze(-1), 1.0).sum(1)


class GatheredRows(nn.Module):
    def forward(self, hidden_states, index):
        return hidden_states[index].sum(0)


class LongMaskGather(nn.Module):
    def forward(self, hidden_states: torch.Tensor, token_mask: torch.LongTensor) -> torch.Tensor:
        return hidden_states[:, token_mask].sum(1)


def _mask():
    return torch.arange(12).reshape(2, 6) % 3 == 0  # keeps 4 of the 12 positions


CASES = [
    ("MaskedLMHead", MaskedLMHead, lambda: (torch.randn(2, 6, 8), _mask())),
    ("PaddedFramesPool", PaddedFramesPool, lambda: (torch.randn(2, 6, 8), _mask())),
    ("MaskedWrite", MaskedWrite, lambda: (torch.randn(2, 6, 8), _mask())),
    ("GatheredRows", GatheredRows, lambda: (torch.randn(4, 8), torch.tensor([0, 2, 3]))),
    ("LongMaskGather", LongMaskGather, lambda: (torch.randn(2, 6, 8), torch.tensor([0, 1, 1, 0]))),
]
