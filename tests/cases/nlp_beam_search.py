"""One step of beam search over a seq2seq decoder's log-probabilities (fairseq `BeamSearch`).

Candidates are the top `2 * beam_size` continuations over the flattened (beam, vocab) scores;
hypotheses that emit EOS are finalized with a length-normalised score and the n-best list is
kept sorted.
"""
import torch
import torch.nn as nn


class BeamSearch(nn.Module):
    def __init__(self, vocab_size, eos=2, pad=1, len_penalty=1.0):
        super().__init__()
        self.vocab_size = vocab_size
        self.eos = eos
        self.pad = pad
        self.len_penalty = len_penalty

    @staticmethod
    def normalize(score, length, len_penalty):
        return score / (length ** len_penalty)

    def step(self, step, lprobs, scores):
        bsz, beam_size, vocab_size = lprobs.size()
        if step == 0:
            lprobs = lprobs[:, ::beam_size, :].contiguous()
        else:
            lprobs = lprobs + scores[:, :, step - 1].unsqueeze(-1)
        top_prediction = torch.topk(lprobs.view(bsz, -1), k=min(beam_size * 2, lprobs.view(bsz, -1).size(1) - 1))
        scores_buf, indices_buf = top_prediction
        beams_buf = torch.div(indices_buf, vocab_size, rounding_mode="trunc")
        return scores_buf, indices_buf.fmod(vocab_size), beams_buf

    def finalize(self, step, cand_scores, cand_indices, cand_beams, finalized):
        eos_mask = cand_indices.eq(self.eos)
        for sent, row in enumerate(eos_mask):
            for j, is_eos in enumerate(row):
                hypo_score = self.normalize(cand_scores[sent, j], step + 1, self.len_penalty)
                finalized[sent].append({"beam": cand_beams[sent, j], "score": hypo_score, "eos": is_eos})
        for hyps in finalized:
            hyps.sort(key=lambda h: h["score"].item(), reverse=True)
        return finalized


class Seq2SeqBeamStep(nn.Module):
    def __init__(self, hidden=12, vocab=10, beam_size=2):
        super().__init__()
        self.beam_size = beam_size
        self.output_projection = nn.Linear(hidden, vocab)
        self.search = BeamSearch(vocab)

    def forward(self, decoder_out, scores, step):
        lprobs = self.output_projection(decoder_out).log_softmax(dim=-1)
        lprobs[:, :, self.search.pad] = -float("inf")
        cand_scores, cand_indices, cand_beams = self.search.step(step, lprobs, scores)
        finalized = [[] for _ in range(lprobs.size(0))]
        finalized = self.search.finalize(step, cand_scores, cand_indices, cand_beams, finalized)
        return cand_scores, cand_indices, [hyps[0]["score"] for hyps in finalized]


CASES = [
    ("Seq2SeqBeamStep-first", Seq2SeqBeamStep, lambda: (torch.randn(2, 2, 12), torch.zeros(2, 2, 4), 0)),
    ("Seq2SeqBeamStep-later", Seq2SeqBeamStep, lambda: (torch.randn(1, 2, 12), torch.randn(1, 2, 4), 2)),
]
