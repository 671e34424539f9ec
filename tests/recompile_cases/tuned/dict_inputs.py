"""A batch passed as a dict: the same keys in another order do not recompile; a missing key does."""
import torch
import torch.nn as nn


class FeatureFuser(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.image = nn.Linear(width, width)
        self.text = nn.Linear(width, width)

    def forward(self, batch):
        out = self.image(batch["image"])
        if "text" in batch:
            out = out + self.text(batch["text"])
        return out


def reordered_keys():
    model = torch.compile(FeatureFuser())
    image, text = torch.randn(4, 16), torch.randn(4, 16)
    model({"image": image, "text": text})
    model({"text": text, "image": image})


def missing_key():
    model = torch.compile(FeatureFuser())
    image, text = torch.randn(4, 16), torch.randn(4, 16)
    model({"image": image, "text": text})
    model({"image": image})


RECOMPILE_CASES = [
    ("reordered_keys", reordered_keys),
    ("missing_key", missing_key),
]
