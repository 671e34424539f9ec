"""Helpers taking a training flag, used by cond_training_flag.py."""


def scaled_by_spread(x, training):
    if training:
        return x / x.std().item()
    return x


def noisy(x, training):
    if training:
        return x + x.abs().max().item()
    return x
