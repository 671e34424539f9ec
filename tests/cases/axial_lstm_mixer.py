"""Axial token mixers in the style of timm's Sequencer2d: the base class's forward runs its
vertical and horizontal mixers only under `if self.with_vertical:` / `if self.with_horizontal:`,
flags its `__init__` decides from the `union` argument, and keeps identity placeholders; the LSTM
subclass has no forward of its own and replaces the placeholders after `super().__init__()`
under the same flags. The block takes the mixer class as a default argument and the stage
builds its blocks in a loop, handing down its own `union`. The first LSTM call breaks (GB0014)
and the rest of forward runs eagerly, the horizontal LSTM included."""
import torch
import torch.nn as nn


class RecurrentIdentity(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x, None


class AxialMixerBase(nn.Module):
    def __init__(self, dim, hidden, union="cat", with_fc=True):
        super().__init__()
        self.union = union
        self.with_vertical = True
        self.with_horizontal = True
        self.fc = None
        if with_fc:
            if union == "cat":
                self.fc = nn.Linear(4 * hidden, dim)
            elif union == "vertical":
                self.fc = nn.Linear(2 * hidden, dim)
                self.with_horizontal = False
            elif union == "horizontal":
                self.fc = nn.Linear(2 * hidden, dim)
                self.with_vertical = False
            else:
                raise ValueError("Unrecognized union: " + union)
        self.rnn_v = RecurrentIdentity()
        self.rnn_h = RecurrentIdentity()

    def forward(self, x):
        B, H, W, C = x.shape
        if self.with_vertical:
            v = x.permute(0, 2, 1, 3).reshape(-1, H, C)
            v, _ = self.rnn_v(v)
            v = v.reshape(B, W, H, -1).permute(0, 2, 1, 3)
        else:
            v = None
        if self.with_horizontal:
            h, _ = self.rnn_h(x.reshape(-1, W, C))
            h = h.reshape(B, H, W, -1)
        else:
            h = None
        if v is not None and h is not None:
            x = torch.cat([v, h], dim=-1)
        elif v is not None:
            x = v
        else:
            x = h
        if self.fc is not None:
            x = self.fc(x)
        return x


class LSTMAxialMixer(AxialMixerBase):
    def __init__(self, dim, hidden, union="cat", with_fc=True):
        super().__init__(dim, hidden, union, with_fc)
        if self.with_vertical:
            self.rnn_v = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        if self.with_horizontal:
            self.rnn_h = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)


class MixerBlock(nn.Module):
    def __init__(self, dim, hidden, mixer_layer=LSTMAxialMixer, union="cat"):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mixer = mixer_layer(dim, hidden, union=union)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class MixerStage(nn.Module):
    def __init__(self, dim=8, hidden=4, depth=2, block_layer=MixerBlock, mixer_layer=LSTMAxialMixer, union="cat"):
        super().__init__()
        blocks = []
        for _ in range(depth):
            blocks.append(block_layer(dim, hidden, mixer_layer=mixer_layer, union=union))
        self.blocks = nn.Sequential(*blocks)

    def forward(self, x):
        return self.blocks(x)


CASES = [
    ("MixerStage", MixerStage, lambda: (torch.randn(2, 3, 5, 8),)),
]
