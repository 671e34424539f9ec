"""Linear probe over a frozen feature extractor."""
import torch
import torch.nn as nn


class LinearProbe(nn.Module):
    def __init__(self, dim=16, classes=5, freeze=True):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 32))
        self.classifier = nn.Linear(32, classes)
        if freeze:
            self.freeze_backbone()

    def freeze_backbone(self):
        for p in self.backbone.parameters():
            p.requires_grad_(False)
        self.backbone.eval()

    def forward(self, x):
        frozen = not self.backbone[0].weight.requires_grad
        if frozen:
            with torch.no_grad():
                feats = self.backbone(x)
        else:
            feats = self.backbone(x)
        return self.classifier(feats)


CASES = [
    ("LinearProbe", LinearProbe, lambda: (torch.randn(3, 16),)),
    ("LinearProbe-finetune", lambda: LinearProbe(freeze=False), lambda: (torch.randn(3, 16),)),
]
