"""Rankers that use the fields of max/sort/topk results in Python control flow: indexing with
them traces, but comparing `torch.max(x, 1).values` in an `if`, or looping over
`.indices.tolist()`, needs the data."""
import torch
import torch.nn as nn


class SortedGather(nn.Module):
    def forward(self, scores: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        order = scores.sort(-1, descending=True).indices
        best = torch.topk(scores, 2, dim=-1)[1]
        return feats.gather(1, order[..., None].expand_as(feats)) + best.sum()


class ConfidentOnly(nn.Module):
    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        conf = torch.max(logits.softmax(-1), 1).values
        if conf.min() < 0.2:
            return logits * 0
        return logits


class TopIndexLoop(nn.Module):
    def forward(self, scores: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        picked = []
        for i in torch.topk(scores, 2).indices.tolist():
            picked.append(feats[i])
        return torch.stack(picked)


CASES = [
    ("SortedGather", SortedGather, lambda: (torch.randn(2, 4), torch.randn(2, 4, 3))),
    ("ConfidentOnly", ConfidentOnly, lambda: (torch.randn(3, 5),)),
    ("TopIndexLoop", TopIndexLoop, lambda: (torch.randn(5), torch.randn(5, 3))),
]
