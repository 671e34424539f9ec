"""U-Net decoder with skip connections for semantic segmentation (segmentation_models style).

Each decoder block upsamples, concatenates the matching encoder skip (resizing when the
encoder produced odd-sized maps), then applies two conv-BN-ReLU layers.
"""
import torch
import torch.nn.functional as F
from torch.nn import BatchNorm2d, Conv2d, Identity, Module, ModuleList, ReLU, Sequential


def conv_bn_relu(in_ch, out_ch):
    return Sequential(Conv2d(in_ch, out_ch, 3, padding=1, bias=False), BatchNorm2d(out_ch), ReLU(inplace=True))


class DecoderBlock(Module):
    def __init__(self, in_channels, skip_channels, out_channels, attention=None):
        super().__init__()
        self.conv1 = conv_bn_relu(in_channels + skip_channels, out_channels)
        self.conv2 = conv_bn_relu(out_channels, out_channels)
        self.attention = attention or Identity()

    def forward(self, x, skip=None):
        x = F.interpolate(x, scale_factor=2.0, mode="nearest")
        if skip is not None:
            if x.shape[-2:] != skip.shape[-2:]:
                x = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
            x = torch.cat([x, skip], dim=1)
            x = self.attention(x)
        return self.conv2(self.conv1(x))


class UnetDecoder(Module):
    def __init__(self, encoder_channels=(3, 8, 16, 32), decoder_channels=(16, 8, 8), num_classes=4):
        super().__init__()
        encoder_channels = encoder_channels[1:][::-1]
        head_channels = encoder_channels[0]
        in_channels = [head_channels] + list(decoder_channels[:-1])
        skip_channels = list(encoder_channels[1:]) + [0]
        self.blocks = ModuleList(
            DecoderBlock(i, s, o) for i, s, o in zip(in_channels, skip_channels, decoder_channels)
        )
        self.segmentation_head = Conv2d(decoder_channels[-1], num_classes, 3, padding=1)

    def forward(self, *features):
        features = features[1:][::-1]
        head, skips = features[0], features[1:]
        x = head
        for i, decoder_block in enumerate(self.blocks):
            skip = skips[i] if i < len(skips) else None
            x = decoder_block(x, skip)
        return self.segmentation_head(x)


def make_features():
    return (
        torch.randn(2, 3, 20, 20),
        torch.randn(2, 8, 10, 10),
        torch.randn(2, 16, 5, 5),
        torch.randn(2, 32, 3, 3),
    )


CASES = [
    ("UnetDecoder-train", UnetDecoder, make_features),
    ("UnetDecoder-eval", lambda: UnetDecoder().eval(), make_features),
]
