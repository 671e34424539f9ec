"""Constrained next-token sampling for a decoder LM head (grammar / vocabulary-restricted decoding).

Only tokens allowed by a vocabulary mask may be generated; sampling uses a temperature and an
optional seed so that a decoding run can be reproduced.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.compile
def sample_next_token(logits, temperature=1.0, seed=None):
    probs = F.softmax(logits / temperature, dim=-1)
    if seed is not None:
        torch.manual_seed(seed)
    return torch.multinomial(probs, num_samples=1).squeeze(-1)


@torch.compiler.disable
def describe_allowed(allowed_ids):
    return ",".join(str(i) for i in allowed_ids.tolist())


class ConstrainedLMHead(nn.Module):
    def __init__(self, hidden=16, vocab_size=20, allowed=(2, 3, 5, 7, 11, 13)):
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab_size, bias=False)
        mask = torch.zeros(vocab_size, dtype=torch.bool)
        mask[list(allowed)] = True
        self.register_buffer("allowed_mask", mask)
        self.debug = False

    @property
    def allowed_token_ids(self):
        return self.allowed_mask.nonzero().squeeze(-1)

    def forward(self, hidden_states, temperature=0.8):
        logits = self.lm_head(hidden_states[:, -1])
        allowed = self.allowed_token_ids
        restricted = logits.index_select(-1, allowed)
        if self.debug:
            self.last_allowed = describe_allowed(allowed)
        probs = F.softmax(restricted / temperature, dim=-1)
        choice = probs.argmax(dim=-1)
        return allowed[choice], probs


CASES = [
    ("sample_next_token", lambda: sample_next_token, lambda: (torch.randn(3, 10), 0.7, 1234)),
    ("ConstrainedLMHead", ConstrainedLMHead, lambda: (torch.randn(2, 4, 16),)),
]
