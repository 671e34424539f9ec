"""A sampler module that turns both capture settings on at module level: .item(), .tolist()
and nonzero() are traced; branching on the captured number is still data-dependent."""
import torch
import torch.nn as nn

torch._dynamo.config.capture_scalar_outputs = True
torch._dynamo.config.capture_dynamic_output_shape_ops = True


class TopPSampler(nn.Module):
    def __init__(self, dim=8, top_p=0.9):
        super().__init__()
        self.head = nn.Linear(dim, 16)
        self.top_p = top_p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = self.head(x).softmax(-1)
        sorted_probs, order = probs.sort(-1, descending=True)
        cutoff = int((sorted_probs.cumsum(-1) < self.top_p).sum(-1).max().item()) + 1
        return order[..., :cutoff], sorted_probs[..., :cutoff]


class CandidateLister(nn.Module):
    def __init__(self, dim=8, vocab=16):
        super().__init__()
        self.head = nn.Linear(dim, vocab)

    def forward(self, x: torch.Tensor):
        logits = self.head(x)
        candidates = logits.topk(3, dim=-1).indices
        positive = torch.nonzero(logits > 0)
        return positive, candidates.tolist()


class AdaptiveDepth(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if h.norm().item() > 1.0:
            h = self.fc(h)
        return h


CASES = [
    ("TopPSampler", TopPSampler, lambda: (torch.randn(2, 8),)),
    ("CandidateLister", CandidateLister, lambda: (torch.randn(2, 8),)),
    ("AdaptiveDepth", AdaptiveDepth, lambda: (torch.randn(2, 8),)),
]
