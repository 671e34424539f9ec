"""Self-attention that accepts several optional mask formats (HuggingFace style)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class FlexibleSelfAttention(nn.Module):
    def __init__(self, dim=16, heads=2, dropout=0.1):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.dropout = dropout

    def forward(self, hidden, attention_mask=None, head_mask=None, output_attentions=False, **kwargs):
        b, n, d = hidden.shape
        q, k, v = self.qkv(hidden).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        if attention_mask is not None:
            if attention_mask.dtype == torch.bool:
                scores = scores.masked_fill(~attention_mask[:, None, None, :], torch.finfo(scores.dtype).min)
            else:
                scores = scores + (1.0 - attention_mask[:, None, None, :]) * -1e4
        probs = F.softmax(scores, dim=-1)
        probs = F.dropout(probs, self.dropout, self.training)
        if head_mask is not None:
            probs = probs * head_mask
        if kwargs.get("return_scores", False):
            return scores
        y = self.out((probs @ v).transpose(1, 2).reshape(b, n, d))
        return (y, probs) if output_attentions else (y,)


CASES = [
    ("FlexibleSelfAttention-bool", lambda: FlexibleSelfAttention().eval(),
     lambda: (torch.randn(2, 4, 16), torch.tensor([[True, True, True, False], [True] * 4]))),
    ("FlexibleSelfAttention-float", FlexibleSelfAttention,
     lambda: (torch.randn(2, 4, 16), torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0] * 4]))),
]
