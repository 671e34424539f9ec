"""torch.nn's Transformer stacks given an attention mask: TransformerEncoder.forward and
TransformerDecoder.forward ask `_detect_is_causal_mask` whether the mask is causal when
`is_causal` is not given, and it compares the mask with a causal one and takes `bool(...)` of
the result (a data-dependent branch inside torch). Near misses: the same stacks without a mask
or with `is_causal` given, a padding mask only, a memory mask, and a single layer given a mask
(the layers take `is_causal` as a plain hint). Each stack is called from a method the compiled
forward calls: dynamo's log leaves the compiled frame itself out of a break's user stack, and a
break met inside torch's code would have no line in the cases directory."""
import torch
import torch.nn as nn

DIM, HEADS, SEQ, BATCH = 16, 2, 5, 2


def encoder_stack(layers=2):
    layer = nn.TransformerEncoderLayer(DIM, HEADS, 32, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


class CausalEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(DIM, DIM)
        self.encoder = encoder_stack()
        self.head = nn.Linear(DIM, DIM)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        h = self.embed(x)
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.encoder(h, mask=mask)
        return self.head(h)


class PositionalMaskEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder_stack()

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        mask = torch.triu(torch.full((x.shape[1], x.shape[1]), float("-inf")), diagonal=1)
        return self.encoder(x, mask).relu()


class CausalHintEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder_stack()

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.encoder(x, mask=mask, is_causal=True).relu()


class UnmaskedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder_stack()

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        return self.encoder(x, mask=None).relu()


class PaddingMaskEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(DIM, HEADS, 32, dropout=0.0, batch_first=True), 2)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        pad = x[..., 0] > 1.0
        return self.encoder(x, src_key_padding_mask=pad).relu()


class MaskedSingleLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(DIM, HEADS, 32, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.layer(x, src_mask=mask).relu()


class CausalDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(DIM, HEADS, 32, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, 2)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.decoder(x, x, tgt_mask=mask)
        return h.relu()


class MemoryMaskDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(DIM, HEADS, 32, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, 2)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        mask = torch.zeros(x.shape[1], x.shape[1])
        return self.decoder(x, x, memory_mask=mask).relu()


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.Transformer(DIM, HEADS, 1, 1, 32, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        mask = self.transformer.generate_square_subsequent_mask(x.shape[1])
        out = self.transformer(x, x, tgt_mask=mask)
        return out.relu()


class UnmaskedSeq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.Transformer(DIM, HEADS, 1, 1, 32, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        return self.transformer(x, x).relu()


class OptionalMaskEncoder(nn.Module):
    """The mask is the caller's: the break happens on the calls that give one."""

    def __init__(self):
        super().__init__()
        self.encoder = encoder_stack()

    def forward(self, x, mask=None):
        return self.run(x, mask)

    def run(self, x, mask):
        return self.encoder(x, mask=mask).relu()


def inputs():
    return (torch.randn(BATCH, SEQ, DIM),)


def inputs_with_mask():
    return (torch.randn(BATCH, SEQ, DIM), nn.Transformer.generate_square_subsequent_mask(SEQ))


def evaluated(cls):
    return lambda: cls().eval()


CASES = [
    ("causal_encoder", CausalEncoder, inputs),
    ("causal_encoder_eval", evaluated(CausalEncoder), inputs),
    ("positional_mask_encoder", PositionalMaskEncoder, inputs),
    ("causal_hint_encoder", CausalHintEncoder, inputs),
    ("unmasked_encoder", UnmaskedEncoder, inputs),
    ("padding_mask_encoder", PaddingMaskEncoder, inputs),
    ("padding_mask_encoder_eval", evaluated(PaddingMaskEncoder), inputs),
    ("masked_single_layer", MaskedSingleLayer, inputs),
    ("causal_decoder", CausalDecoder, inputs),
    ("memory_mask_decoder", MemoryMaskDecoder, inputs),
    ("seq2seq", Seq2Seq, inputs),
    ("unmasked_seq2seq", UnmaskedSeq2Seq, inputs),
    ("optional_mask_given", OptionalMaskEncoder, inputs_with_mask),
    ("optional_mask_omitted", OptionalMaskEncoder, inputs),
]
