"""BiLSTM-CRF sequence tagger (Lample et al., 2016) for named-entity recognition.

Word embeddings feed a bidirectional LSTM context encoder; emission scores are decoded with
the Viterbi algorithm over learned tag-transition scores.
"""
import torch
from torch import nn


class ContextEncoder(nn.Module):
    def __init__(self, input_size, hidden_size, dropout=0.1):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size // 2, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(dropout)

    def forward(self, embedded):
        outputs, _ = self.lstm(embedded)
        return self.dropout(outputs)


class CRF(nn.Module):
    def __init__(self, num_tags):
        super().__init__()
        self.num_tags = num_tags
        self.transitions = nn.Parameter(torch.randn(num_tags, num_tags) * 0.1)
        self.start_transitions = nn.Parameter(torch.zeros(num_tags))
        self.end_transitions = nn.Parameter(torch.zeros(num_tags))

    def _viterbi_step(self, score, emission_t, mask_t):
        next_score = score.unsqueeze(2) + self.transitions + emission_t.unsqueeze(1)
        next_score, indices = next_score.max(dim=1)
        return torch.where(mask_t.unsqueeze(1), next_score, score), indices

    def _backtrack(self, score, history, mask):
        best_tags_list = []
        seq_ends = mask.long().sum(dim=0) - 1
        _, best_last_tag = (score + self.end_transitions).max(dim=1)
        for idx in range(score.size(0)):
            best_tags = [best_last_tag[idx].item()]
            for hist in reversed(history[: seq_ends[idx]]):
                best_tags.append(hist[idx][best_tags[-1]].item())
            best_tags.reverse()
            best_tags_list.append(best_tags)
        return best_tags_list

    def decode(self, emissions, mask):
        emissions, mask = emissions.transpose(0, 1), mask.transpose(0, 1).bool()
        score = self.start_transitions + emissions[0]
        history = []
        for i in range(1, emissions.size(0)):
            score, indices = self._viterbi_step(score, emissions[i], mask[i])
            history.append(indices)
        return self._backtrack(score, history, mask)


class BiLSTMCRFTagger(nn.Module):
    def __init__(self, vocab_size=30, embed_dim=12, hidden_size=16, num_tags=5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.encoder = nn.Sequential(ContextEncoder(embed_dim, hidden_size), nn.Linear(hidden_size, num_tags))
        self.crf = CRF(num_tags)

    def forward(self, input_ids, mask):
        emissions = self.encoder(self.embedding(input_ids))
        return emissions, self.crf.decode(emissions, mask)


CASES = [
    ("BiLSTMCRFTagger", BiLSTMCRFTagger,
     lambda: (torch.tensor([[4, 8, 15, 16], [23, 9, 0, 0]]), torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]]))),
]
