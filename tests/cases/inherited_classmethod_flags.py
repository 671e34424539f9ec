"""Feature flags as classes, as gpytorch's settings are: a base class's classmethod reads
`cls._default`, and each flag subclass overrides it. `settings.debug.on()` runs the base's
classmethod with `cls` bound to the subclass, so it reads the subclass's default. Near misses: a
flag whose subclass keeps the base's False, and the base's own classmethod called on the base."""
import torch
import torch.nn as nn


class _feature_flag:
    _default = False

    @classmethod
    def on(cls):
        return cls._default


class debug(_feature_flag):
    _default = True


class fast_pred_var(_feature_flag):
    pass


class CheckedKernel(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        covar = self.fc(x)
        if debug.on():
            if not torch.isfinite(covar).all():
                raise ValueError("covariance has non-finite entries")
        return covar.relu()


class FastKernel(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        covar = self.fc(x)
        if fast_pred_var.on():
            if covar.sum() > 0:
                covar = covar * 2
        return covar.relu()


class BaseFlagKernel(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        covar = self.fc(x)
        if _feature_flag.on():
            if covar.sum() > 0:
                covar = covar * 2
        return covar.relu()


CASES = [
    ("CheckedKernel", CheckedKernel, lambda: (torch.randn(3, 4),)),
    ("FastKernel", FastKernel, lambda: (torch.randn(3, 4),)),
    ("BaseFlagKernel", BaseFlagKernel, lambda: (torch.randn(3, 4),)),
]
