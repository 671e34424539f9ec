"""ConvNeXt stage: depthwise 7x7 conv, channels-last MLP, layer scale and stochastic depth.

Follows "A ConvNet for the 2020s" (Liu et al., 2022) as laid out in timm's ``convnext.py``.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .vis_layers import DropPath, LayerNorm2d


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, mlp_ratio=4, ls_init_value=1e-6, drop_path=0.0, conv_mlp=False):
        super().__init__()
        self.use_conv_mlp = conv_mlp
        self.conv_dw = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = LayerNorm2d(dim) if conv_mlp else nn.LayerNorm(dim, eps=1e-6)
        hidden = int(mlp_ratio * dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.gamma = nn.Parameter(ls_init_value * torch.ones(dim)) if ls_init_value > 0 else None
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x):
        assert x.dim() == 4, f"expected NCHW input, got shape {tuple(x.shape)}"
        shortcut = x
        x = self.conv_dw(x)
        if self.use_conv_mlp:
            x = self.norm(x).permute(0, 2, 3, 1)
        else:
            x = self.norm(x.permute(0, 2, 3, 1))
        x = self.fc2(F.gelu(self.fc1(x)))
        if self.gamma is not None:
            x = x.mul(self.gamma)
        x = x.permute(0, 3, 1, 2)
        return self.drop_path(x) + shortcut


class ConvNeXtStage(nn.Module):
    def __init__(self, in_chs=8, out_chs=16, depth=3, drop_path_rates=None, conv_mlp=False):
        super().__init__()
        self.grad_checkpointing = False
        if in_chs != out_chs:
            self.downsample = nn.Sequential(
                LayerNorm2d(in_chs),
                nn.Conv2d(in_chs, out_chs, kernel_size=2, stride=2),
            )
        else:
            self.downsample = None
        drop_path_rates = drop_path_rates or [0.0] * depth
        self.blocks = nn.ModuleList(
            ConvNeXtBlock(out_chs, drop_path=dpr, conv_mlp=conv_mlp) for dpr in drop_path_rates
        )

    def forward(self, x):
        if self.downsample is not None:
            x = self.downsample(x)
        for idx, block in enumerate(self.blocks):
            if self.grad_checkpointing and not torch.jit.is_scripting():
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        if x.size(-1) > 3 and not self.training:
            x = x.contiguous(memory_format=torch.channels_last)
        return x


def convnext_stage_train():
    return ConvNeXtStage(8, 16, depth=3, drop_path_rates=[0.0, 0.1, 0.2])


def convnext_stage_eval():
    return ConvNeXtStage(16, 16, depth=2, conv_mlp=True).eval()


CASES = [
    ("ConvNeXtStage-train", convnext_stage_train, lambda: (torch.randn(2, 8, 8, 8),)),
    ("ConvNeXtStage-eval", convnext_stage_eval, lambda: (torch.randn(1, 16, 6, 6),)),
]
