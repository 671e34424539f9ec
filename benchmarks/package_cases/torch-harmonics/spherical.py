"""Spherical harmonic transforms as torch-harmonics' README shows, in tiny spectral models."""
import torch
import torch.nn as nn
import torch_harmonics as th


class SHTRoundTrip(nn.Module):
    def __init__(self, nlat=8, nlon=16):
        super().__init__()
        self.sht = th.RealSHT(nlat, nlon, grid="equiangular")
        self.isht = th.InverseRealSHT(nlat, nlon, grid="equiangular")

    def forward(self, signal):
        return self.isht(self.sht(signal))


class SpectralFilter(nn.Module):
    """A learned filter applied in the spectral domain (spherical FNO style)."""

    def __init__(self, nlat=8, nlon=16):
        super().__init__()
        self.sht = th.RealSHT(nlat, nlon, grid="legendre-gauss")
        self.isht = th.InverseRealSHT(nlat, nlon, grid="legendre-gauss")
        self.weight = nn.Parameter(torch.ones(self.sht.lmax, 1))

    def forward(self, x):
        coeffs = self.sht(x)
        return self.isht(coeffs * self.weight)


class VectorSHT(nn.Module):
    def __init__(self, nlat=8, nlon=16):
        super().__init__()
        self.vsht = th.RealVectorSHT(nlat, nlon, grid="equiangular")
        self.ivsht = th.InverseRealVectorSHT(nlat, nlon, grid="equiangular")

    def forward(self, uv):
        return self.ivsht(self.vsht(uv))


CASES = [
    ("SHTRoundTrip", lambda: SHTRoundTrip(), lambda: (torch.randn(2, 8, 16),)),
    ("SpectralFilter", lambda: SpectralFilter(), lambda: (torch.randn(2, 8, 16),)),
    ("VectorSHT", lambda: VectorSHT(), lambda: (torch.randn(1, 2, 8, 16),)),
]
