"""A convolution whose kernel is kept as COO indices and values, rebuilt as a coalesced sparse
matrix by a helper and contracted with the input by a module-level function (torch-harmonics'
DISCO convolution); the near miss keeps the kernel dense."""
import torch
import torch.nn as nn


def sparse_contraction(x: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    rows, cols = kernel.shape
    return torch.sparse.mm(kernel, x.reshape(cols, -1)).reshape(rows, *x.shape[1:])


def dense_contraction(x: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    rows, cols = kernel.shape
    return (kernel @ x.reshape(cols, -1)).reshape(rows, *x.shape[1:])


class SparseKernelConv(nn.Module):
    def __init__(self, points=6, channels=4):
        super().__init__()
        self.points = points
        self.register_buffer("kernel_idx", torch.stack([torch.arange(points), torch.arange(points).roll(1)]))
        self.register_buffer("kernel_vals", torch.rand(points))
        self.proj = nn.Linear(channels, channels)

    def get_kernel(self):
        kernel = torch.sparse_coo_tensor(self.kernel_idx, self.kernel_vals, size=(self.points, self.points)).coalesce()
        return kernel

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kernel = self.get_kernel()
        x = sparse_contraction(x, kernel)
        return self.proj(x)


class DenseKernelConv(SparseKernelConv):
    def get_kernel(self):
        kernel = torch.zeros(self.points, self.points, device=self.kernel_vals.device)
        return kernel.index_put((self.kernel_idx[0], self.kernel_idx[1]), self.kernel_vals)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kernel = self.get_kernel()
        x = dense_contraction(x, kernel)
        return self.proj(x)


CASES = [
    ("SparseKernelConv", SparseKernelConv, lambda: (torch.randn(6, 3, 4),)),
    ("DenseKernelConv", DenseKernelConv, lambda: (torch.randn(6, 3, 4),)),
]
