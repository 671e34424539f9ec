"""torch functions that trace_rules.py's manual_torch_name_rule_map marks SkipFunctionVariable
(read from each release's wheel into flake8_staticfx/data): dynamo skips calling them, and the
graph breaks there. torch.cuda.is_available, which the map lists in the graph, is the near miss."""
import torch
import torch.nn as nn


class RngSnapshot(nn.Module):
    def forward(self, x):
        state = torch.get_rng_state()
        return x * 2, state


class SeededCuda(nn.Module):
    def forward(self, x):
        torch.cuda.manual_seed_all(0)
        return x * 2


class ScriptTypeCheck(nn.Module):
    def forward(self, x):
        if torch.jit.isinstance(x, torch.Tensor):
            x = x * 2
        return x + 1


class CudaQuery(nn.Module):
    def forward(self, x):
        return x * 2 if torch.cuda.is_available() else x + 1


CASES = [
    ("RngSnapshot", RngSnapshot, lambda: (torch.randn(2, 4),)),
    ("SeededCuda", SeededCuda, lambda: (torch.randn(2, 4),)),
    ("ScriptTypeCheck", ScriptTypeCheck, lambda: (torch.randn(2, 4),)),
    ("CudaQuery", CudaQuery, lambda: (torch.randn(2, 4),)),
]
