"""A model file of the size editors open all day (about 500 lines): timm-style layers, a Swin
block, T5 relative attention, gated residuals and an output dataclass, assembled from
tests/cases for benchmarks/server_latency.py."""
from collections import OrderedDict
from dataclasses import dataclass, fields
from itertools import repeat
from torch import nn
import collections.abc
import functools
import logging
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


# ---- vis layers --------------------------------------------------------------------------------
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


# ---- vis swin window ---------------------------------------------------------------------------
def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size[0], window_size[0], W // window_size[1], window_size[1], C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size[0] * window_size[1], C)


def window_reverse(windows, window_size, H: int, W: int):
    C = windows.shape[-1]
    x = windows.view(-1, H // window_size[0], W // window_size[1], window_size[0], window_size[1], C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)


def get_relative_position_index(win_h, win_w):
    coords = torch.stack(torch.meshgrid(torch.arange(win_h), torch.arange(win_w), indexing="ij"))
    coords_flatten = torch.flatten(coords, 1)
    relative = (coords_flatten[:, :, None] - coords_flatten[:, None, :]).permute(1, 2, 0).contiguous()
    relative[:, :, 0] += win_h - 1
    relative[:, :, 1] += win_w - 1
    relative[:, :, 0] *= 2 * win_w - 1
    return relative.sum(-1)


class SwinTransformerBlock(nn.Module):
    def __init__(self, dim=16, num_heads=2, window_size=4, shift_size=0):
        super().__init__()
        self.window_size = to_2tuple(window_size)
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        win_h, win_w = self.window_size
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * win_h - 1) * (2 * win_w - 1), num_heads))
        self.register_buffer("relative_position_index", get_relative_position_index(win_h, win_w), persistent=False)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def _attn_mask(self, Hp, Wp, device):
        img_mask = torch.zeros((1, Hp, Wp, 1), device=device)
        cnt = 0
        for h in (slice(0, -self.window_size[0]), slice(-self.window_size[0], -self.shift_size), slice(-self.shift_size, None)):
            for w in (slice(0, -self.window_size[1]), slice(-self.window_size[1], -self.shift_size), slice(-self.shift_size, None)):
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, self.window_size).squeeze(-1)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        return attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))

    def _window_attention(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(N, N, -1)
        attn = attn + bias.permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            num_win = mask.shape[0]
            attn = attn.view(-1, num_win, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        x = (attn.softmax(-1) @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)

    def forward(self, x):
        B, H, W, C = x.shape
        shortcut = x
        x = self.norm1(x)
        pad_h = (self.window_size[0] - H % self.window_size[0]) % self.window_size[0]
        pad_w = (self.window_size[1] - W % self.window_size[1]) % self.window_size[1]
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
        _, Hp, Wp, _ = x.shape
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            mask = self._attn_mask(Hp, Wp, x.device)
        else:
            mask = None
        x = window_reverse(self._window_attention(window_partition(x, self.window_size), mask), self.window_size, Hp, Wp)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        x = x[:, :H, :W, :].contiguous()
        x = shortcut + x
        return x + self.mlp(self.norm2(x))


# ---- nlp t5 relative bias ----------------------------------------------------------------------
class T5RelativeAttention(nn.Module):
    def __init__(self, d_model=16, n_heads=2, num_buckets=8, max_distance=16,
                 is_decoder=False, has_relative_attention_bias=False):
        super().__init__()
        self.n_heads = n_heads
        self.key_value_proj_dim = d_model // n_heads
        self.is_decoder = is_decoder
        self.relative_attention_num_buckets = num_buckets
        self.relative_attention_max_distance = max_distance
        self.has_relative_attention_bias = has_relative_attention_bias
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length, device=None):
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        buckets = self._relative_position_bucket(
            relative_position,
            bidirectional=(not self.is_decoder),
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden_states, position_bias=None):
        batch_size, seq_length = hidden_states.shape[:2]
        shape = lambda s: s.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)
        q, k, v = shape(self.q(hidden_states)), shape(self.k(hidden_states)), shape(self.v(hidden_states))
        scores = torch.matmul(q, k.transpose(3, 2))
        if position_bias is None:
            if not self.has_relative_attention_bias:
                position_bias = torch.zeros((1, self.n_heads, seq_length, seq_length), dtype=scores.dtype)
            else:
                position_bias = self.compute_bias(seq_length, seq_length, device=scores.device)
        attn = nn.functional.softmax((scores + position_bias).float(), dim=-1).type_as(scores)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(batch_size, -1, self.n_heads * self.key_value_proj_dim)
        return self.o(out), position_bias


class T5Stack(nn.Module):
    def __init__(self, num_layers=3, is_decoder=False):
        super().__init__()
        self.block = nn.ModuleList(
            [T5RelativeAttention(is_decoder=is_decoder, has_relative_attention_bias=bool(i == 0)) for i in range(num_layers)]
        )
        self.final_layer_norm = nn.LayerNorm(16)

    def forward(self, hidden_states):
        position_bias = None
        for i, layer_module in enumerate(self.block):
            residual = hidden_states
            hidden_states, position_bias = layer_module(hidden_states, position_bias=position_bias)
            hidden_states = residual + hidden_states
        return self.final_layer_norm(hidden_states)


# ---- early exit gates --------------------------------------------------------------------------
class SoftClip(nn.Module):
    """Soft-clips the projection with tanh, but only once some activation exceeds the limit."""

    def __init__(self, dim=16, limit=3.0):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.limit = limit

    def forward(self, x):
        h = self.proj(x)
        if h.abs().max() <= self.limit:
            return h
        return self.limit * torch.tanh(h / self.limit)


class FiniteGuard(nn.Module):
    """Replaces NaN and inf activations after a layer, passing clean batches through."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        if torch.isfinite(h).all():
            return h
        return torch.nan_to_num(h, nan=0.0, posinf=1e4, neginf=-1e4)


class MarginTemperature(nn.Module):
    """Sharpens the logits when the classifier is unsure (small mean top-2 margin)."""

    def __init__(self, dim=16, classes=8):
        super().__init__()
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        logits = self.head(x)
        top = logits.topk(2, dim=-1).values
        margin = (top[..., 0] - top[..., 1]).mean()
        if margin > 0.5:
            return logits
        return logits * 2.0


class DampedResidual(nn.Module):
    """Halves a large residual update instead of adding it whole."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        update = F.gelu(self.fc(x))
        if update.norm() < 4.0:
            return x + update
        else:
            return x + 0.5 * update


class ZeroRowShortcut(nn.Module):
    """A padded batch of all zeros skips the activation; otherwise it is applied."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        if not x.any():
            return h
        return F.silu(h)


class SkipEmptyBatch(nn.Module):
    """Returns an all-zero batch as it is, without running the layer."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        if x.abs().sum() == 0:
            return x
        return self.fc(x)


# ---- model output index ------------------------------------------------------------------------
class ModelOutput(OrderedDict):
    """The fields that are not None, in declaration order; `out[i]` indexes them as a tuple."""

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None:
                self[field.name] = value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __getitem__(self, key):
        if isinstance(key, str):
            return dict(self.items())[key]
        return self.to_tuple()[key]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclass
class EncoderOutput(ModelOutput):
    last_hidden_state: torch.Tensor = None
    pooler_output: torch.Tensor = None
    attentions: torch.Tensor = None


class Encoder(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids):
        hidden = self.proj(self.embed(input_ids))
        scores = torch.softmax(hidden @ hidden.transpose(1, 2), dim=-1)
        return EncoderOutput(last_hidden_state=hidden, attentions=scores)


class EosClassifier(nn.Module):
    """Classifies from the hidden state at each <eos> token: a boolean-mask selection."""

    def __init__(self, dim=16, classes=3, eos_token_id=2):
        super().__init__()
        self.eos_token_id = eos_token_id
        self.encoder = Encoder(dim=dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        outputs = self.encoder(input_ids)
        hidden_states = outputs[0]
        eos_mask = input_ids.eq(self.eos_token_id)
        selected = hidden_states[eos_mask, :]
        return self.head(selected)


class AttentionMaskedPooler(nn.Module):
    """`outputs[1]` skips the pooler output left None: it is the attention scores."""

    def __init__(self, dim=16, eos_token_id=2):
        super().__init__()
        self.eos_token_id = eos_token_id
        self.encoder = Encoder(dim=dim)

    def forward(self, input_ids):
        outputs = self.encoder(input_ids)
        attentions = outputs[1]
        return attentions[input_ids.eq(self.eos_token_id)]


class MeanPoolClassifier(nn.Module):
    """The same output read by position, pooled with the mask as weights: no selection."""

    def __init__(self, dim=16, classes=3, pad_token_id=0):
        super().__init__()
        self.pad_token_id = pad_token_id
        self.encoder = Encoder(dim=dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        outputs = self.encoder(input_ids)
        hidden_states = outputs[0]
        keep = input_ids.ne(self.pad_token_id).unsqueeze(-1).to(hidden_states.dtype)
        pooled = (hidden_states * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled + outputs["attentions"].mean())


def token_ids():
    ids = torch.randint(3, 32, (2, 6))
    ids[:, -1] = 2
    return (ids,)
