"""NT-Xent on two augmented views (README's self-supervised example) and ArcFace."""
import torch
import torch.nn as nn
from pytorch_metric_learning import losses


class SimCLRHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)
        self.loss_func = losses.NTXentLoss(temperature=0.1)

    def forward(self, view1, view2):
        embeddings = torch.cat([self.proj(view1), self.proj(view2)])
        indices = torch.arange(view1.size(0))
        labels = torch.cat([indices, indices])
        return self.loss_func(embeddings, labels)


class ArcFaceClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.loss_func = losses.ArcFaceLoss(num_classes=3, embedding_size=4)

    def forward(self, x, labels):
        return self.loss_func(self.net(x), labels)


CASES = [
    ("SimCLRHead", lambda: SimCLRHead(), lambda: (torch.randn(4, 8), torch.randn(4, 8))),
    ("ArcFaceClassifier", lambda: ArcFaceClassifier(), lambda: (torch.randn(6, 8), torch.tensor([0, 1, 2, 0, 1, 2]))),
]
