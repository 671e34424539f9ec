"""Layers and box utilities shared by the vision models of this package (timm / torchvision style)."""
import collections.abc
import functools
import logging
import math
from itertools import repeat

import torch
import torch.nn.functional as F
from torch import nn

_logger = logging.getLogger(__name__)


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


to_2tuple = _ntuple(2)
to_ntuple = _ntuple

_ACT_LAYERS = dict(relu=nn.ReLU, gelu=nn.GELU, silu=nn.SiLU, identity=nn.Identity)


def get_act_layer(name="relu"):
    """An activation class from its name, or the class (or callable) itself."""
    if name is None:
        return None
    if not isinstance(name, str):
        return name
    return _ACT_LAYERS[name.lower()]


def get_norm_layer(norm_layer):
    """A norm class, unwrapping a functools.partial so that its keywords can be rebound."""
    if norm_layer is None:
        return None
    norm_kwargs = {}
    if isinstance(norm_layer, functools.partial):
        norm_kwargs.update(norm_layer.keywords)
        norm_layer = norm_layer.func
    if norm_kwargs:
        norm_layer = functools.partial(norm_layer, **norm_kwargs)
    return norm_layer


def create_attn(attn_layer, channels, **kwargs):
    """The attention module of a block, or None when it has none."""
    if attn_layer is None or isinstance(attn_layer, nn.Module):
        return attn_layer
    return attn_layer(channels, **kwargs)


def create_classifier(num_features, num_classes, pool_type="avg"):
    """Global pooling and the linear classifier of a network's head."""
    if pool_type == "avg":
        global_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(1))
    else:
        global_pool = nn.Sequential(nn.AdaptiveMaxPool2d(1), nn.Flatten(1))
    fc = nn.Linear(num_features, num_classes) if num_classes > 0 else nn.Identity()
    return global_pool, fc


def make_divisible(v, divisor=8, min_value=None, round_limit=0.9):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < round_limit * v:
        new_v += divisor
    return new_v


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    """Drop paths (Stochastic Depth) per sample, applied in the main path of residual blocks."""
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob: float = 0.0, scale_by_keep: bool = True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channel dimension of NCHW tensors."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


def resample_abs_pos_embed(posemb, new_size, num_prefix_tokens=1, interpolation="bicubic", verbose=False):
    """Resize an absolute position embedding table to a new patch grid."""
    num_pos_tokens = posemb.shape[1]
    num_new_tokens = new_size[0] * new_size[1] + num_prefix_tokens
    if num_new_tokens == num_pos_tokens and new_size[0] == new_size[1]:
        return posemb
    if num_prefix_tokens:
        posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    else:
        posemb_prefix = None
    old_size = [int(math.sqrt(num_pos_tokens - num_prefix_tokens))] * 2
    embed_dim = posemb.shape[-1]
    posemb = posemb.reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, align_corners=False)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim)
    if posemb_prefix is not None:
        posemb = torch.cat([posemb_prefix, posemb], dim=1)
    if verbose:
        _logger.info(f"Resized position embedding: {old_size} to {new_size}.")
    return posemb


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def remove_small_boxes(boxes, min_size: float):
    """Indices of the boxes whose both sides are at least `min_size`."""
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    return torch.where(keep)[0]
