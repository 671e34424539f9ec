"""Token embedding with position encoding that logs through a module-level logger."""
import logging

import torch
from torch import nn

log = logging.getLogger("text.embedding")


class LoggedEmbedding(nn.Module):
    def __init__(self, vocab=40, dim=16, max_len=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, input_ids):
        log.info("embedding batch of %d sequences", input_ids.shape[0])
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        h = self.tok(input_ids) + self.pos(positions)[None]
        log.debug("embedding norm before layernorm: %s", h.norm(dim=-1).mean())
        return self.norm(h)


CASES = [("LoggedEmbedding", LoggedEmbedding, lambda: (torch.randint(0, 40, (3, 7)),))]
