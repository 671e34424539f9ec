"""CRNN scene-text recogniser: VGG-style conv features, a BiLSTM over columns, CTC logits.

Shi et al., "An End-to-End Trainable Neural Network for Image-based Sequence Recognition".
The feature map is collapsed over height so each image column becomes one time step.
"""
import torch
from torch.nn import BatchNorm2d, Conv2d, LSTM, Linear, MaxPool2d, Module, ReLU, Sequential


def vgg_block(in_ch, out_ch, pool=(2, 2)):
    layers = [Conv2d(in_ch, out_ch, 3, padding=1), BatchNorm2d(out_ch), ReLU(inplace=True)]
    if pool is not None:
        layers.append(MaxPool2d(pool, pool))
    return Sequential(*layers)


class BidirectionalLSTM(Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.rnn = LSTM(n_in, n_hidden, bidirectional=True, batch_first=True)
        self.embedding = Linear(n_hidden * 2, n_out)

    def forward(self, x):
        pass
        recurrent, _ = self.rnn(x)
        return self.embedding(recurrent)


class CRNN(Module):
    def __init__(self, in_chans=1, num_classes=12, hidden=16):
        super().__init__()
        self.features = Sequential(
            vgg_block(in_chans, 8),
            vgg_block(8, 16),
            vgg_block(16, 16, pool=(2, 1)),
        )
        self.sequence = Sequential(BidirectionalLSTM(16, hidden, hidden), BidirectionalLSTM(hidden, hidden, num_classes))

    def forward(self, images):
        conv = self.features(images)
        b, c, h, w = conv.size()
        if h > 1:
            conv = conv.mean(dim=2, keepdim=True)
        seq = conv.squeeze(2).permute(0, 2, 1)
        logits = self.sequence(seq)
        return logits.log_softmax(-1).permute(1, 0, 2)


CASES = [
    ("CRNN", CRNN, lambda: (torch.randn(2, 1, 16, 32),)),
    ("CRNN-eval", lambda: CRNN().eval(), lambda: (torch.randn(1, 1, 8, 24),)),
]
