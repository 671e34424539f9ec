"""Breaks reached only on one device (`x.is_cuda`, `x.device.type == "cpu"`: dynamo guards on a
tensor's device rather than break). Only the cpu side can be recorded here (`-cpu`); a break
only cuda reaches is label-checked in tests/test_conditions.py."""
import torch
import torch.nn as nn


class DeviceCheck(nn.Module):
    def forward(self, x):
        h = x * 2
        if x.device.type == "cpu":
            print("on cpu")
        if x.device.type != "cuda":
            h = h + h.sum().item()
        return torch.relu(h)


class DeviceAlways(nn.Module):
    """Near miss: the device test picks an op, not a break; the break happens on every device."""

    def forward(self, x):
        if x.is_cuda:
            x = x.half()
        return x * x.max().item()


CASES = [
    ("DeviceCheck-cpu", DeviceCheck, lambda: (torch.randn(2, 8),)),
    ("DeviceAlways-cpu", DeviceAlways, lambda: (torch.randn(2, 8),)),
]
