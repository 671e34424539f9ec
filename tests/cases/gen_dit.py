"""Diffusion Transformer (DiT, Peebles & Xie 2023) with adaLN-Zero conditioning.

Latents are patchified, each block modulates its layer norms with shift / scale / gate vectors
regressed from the sum of the timestep and class embeddings, and the final layer unpatchifies
back to a (mean, variance) image. Class labels are dropped for classifier-free guidance training.
"""
import math

import torch as th
import torch.nn as nn
import torch.nn.functional as F

from .gen_blocks import TimestepEmbedding, get_timestep_embedding


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class LabelEmbedder(nn.Module):
    def __init__(self, num_classes, hidden_size, dropout_prob):
        super().__init__()
        use_cfg_embedding = dropout_prob > 0
        self.embedding_table = nn.Embedding(num_classes + use_cfg_embedding, hidden_size)
        self.num_classes = num_classes
        self.dropout_prob = dropout_prob

    def forward(self, labels, force_drop_ids=None):
        if (self.training and self.dropout_prob > 0) or force_drop_ids is not None:
            drop_ids = force_drop_ids == 1
            labels = th.where(drop_ids, self.num_classes, labels)
        return self.embedding_table(labels)


class DiTBlock(nn.Module):
    def __init__(self, hidden_size, num_heads, mlp_ratio=4.0):
        super().__init__()
        self.num_heads = num_heads
        self.norm1 = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.proj = nn.Linear(hidden_size, hidden_size)
        self.norm2 = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        mlp_hidden = int(hidden_size * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, mlp_hidden), nn.GELU(approximate="tanh"),
                                 nn.Linear(mlp_hidden, hidden_size))
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden_size, 6 * hidden_size))

    def attention(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        return self.proj((attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, N, C))

    def forward(self, x, c):
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = self.adaLN_modulation(c).chunk(6, dim=1)
        x = x + gate_msa.unsqueeze(1) * self.attention(modulate(self.norm1(x), shift_msa, scale_msa))
        return x + gate_mlp.unsqueeze(1) * self.mlp(modulate(self.norm2(x), shift_mlp, scale_mlp))


class DiT(nn.Module):
    def __init__(self, input_size=8, patch_size=2, in_channels=4, hidden_size=32, depth=2, num_heads=2,
                 num_classes=10, class_dropout_prob=0.1, learn_sigma=True):
        super().__init__()
        self.out_channels = in_channels * 2 if learn_sigma else in_channels
        self.patch_size = patch_size
        self.hidden_size = hidden_size
        self.x_embedder = nn.Conv2d(in_channels, hidden_size, patch_size, stride=patch_size)
        self.t_embedder = TimestepEmbedding(hidden_size, hidden_size)
        self.y_embedder = LabelEmbedder(num_classes, hidden_size, class_dropout_prob)
        self.pos_embed = nn.Parameter(th.zeros(1, (input_size // patch_size) ** 2, hidden_size))
        self.blocks = nn.ModuleList([DiTBlock(hidden_size, num_heads) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        self.final_linear = nn.Linear(hidden_size, patch_size * patch_size * self.out_channels)

    def unpatchify(self, x):
        c, p = self.out_channels, self.patch_size
        h = w = int(x.shape[1] ** 0.5)
        assert h * w == x.shape[1]
        x = x.reshape(x.shape[0], h, w, p, p, c)
        return th.einsum("nhwpqc->nchpwq", x).reshape(x.shape[0], c, h * p, h * p)

    def forward(self, x, t, y, force_drop_ids):
        x = self.x_embedder(x).flatten(2).transpose(1, 2) + self.pos_embed
        c = self.t_embedder(get_timestep_embedding(t, self.hidden_size)) + self.y_embedder(y, force_drop_ids)
        for block in self.blocks:
            x = block(x, c)
        return self.unpatchify(self.final_linear(self.final_norm(x)))


CASES = [("DiT", DiT, lambda: (th.randn(2, 4, 8, 8), th.tensor([5, 800]), th.tensor([3, 7]), th.tensor([0, 1])))]
