"""A parameter annotated `torch.BoolTensor` is a mask: indexing with it keeps a number of rows
only the data decides (a dynamic output shape), as BEiT's `prediction_scores[bool_masked_pos]`
does, also once `if mask is not None:` has made an optional one definite. A `torch.LongTensor`
index keeps a number of rows the shape decides, and traces."""
from typing import Optional

import torch
import torch.nn as nn


class MaskedTokensHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Linear(8, 5)

    def forward(self, hidden_states: torch.Tensor, bool_masked_pos: torch.BoolTensor) -> torch.Tensor:
        selected = hidden_states[bool_masked_pos]
        return self.decoder(selected)


class KeptTokens(nn.Module):
    def forward(self, hidden_states: torch.Tensor, keep: torch.BoolTensor | None) -> torch.Tensor:
        return hidden_states[keep].sum(0)


class OptionalMaskHead(nn.Module):
    def forward(self, hidden_states: torch.Tensor,
                bool_masked_pos: Optional[torch.BoolTensor] = None) -> torch.Tensor:
        if bool_masked_pos is not None:
            hidden_states = hidden_states[bool_masked_pos]
        return hidden_states * 2


class GatheredTokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Linear(8, 5)

    def forward(self, hidden_states: torch.Tensor, positions: torch.LongTensor) -> torch.Tensor:
        return self.decoder(hidden_states[:, positions])


def _mask():
    mask = torch.rand(2, 6) < 0.5
    mask[0, 0] = True
    return mask


CASES = [
    ("MaskedTokensHead", MaskedTokensHead, lambda: (torch.randn(2, 6, 8), _mask())),
    ("KeptTokens", KeptTokens, lambda: (torch.randn(2, 6, 8), _mask())),
    ("OptionalMaskHead", OptionalMaskHead, lambda: (torch.randn(2, 6, 8), _mask())),
    ("GatheredTokens", GatheredTokens, lambda: (torch.randn(2, 6, 8), torch.tensor([0, 2, 3]))),
]
