"""Label-smoothed cross-entropy criterion for sequence-to-sequence training (fairseq style).

Padding positions carry ``ignore_index`` and are excluded from both the NLL and the smoothing
term. Besides the loss the criterion returns a logging dict with token counts and accuracy,
the way fairseq criteria report ``ntokens`` / ``n_correct`` to the trainer.
"""
import math
import warnings

import torch
from torch import nn
from torch.nn import functional as F

from .trn_common import ReductionMixin, label_smoothed_nll_loss


class LabelSmoothedCrossEntropy(ReductionMixin, nn.Module):
    def __init__(self, epsilon=0.1, ignore_index=-100, report_accuracy=True, reduction="mean"):
        super().__init__()
        self.epsilon = epsilon
        self.ignore_index = ignore_index
        self.report_accuracy = report_accuracy
        self.reduction = reduction

    def compute_accuracy(self, lprobs, target):
        mask = target.ne(self.ignore_index)
        n_correct = lprobs.argmax(-1).eq(target).logical_and(mask).sum()
        return n_correct, mask.sum()

    def forward(self, logits, target):
        if logits.dim() == 3:
            logits = logits.reshape(-1, logits.size(-1))
            target = target.reshape(-1)
        assert logits.shape[0] == target.shape[0], f"got {logits.shape} logits for {target.shape} targets"
        if self.epsilon > 0 and logits.size(-1) < 3:
            warnings.warn("label smoothing over fewer than three classes")
        lprobs = F.log_softmax(logits.float(), dim=-1)
        epsilon = self.epsilon if self.training else 0.0
        loss, nll_loss = label_smoothed_nll_loss(lprobs, target, epsilon, ignore_index=self.ignore_index)
        non_pad = target.ne(self.ignore_index)
        ntokens = non_pad.sum()
        logging_output = {
            "loss": loss.detach().sum(),
            "nll_loss": nll_loss.detach().sum() / ntokens.clamp_min(1) / math.log(2),
            "ntokens": ntokens,
            "nsentences": int(target.shape[0]),
        }
        if self.report_accuracy:
            logging_output["n_correct"], logging_output["total"] = self.compute_accuracy(lprobs, target)
        return self.reduce_loss(loss, weight=non_pad), logging_output


class Seq2SeqWithCriterion(nn.Module):
    def __init__(self, vocab=11, dim=16, pad_idx=0):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=pad_idx)
        self.decoder = nn.Linear(dim, dim)
        self.output_projection = nn.Linear(dim, vocab)
        self.criterion = LabelSmoothedCrossEntropy(epsilon=0.1, ignore_index=pad_idx)

    def forward(self, prev_tokens, target):
        h = torch.tanh(self.decoder(self.embed(prev_tokens)))
        logits = self.output_projection(h)
        loss, stats = self.criterion(logits, target)
        return loss, stats["nll_loss"], stats["n_correct"]


def _targets():
    return torch.tensor([[3, 5, 2, 0, 0], [4, 4, 9, 1, 0]])


CASES = [
    ("LabelSmoothedCrossEntropy", LabelSmoothedCrossEntropy,
     lambda: (torch.randn(2, 5, 11), torch.tensor([[3, 5, 2, -100, -100], [4, 4, 9, 1, -100]]))),
    ("Seq2SeqWithCriterion", Seq2SeqWithCriterion, lambda: (torch.tensor([[1, 3, 5, 2, 0], [1, 4, 4, 9, 1]]), _targets())),
]
