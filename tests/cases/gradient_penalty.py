"""WGAN-GP critic that computes its gradient penalty inside forward."""
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, dim=16, hidden=32, gp_weight=10.0):
        super().__init__()
        self.gp_weight = gp_weight
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))

    def gradient_penalty(self, real, fake):
        alpha = torch.rand(real.shape[0], 1)
        mixed = (alpha * real + (1 - alpha) * fake).detach().requires_grad_(True)
        score = self.net(mixed)
        grads = torch.autograd.grad(score.sum(), mixed, create_graph=True)[0]
        return ((grads.norm(2, dim=1) - 1) ** 2).mean()

    def forward(self, real, fake):
        loss = self.net(fake).mean() - self.net(real).mean()
        return loss + self.gp_weight * self.gradient_penalty(real, fake)


CASES = [("Critic", Critic, lambda: (torch.randn(4, 16), torch.randn(4, 16)))]
