"""Selection helpers with an emptiness check first, used by cond_empty_check.py."""
import torch


def hardest_score(scores, idx):
    if len(idx) == 0:
        return scores.new_zeros(())
    picked = scores[idx]
    return picked[picked > picked.mean()].sum()


def positive_part(h):
    if h.numel() == 0:
        return h
    return h[h > 0]


def nonzero_if_empty(h):
    if len(h) == 0:
        return torch.nonzero(h)
    return h * 2


def positive_if_many(h):
    if len(h) > 3:
        return h[h > 0]
    return h + 1


def positive_rows(h):
    if h.shape[0] == 0:
        return h
    return h[h[:, 0] > 0]


def positive_rows_by_size(h):
    if h.size(0) == 0:
        return h
    return h[h[:, 0] > 0]


def nonzero_unless_rows(h):
    if h.shape[0] > 0:
        return h * 2
    return torch.nonzero(h)
