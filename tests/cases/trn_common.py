"""Training utilities shared by the trn_* models: criterion helpers, graph scatter helpers and
mixins for reductions and momentum (teacher / EMA) updates."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


def label_smoothed_nll_loss(lprobs, target, epsilon, ignore_index=None):
    """fairseq's label-smoothed NLL, per token; returns (smoothed loss, nll), padding zeroed."""
    if target.dim() == lprobs.dim() - 1:
        target = target.unsqueeze(-1)
    nll_loss = -lprobs.gather(dim=-1, index=target.clamp_min(0))
    smooth_loss = -lprobs.sum(dim=-1, keepdim=True)
    if ignore_index is not None:
        pad_mask = target.eq(ignore_index)
        nll_loss = nll_loss.masked_fill(pad_mask, 0.0)
        smooth_loss = smooth_loss.masked_fill(pad_mask, 0.0)
    nll_loss = nll_loss.squeeze(-1)
    smooth_loss = smooth_loss.squeeze(-1)
    eps_i = epsilon / (lprobs.size(-1) - 1)
    loss = (1.0 - epsilon - eps_i) * nll_loss + eps_i * smooth_loss
    return loss, nll_loss


def maybe_num_nodes(edge_index, num_nodes=None):
    """Number of nodes of a graph given as COO `edge_index`, inferred when not given."""
    if num_nodes is not None:
        return num_nodes
    return int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0


def scatter_sum(src, index, dim_size):
    """Sum rows of `src` into `dim_size` buckets given by `index` (dim 0)."""
    out = src.new_zeros((dim_size,) + tuple(src.shape[1:]))
    return out.index_add_(0, index, src)


class ReductionMixin:
    """`reduction` handling shared by the element-wise criteria."""

    reduction = "mean"

    def reduce_loss(self, loss, weight=None):
        if weight is not None:
            loss = loss * weight.to(loss.dtype)
        if self.reduction == "mean":
            denom = weight.sum().clamp_min(1) if weight is not None else loss.numel()
            return loss.sum() / denom
        if self.reduction == "sum":
            return loss.sum()
        return loss


class TeacherMixin:
    """Momentum (EMA) teacher bookkeeping for self-distillation and weight averaging."""

    @torch.no_grad()
    def momentum_update(self, student: nn.Module, teacher: nn.Module, momentum):
        for p_s, p_t in zip(student.parameters(), teacher.parameters()):
            p_t.mul_(momentum).add_((1.0 - momentum) * p_s.detach())
        for b_s, b_t in zip(student.buffers(), teacher.buffers()):
            b_t.copy_(b_s)

    def check_collapse(self, teacher_out, eps=1e-4):
        spread = teacher_out.float().std(dim=0).mean()
        if spread < eps:
            logger.warning("teacher outputs collapsed: mean std %.3e", spread)
        return spread
