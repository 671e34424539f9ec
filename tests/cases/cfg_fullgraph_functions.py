"""Functions compiled with fullgraph=True: .item() and nonzero() are captured in the graph
(fullgraph turns scalar and dynamic-shape capture on), and a function without the flag that
does the same splits its graph."""
import torch
import torch.nn.functional as F


@torch.compile(fullgraph=True)
def normalized_logits(logits: torch.Tensor) -> torch.Tensor:
    peak = logits.abs().max().item()
    return logits / (peak + 1e-6)


@torch.compile(fullgraph=True, dynamic=False)
def active_rows(x: torch.Tensor) -> torch.Tensor:
    rows = torch.nonzero(x.sum(-1) > 0).squeeze(-1)
    return F.relu(x[rows])


@torch.compile
def rescaled(logits: torch.Tensor) -> torch.Tensor:
    peak = logits.abs().max().item()
    return logits / (peak + 1e-6)


CASES = [
    ("normalized_logits", lambda: normalized_logits, lambda: (torch.randn(4, 8),)),
    ("active_rows", lambda: active_rows, lambda: (torch.randn(4, 8),)),
    ("rescaled", lambda: rescaled, lambda: (torch.randn(4, 8),)),
]
