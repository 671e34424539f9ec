"""CLIP-style image/text contrastive head with a learnable temperature."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ContrastiveHead(nn.Module):
    def __init__(self, image_dim=32, text_dim=24, embed_dim=16, init_temperature=0.07):
        super().__init__()
        self.image_proj = nn.Linear(image_dim, embed_dim, bias=False)
        self.text_proj = nn.Linear(text_dim, embed_dim, bias=False)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / init_temperature)))
        self.max_scale = math.log(100.0)

    def forward(self, image_features, text_features):
        img = F.normalize(self.image_proj(image_features), dim=-1)
        txt = F.normalize(self.text_proj(text_features), dim=-1)
        scale = math.exp(min(self.logit_scale, self.max_scale))
        logits = scale * img @ txt.t()
        targets = torch.arange(logits.shape[0])
        return (F.cross_entropy(logits, targets) + F.cross_entropy(logits.t(), targets)) / 2


CASES = [("ContrastiveHead", ContrastiveHead, lambda: (torch.randn(6, 32), torch.randn(6, 24)))]
