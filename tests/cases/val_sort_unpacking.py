"""Rankers that unpack sort/max results into names: `values, idx = x.max(-1)` and
`_, order = scores.sort()` give tensors, so gathering with them traces, while a branch on an
index, or .tolist() of the top indices, needs the data."""
import torch
import torch.nn as nn


class ArgmaxGather(nn.Module):
    def forward(self, logits: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        best, idx = logits.max(-1)
        _, order = logits.sort(-1, descending=True)
        return feats.gather(1, idx[:, None, None].expand(-1, 1, feats.shape[-1])).squeeze(1) * best[:, None] \
            + order[:, :1].float()


class FirstClassShortcut(nn.Module):
    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        _, idx = logits.max(-1)
        if idx[0] == 0:
            return logits * 0
        return logits


class TopIndexList(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        top = torch.topk(scores, 2, dim=-1)[1].tolist()
        return scores * len(top)


CASES = [
    ("ArgmaxGather", ArgmaxGather, lambda: (torch.randn(2, 5), torch.randn(2, 5, 3))),
    ("FirstClassShortcut", FirstClassShortcut, lambda: (torch.randn(3, 4),)),
    ("TopIndexList", TopIndexList, lambda: (torch.randn(2, 5),)),
]
