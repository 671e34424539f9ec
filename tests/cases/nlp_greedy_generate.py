"""Tiny causal LM with a greedy `generate` loop and stopping criteria (HF `GenerationMixin` style).

Finished sequences are padded with `pad_token_id`; generation stops once every sequence has
produced the end-of-sequence token or the maximum length is reached.
"""
import torch
import torch.nn as nn


class MaxLengthCriteria:
    def __init__(self, max_length):
        self.max_length = max_length

    def __call__(self, input_ids, scores):
        is_done = input_ids.shape[-1] >= self.max_length
        return torch.full((input_ids.shape[0],), is_done, dtype=torch.bool)


class EosTokenCriteria:
    def __init__(self, eos_token_id):
        self.eos_token_id = torch.tensor([eos_token_id])

    def __call__(self, input_ids, scores):
        return torch.isin(input_ids[:, -1], self.eos_token_id)


class StoppingCriteriaList(list):
    def __call__(self, input_ids, scores):
        is_done = torch.full((input_ids.shape[0],), False, dtype=torch.bool)
        for criteria in self:
            is_done = is_done | criteria(input_ids, scores)
        return is_done


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=16, hidden=16, eos_token_id=2, pad_token_id=0, max_length=6):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.mix = nn.Linear(hidden, hidden)
        self.lm_head = nn.Linear(hidden, vocab_size, bias=False)
        self.eos_token_id = eos_token_id
        self.pad_token_id = pad_token_id
        self.stopping_criteria = StoppingCriteriaList([MaxLengthCriteria(max_length), EosTokenCriteria(eos_token_id)])

    def logits(self, input_ids):
        h = self.embed(input_ids)
        h = torch.cumsum(h, dim=1) / torch.arange(1, h.shape[1] + 1)[None, :, None]
        return self.lm_head(torch.tanh(self.mix(h)))

    @torch.no_grad()
    def forward(self, input_ids):
        unfinished_sequences = torch.ones(input_ids.shape[0], dtype=torch.long)
        this_peer_finished = False
        while not this_peer_finished:
            next_token_logits = self.logits(input_ids)[:, -1, :]
            next_tokens = torch.argmax(next_token_logits, dim=-1)
            next_tokens = next_tokens * unfinished_sequences + self.pad_token_id * (1 - unfinished_sequences)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            unfinished_sequences = unfinished_sequences & ~self.stopping_criteria(input_ids, next_token_logits)
            this_peer_finished = unfinished_sequences.max() == 0
        return input_ids


CASES = [("TinyCausalLM-greedy", TinyCausalLM, lambda: (torch.tensor([[5, 7], [3, 9]]),))]
