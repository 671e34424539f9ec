"""Logits processors and warpers applied before sampling the next token (HF `generate` style).

A processor list dispatches extra keyword arguments only to processors whose `__call__`
accepts them, using `inspect.signature` as `LogitsProcessorList` does.
"""
import inspect

import torch
from torch import nn


class RepetitionPenaltyLogitsProcessor:
    def __init__(self, penalty):
        if not isinstance(penalty, float) or not (penalty > 0):
            raise ValueError(f"`penalty` has to be a strictly positive float, but is {penalty}")
        self.penalty = penalty

    def __call__(self, input_ids, scores):
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        return scores.scatter(1, input_ids, score)


class TemperatureLogitsWarper:
    def __init__(self, temperature):
        self.temperature = temperature

    def __call__(self, input_ids, scores):
        return scores / self.temperature


class TopKLogitsWarper:
    def __init__(self, top_k, filter_value=-float("inf"), min_tokens_to_keep=1):
        self.top_k = max(top_k, min_tokens_to_keep)
        self.filter_value = filter_value

    def __call__(self, input_ids, scores):
        top_k = min(self.top_k, scores.size(-1))
        indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
        return scores.masked_fill(indices_to_remove, self.filter_value)


class TopPLogitsWarper:
    def __init__(self, top_p, filter_value=-float("inf"), min_tokens_to_keep=1):
        self.top_p = top_p
        self.filter_value = filter_value
        self.min_tokens_to_keep = min_tokens_to_keep

    def __call__(self, input_ids, scores, cur_len=None):
        sorted_logits, sorted_indices = torch.sort(scores, descending=False)
        cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        sorted_indices_to_remove = cumulative_probs <= (1 - self.top_p)
        sorted_indices_to_remove[..., -self.min_tokens_to_keep:] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        return scores.masked_fill(indices_to_remove, self.filter_value)


class LogitsProcessorList(list):
    def __call__(self, input_ids, scores, **kwargs):
        for processor in self:
            function_args = inspect.signature(processor.__call__).parameters
            if len(function_args) > 2:
                scores = processor(input_ids, scores, **kwargs)
            else:
                scores = processor(input_ids, scores)
        return scores


class SamplingHead(nn.Module):
    """LM head followed by the warpers; returns next-token probabilities."""

    def __init__(self, hidden=16, vocab=40, temperature=0.7, top_k=10, top_p=0.9):
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.processors = LogitsProcessorList([
            RepetitionPenaltyLogitsProcessor(1.2),
            TemperatureLogitsWarper(temperature),
            TopKLogitsWarper(top_k),
            TopPLogitsWarper(top_p),
        ])

    @torch.no_grad()
    def forward(self, last_hidden_state, input_ids):
        next_token_logits = self.lm_head(last_hidden_state[:, -1, :])
        next_token_scores = self.processors(input_ids, next_token_logits, cur_len=input_ids.shape[-1])
        return nn.functional.softmax(next_token_scores, dim=-1)


CASES = [
    ("SamplingHead", SamplingHead,
     lambda: (torch.randn(2, 4, 16), torch.tensor([[1, 5, 5, 9], [2, 3, 39, 0]]))),
]
