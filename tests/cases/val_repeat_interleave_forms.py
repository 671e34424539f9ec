"""Length regulators (FastSpeech-style) expanding tokens by durations: repeat_interleave with
tensor repeats has a data-dependent length unless output_size is given; with an int repeat
it is a fixed shape and traces."""
import torch
import torch.nn as nn


class DurationExpand(nn.Module):
    def forward(self, tokens: torch.Tensor, durations: torch.Tensor) -> torch.Tensor:
        return torch.repeat_interleave(tokens, durations, dim=0)


class DurationExpandSized(nn.Module):
    def __init__(self, max_frames=12):
        super().__init__()
        self.max_frames = max_frames

    def forward(self, tokens: torch.Tensor, durations: torch.Tensor) -> torch.Tensor:
        return tokens.repeat_interleave(durations, dim=0, output_size=self.max_frames)


class UpsampleByTwo(nn.Module):
    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return torch.repeat_interleave(tokens, 2, dim=0) * 0.5


class SegmentIds(nn.Module):
    def forward(self, lengths: torch.Tensor) -> torch.Tensor:
        ids = torch.arange(lengths.shape[0]).repeat_interleave(lengths)
        return ids.float().mean()


CASES = [
    ("DurationExpand", DurationExpand, lambda: (torch.randn(3, 4), torch.tensor([1, 3, 2]))),
    ("DurationExpandSized", DurationExpandSized, lambda: (torch.randn(3, 4), torch.tensor([4, 4, 4]))),
    ("UpsampleByTwo", UpsampleByTwo, lambda: (torch.randn(3, 4),)),
    ("SegmentIds", SegmentIds, lambda: (torch.tensor([2, 1, 3]),)),
]
