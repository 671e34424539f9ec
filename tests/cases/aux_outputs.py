"""Heads whose optional outputs are collected in a list or a dict, only when configured."""
import torch
import torch.nn as nn


class AuxHeadClassifier(nn.Module):
    """Without the auxiliary head (the default) the list stays empty and the scalar path runs."""

    def __init__(self, dim=16, classes=4, aux_head=False):
        super().__init__()
        self.aux_head = aux_head
        self.fc = nn.Linear(dim, classes)
        self.aux = nn.Linear(dim, classes)

    def forward(self, x):
        outputs = []
        if self.aux_head:
            outputs.append(self.aux(x))
        logits = self.fc(x)
        if not outputs:
            confidence = logits.softmax(-1).max().item()
            return logits * confidence
        return logits + outputs[0]


class AlwaysAuxClassifier(nn.Module):
    """The list always gets its item: the scalar path never runs."""

    def __init__(self, dim=16, classes=4):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.aux = nn.Linear(dim, classes)

    def forward(self, x):
        outputs = [self.aux(x)]
        logits = self.fc(x)
        if not outputs:
            return logits * logits.max().item()
        return logits + outputs[0]


class FeatureReturningEncoder(nn.Module):
    """Features go into a dict only on request; without them a norm is read as a Python float."""

    def __init__(self, dim=16, return_features=False):
        super().__init__()
        self.return_features = return_features
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        extras = {}
        h = torch.relu(self.proj(x))
        if self.return_features:
            extras["features"] = h
        if "features" not in extras:
            scale = h.norm().item()
            h = h / (scale + 1.0)
        return h


CASES = [
    ("AuxHeadClassifier", AuxHeadClassifier, lambda: (torch.randn(2, 16),)),
    ("AlwaysAuxClassifier", AlwaysAuxClassifier, lambda: (torch.randn(2, 16),)),
    ("FeatureReturningEncoder", FeatureReturningEncoder, lambda: (torch.randn(2, 16),)),
]
