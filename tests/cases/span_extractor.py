"""Extractive question answering head: best answer spans from start/end logits (SQuAD style).

Start and end scores are combined for every (start, end) pair up to a maximum span length; the
best few pair scores are kept for the n-best list that post-processing turns into text.
"""
import torch
from torch import nn


class SpanExtractor(nn.Module):
    def __init__(self, hidden=16, max_answer_length=4, n_best=3):
        super().__init__()
        self.qa_outputs = nn.Linear(hidden, 2)
        self.max_answer_length = max_answer_length
        self.n_best = n_best

    def forward(self, sequence_output):
        logits = self.qa_outputs(sequence_output)
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits, end_logits = start_logits.squeeze(-1), end_logits.squeeze(-1)
        scores = start_logits[:, :, None] + end_logits[:, None, :]
        length = scores.shape[-1]
        allowed = torch.ones(length, length).triu().tril(self.max_answer_length - 1).bool()
        scores = scores.masked_fill(~allowed, float("-inf"))
        best = []
        for example_scores in scores.flatten(1):
            best.append(sorted(example_scores, reverse=True)[: self.n_best])
        return start_logits, end_logits, best


CASES = [("SpanExtractor", SpanExtractor, lambda: (torch.randn(2, 5, 16),))]
