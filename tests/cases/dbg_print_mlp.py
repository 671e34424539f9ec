"""Research MLP and conv stems instrumented with print statements while debugging a run."""
import torch
from torch import nn
from torch.nn import functional as F


class DebugMLP(nn.Module):
    """Feed-forward classifier that prints shapes and activation ranges at every stage."""

    def __init__(self, d_in=12, hidden=24, classes=5):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        print("input", tuple(x.shape))
        h = F.gelu(self.fc1(x))
        print(f"fc1 out: mean={h.mean():.4f} std={h.std():.4f}")
        h = F.gelu(self.fc2(h)) + h
        print("fc2 out range", h.min(), h.max())
        logits = self.head(h)
        print("logits", logits.shape, "argmax", logits.argmax(-1))
        return logits


class PrintingStem(nn.Module):
    """A ResNet-style stem left with the prints of a shape-debugging session."""

    def __init__(self, in_ch=3, width=8):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, width, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(width)
        self.pool = nn.MaxPool2d(2)

    def forward(self, images):
        print(f"stem input {images.shape}")  # remove before training
        x = F.relu(self.bn(self.conv(images)))
        print("after conv+bn", x.shape, x.dtype)
        x = self.pool(x)
        print("pooled", x.shape)
        return x


CASES = [
    ("DebugMLP", DebugMLP, lambda: (torch.randn(4, 12),)),
    ("PrintingStem", PrintingStem, lambda: (torch.randn(2, 3, 16, 16),)),
]
