"""A sampler feeding its own tokens back: the sequence grows by one per call (the second length
recompiles once, then the length is dynamic) until it is cropped to the last `window` tokens,
a view with its base's strides, which the replay does not follow. The recompiles of the calls
before the first crop stay true; after it nothing more is claimed. The near misses: a crop made
contiguous (a fresh tensor of a known shape: no recompile after the length is dynamic), and a
window cropped from the first call on (the crops' strides differ; nothing is claimed)."""
import torch
import torch.nn as nn


class TokenMixer(nn.Module):
    def __init__(self, vocab=16, width=8):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, idx):
        return self.head(self.wte(idx))


def sample(start, steps, window, contiguous):
    torch.manual_seed(0)
    model = torch.compile(TokenMixer())
    idx = torch.zeros((1, start), dtype=torch.long)
    with torch.no_grad():
        for _ in range(steps):
            idx_cond = idx if idx.size(1) <= window else idx[:, -window:]
            if contiguous:
                idx_cond = idx_cond.contiguous()
            logits = model(idx_cond)
            idx_next = torch.multinomial(torch.softmax(logits[:, -1, :], dim=-1), num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)


def grow_then_crop():
    sample(3, 5, 4, False)


def grow_then_contiguous_crop():
    sample(3, 5, 4, True)


def cropped_from_the_start():
    sample(5, 4, 4, False)


RECOMPILE_CASES = [
    ("grow_then_crop", grow_then_crop),
    ("grow_then_contiguous_crop", grow_then_contiguous_crop),
    ("cropped_from_the_start", cropped_from_the_start),
]
