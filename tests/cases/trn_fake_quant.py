"""Quantisation-aware training (QAT) layers: asymmetric fake-quantised activations with a
running min/max observer and symmetric per-channel fake-quantised weights.

Rounding goes through the straight-through estimator so the float weights keep receiving
gradients; the observer only moves in training mode, as in ``torch.ao`` FakeQuantize.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def round_ste(x):
    return (x.round() - x).detach() + x


def fake_quantize(x, scale, zero_point, qmin, qmax):
    q = torch.clamp(round_ste(x / scale) + zero_point, qmin, qmax)
    return (q - zero_point) * scale


class MinMaxObserver(nn.Module):
    def __init__(self, num_bits=8, momentum=0.1):
        super().__init__()
        self.qmin, self.qmax = 0, 2 ** num_bits - 1
        self.momentum = momentum
        self.register_buffer("running_min", torch.zeros(()))
        self.register_buffer("running_max", torch.zeros(()))
        self.register_buffer("initialized", torch.zeros((), dtype=torch.bool))

    @torch.no_grad()
    def observe(self, x):
        lo, hi = x.min(), x.max()
        first = ~self.initialized
        self.running_min.copy_(torch.where(first, lo, torch.lerp(self.running_min, lo, self.momentum)))
        self.running_max.copy_(torch.where(first, hi, torch.lerp(self.running_max, hi, self.momentum)))
        self.initialized.fill_(True)

    def forward(self, x):
        if self.training:
            self.observe(x)
        eps = torch.finfo(x.dtype).eps
        scale = ((self.running_max - self.running_min) / float(self.qmax - self.qmin)).clamp_min(eps)
        zero_point = (self.qmin - torch.round(self.running_min / scale)).clamp(self.qmin, self.qmax)
        return fake_quantize(x, scale, zero_point.detach(), self.qmin, self.qmax)


class QuantLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, weight_bits=8, act_bits=8):
        super().__init__(in_features, out_features, bias=bias)
        self.weight_qmax = 2 ** (weight_bits - 1) - 1
        self.act_quant = MinMaxObserver(act_bits)

    def quantized_weight(self):
        scale = self.weight.detach().abs().amax(dim=1, keepdim=True) / self.weight_qmax
        scale = scale.clamp_min(torch.finfo(self.weight.dtype).tiny)
        return fake_quantize(self.weight, scale, 0, -self.weight_qmax - 1, self.weight_qmax)

    def forward(self, x):
        x = self.act_quant(x)
        return F.linear(x, self.quantized_weight(), self.bias)


class QATMLP(nn.Module):
    def __init__(self, dims=(12, 24, 24, 4)):
        super().__init__()
        layers = []
        for i, (d_in, d_out) in enumerate(zip(dims[:-1], dims[1:])):
            layers.append(QuantLinear(d_in, d_out))
            if i < len(dims) - 2:
                layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        for layer in self.net:
            if isinstance(layer, QuantLinear) and x.dim() > 2:
                x = x.flatten(0, -2)
            x = layer(x)
        return x


CASES = [
    ("QATMLP-train", QATMLP, lambda: (torch.randn(6, 12),)),
    ("QATMLP-eval", lambda: QATMLP().eval(), lambda: (torch.randn(6, 12),)),
]
