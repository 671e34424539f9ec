"""A compiled function whose `**options` it passes on to a helper (gpt-fast's `decode_one_token(
model, x, input_pos, **sampling_kwargs)`): dynamo guards each keyword where the helper uses it
(`options['scale'] == 1.0` at the helper's line): a float, recompiled once, then symbolic; a
later call under no_grad recompiles on the grad mode. The same keywords at every call (the near
miss) compile once."""
import torch


def helper(x, scale=1.0):
    return x * scale


@torch.compile
def step(x, **options):
    return helper(x, **options)


def changing_keyword_then_no_grad():
    for scale in (1.0, 2.0):
        step(torch.randn(2), scale=scale)
    with torch.no_grad():
        step(torch.randn(2), scale=2.0)


def same_keywords():
    for _ in range(3):
        step(torch.randn(2), scale=0.5)


RECOMPILE_CASES = [
    ("changing_keyword_then_no_grad", changing_keyword_then_no_grad),
    ("same_keywords", same_keywords),
]
