"""MoCo v2: a query encoder, a momentum-updated key encoder and a queue of negative keys.

The key encoder is cloned from the query encoder the first time the model runs, so that a
checkpoint of the query encoder alone can be fine-tuned into a MoCo model.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class MoCo(nn.Module):
    def __init__(self, dim=16, feat_dim=8, queue_size=32, momentum=0.99, temperature=0.2):
        super().__init__()
        self.encoder_q = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, feat_dim))
        self.encoder_k = None
        self.momentum = momentum
        self.temperature = temperature
        self.register_buffer("queue", F.normalize(torch.randn(feat_dim, queue_size), dim=0))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        if self.encoder_k is None:
            self.encoder_k = copy.deepcopy(self.encoder_q)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.mul_(self.momentum).add_(param_q.detach(), alpha=1.0 - self.momentum)

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        self._momentum_update_key_encoder()
        with torch.no_grad():
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", q, self.queue.clone().detach())
        logits = torch.cat([l_pos, l_neg], dim=1) / self.temperature
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        return F.cross_entropy(logits, labels)


CASES = [("MoCo", MoCo, lambda: (torch.randn(4, 16), torch.randn(4, 16)))]
