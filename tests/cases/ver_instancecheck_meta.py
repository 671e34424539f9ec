"""A shape annotation class in the style of jaxtyping/beartype: its metaclass defines
__instancecheck__, so `isinstance(x, Float)` runs Python code on the tensor. Dynamo 2.14 breaks
there (2.13 traced one branch silently). isinstance with torch.Tensor, and with a plain class,
trace in every version."""
import torch
import torch.nn as nn


class _ShapeMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, torch.Tensor) and obj.dim() == cls.ndim


class Matrix(metaclass=_ShapeMeta):
    ndim = 2


class Marker:
    pass


class ShapeChecked(nn.Module):
    def forward(self, x):
        if isinstance(x, Matrix):
            return x * 2
        return x.flatten(1) * 2


class TensorChecked(nn.Module):
    def forward(self, x):
        if isinstance(x, torch.Tensor):
            return x * 2
        return x


class MarkerChecked(nn.Module):
    def forward(self, x):
        if isinstance(x, Marker):
            return x
        return x * 2


CASES = [
    ("ShapeChecked", ShapeChecked, lambda: (torch.randn(2, 4),)),
    ("TensorChecked", TensorChecked, lambda: (torch.randn(2, 4),)),
    ("MarkerChecked", MarkerChecked, lambda: (torch.randn(2, 4),)),
]
