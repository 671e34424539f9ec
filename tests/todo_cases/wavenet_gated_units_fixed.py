"""VITS-style WaveNet: weight-normed dilated convolutions with gated tanh/sigmoid units, the
channel split given as a one-element IntTensor (as transformers' VitsWaveNet does)."""
import torch
from torch import nn


def gated_units(input_a, input_b, num_channels):
    in_act = input_a + input_b
    t_act = torch.tanh(in_act[:, :8, :])
    s_act = torch.sigmoid(in_act[:, num_channels:, :])
    return t_act * s_act


class WaveNet(nn.Module):
    def __init__(self, hidden_size=8, num_layers=2, kernel_size=3, cond_size=4):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.in_layers = nn.ModuleList()
        if hasattr(nn.utils.parametrizations, "weight_norm"):
            weight_norm = nn.utils.parametrizations.weight_norm
        else:
            weight_norm = nn.utils.weight_norm
        self.cond_layer = weight_norm(nn.Conv1d(cond_size, 2 * hidden_size * num_layers, 1), name="weight")
        for i in range(num_layers):
            dilation = 2**i
            in_layer = nn.Conv1d(hidden_size, 2 * hidden_size, kernel_size, dilation=dilation,
                                 padding=(kernel_size * dilation - dilation) // 2)
            self.in_layers.append(weight_norm(in_layer, name="weight"))

    def channel_split(self):
        return torch.IntTensor([self.hidden_size])[0]

    def forward(self, inputs, padding_mask, global_conditioning=None):
        num_channels = self.channel_split()
        if global_conditioning is not None:
            global_conditioning = self.cond_layer(global_conditioning)
        for i in range(self.num_layers):
            hidden_states = self.in_layers[i](inputs)
            if global_conditioning is not None:
                offset = i * 2 * self.hidden_size
                global_states = global_conditioning[:, offset: offset + 2 * self.hidden_size, :]
            else:
                global_states = torch.zeros_like(hidden_states)
            acts = gated_units(hidden_states, global_states, num_channels)
            inputs = (inputs + acts) * padding_mask
        return inputs


class IntSplitWaveNet(WaveNet):
    """Near-miss: the channel split is the Python int itself."""

    def channel_split(self):
        return self.hidden_size


def _inputs():
    return torch.randn(2, 8, 10), torch.ones(2, 1, 10), torch.randn(2, 4, 10)


CASES = [
    ("WaveNet", WaveNet, _inputs),
    ("IntSplitWaveNet", IntSplitWaveNet, _inputs),
]
