"""PyTorch examples (pytorch/examples at 77f55b9, language_translation/main.py, src/model.py and
src/data.py; BSD-3-Clause, see licenses/pytorch-examples.LICENSE): the nn.Transformer
`Translator`, `create_mask`, `train` and `validate` epochs with Adam, and `greedy_decode`
growing the translation one token at a time, on 24 made-up German-English pairs padded per batch
of 8, two layers of width 32 on CPU, compiled as a user adds torch.compile to the script.
Changed from upstream: torchtext's Multi30k, spacy tokenizers and vocab replaced by a whitespace
split and a dict vocabulary built from the pairs (`get_data` keeps its collate function), tqdm
and the logging/checkpoint lines removed, argparse's options replaced by a namespace, and
`main` / `inference` written as the drivers below."""
import math
from types import SimpleNamespace

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

DEVICE = torch.device("cpu")


# ---------------------------------------------------------------- src/model.py
class PositionalEncoding(nn.Module):
    def __init__(
        self,
        emb_size,
        dropout,
        maxlen=5000
    ):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2)* math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)

        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)

    def forward(self, token_embedding):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class Translator(nn.Module):
    def __init__(
            self,
            num_encoder_layers,
            num_decoder_layers,
            embed_size,
            num_heads,
            src_vocab_size,
            tgt_vocab_size,
            dim_feedforward,
            dropout
        ):
        super(Translator, self).__init__()

        # Output of embedding must be equal (embed_size)
        self.src_embedding = nn.Embedding(src_vocab_size, embed_size)
        self.tgt_embedding = nn.Embedding(tgt_vocab_size, embed_size)

        self.pos_enc = PositionalEncoding(embed_size, dropout)

        self.transformer = nn.Transformer(
            d_model=embed_size,
            nhead=num_heads,
            num_encoder_layers=num_encoder_layers,
            num_decoder_layers=num_decoder_layers,
            dim_feedforward=dim_feedforward,
            dropout=dropout
        )

        self.ff = nn.Linear(embed_size, tgt_vocab_size)

        self._init_weights()

    def _init_weights(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):

        src_emb = self.pos_enc(self.src_embedding(src))
        tgt_emb = self.pos_enc(self.tgt_embedding(trg))

        outs = self.transformer(
            src_emb,
            tgt_emb,
            src_mask,
            tgt_mask,
            None,
            src_padding_mask,
            tgt_padding_mask,
            memory_key_padding_mask
        )

        return self.ff(outs)

    def encode(self, src, src_mask):

        embed = self.src_embedding(src)

        pos_enc = self.pos_enc(embed)

        return self.transformer.encoder(pos_enc, src_mask)

    def decode(self, tgt, memory, tgt_mask):

        embed = self.tgt_embedding(tgt)

        pos_enc = self.pos_enc(embed)

        return self.transformer.decoder(pos_enc, memory, tgt_mask)


# ----------------------------------------------------------------- src/data.py
PAIRS = [
    ("ein mann faehrt fahrrad", "a man rides a bike"),
    ("zwei hunde spielen im schnee", "two dogs play in the snow"),
    ("eine frau liest ein buch", "a woman reads a book"),
    ("kinder spielen im park", "children play in the park"),
    ("ein hund rennt", "a dog runs"),
    ("der mann traegt einen roten hut", "the man wears a red hat"),
    ("eine gruppe von menschen steht auf der strasse", "a group of people stands on the street"),
    ("ein junge springt ins wasser", "a boy jumps into the water"),
    ("zwei frauen sitzen auf einer bank", "two women sit on a bench"),
    ("ein maedchen isst einen apfel", "a girl eats an apple"),
    ("der hund schlaeft", "the dog sleeps"),
    ("ein mann spielt gitarre auf der buehne", "a man plays guitar on the stage"),
    ("eine katze sitzt auf dem dach", "a cat sits on the roof"),
    ("menschen warten auf den bus", "people wait for the bus"),
    ("ein kind malt ein bild", "a child paints a picture"),
    ("zwei maenner arbeiten", "two men work"),
    ("eine frau kocht in der kueche", "a woman cooks in the kitchen"),
    ("ein vogel fliegt ueber den see", "a bird flies over the lake"),
    ("der junge wirft einen ball", "the boy throws a ball"),
    ("ein paar tanzt", "a couple dances"),
    ("die kinder lachen laut im garten", "the children laugh loudly in the garden"),
    ("ein mann schwimmt", "a man swims"),
    ("eine frau faehrt ein rotes auto", "a woman drives a red car"),
    ("zwei hunde rennen am strand entlang", "two dogs run along the beach"),
]


def get_data(opts):
    special_symbols = {
        "<unk>":0,
        "<pad>":1,
        "<bos>":2,
        "<eos>":3
    }

    def build_vocab(sentences):
        vocab = dict(special_symbols)
        for sentence in sentences:
            for token in sentence.split():
                vocab.setdefault(token, len(vocab))
        return vocab

    src_vocab = build_vocab(src for src, _ in PAIRS)
    tgt_vocab = build_vocab(tgt for _, tgt in PAIRS)

    def _seq_transform(*transforms):
        def func(txt_input):
            for transform in transforms:
                txt_input = transform(txt_input)
            return txt_input
        return func

    # Function to add BOS/EOS and create tensor for input sequence indices
    def _tensor_transform(token_ids):
        return torch.cat(
            (torch.tensor([special_symbols["<bos>"]]),
             torch.tensor(token_ids),
             torch.tensor([special_symbols["<eos>"]]))
        )

    def _lookup(vocab):
        return lambda tokens: [vocab.get(token, special_symbols["<unk>"]) for token in tokens]

    src_lang_transform = _seq_transform(str.split, _lookup(src_vocab), _tensor_transform)
    tgt_lang_transform = _seq_transform(str.split, _lookup(tgt_vocab), _tensor_transform)

    def _collate_fn(batch):
        src_batch, tgt_batch = [], []
        for src_sample, tgt_sample in batch:
            src_batch.append(src_lang_transform(src_sample.rstrip("\n")))
            tgt_batch.append(tgt_lang_transform(tgt_sample.rstrip("\n")))

        src_batch = pad_sequence(src_batch, padding_value=special_symbols["<pad>"])
        tgt_batch = pad_sequence(tgt_batch, padding_value=special_symbols["<pad>"])
        return src_batch, tgt_batch

    train_dataloader = DataLoader(PAIRS[:16], batch_size=opts.batch, collate_fn=_collate_fn)
    valid_dataloader = DataLoader(PAIRS[16:], batch_size=opts.batch, collate_fn=_collate_fn)

    return train_dataloader, valid_dataloader, src_vocab, tgt_vocab, src_lang_transform, tgt_lang_transform, special_symbols


def generate_square_subsequent_mask(size, device):
    mask = (torch.triu(torch.ones((size, size), device=device)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    return mask


# Create masks for input into model
def create_mask(src, tgt, pad_idx, device):

    # Get sequence length
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]

    # Generate the mask
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len, device)
    src_mask = torch.zeros((src_seq_len, src_seq_len),device=device).type(torch.bool)

    # Overlay the mask over the original input
    src_padding_mask = (src == pad_idx).transpose(0, 1)
    tgt_padding_mask = (tgt == pad_idx).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


# --------------------------------------------------------------------- main.py
def greedy_decode(model, src, src_mask, max_len, start_symbol, end_symbol):

    # Move to device
    src = src.to(DEVICE)
    src_mask = src_mask.to(DEVICE)

    # Encode input
    memory = model.encode(src, src_mask)

    # Output will be stored here
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)

    # For each element in our translation (which could range up to the maximum translation length)
    for _ in range(max_len-1):

        # Decode the encoded representation of the input
        memory = memory.to(DEVICE)
        tgt_mask = (generate_square_subsequent_mask(ys.size(0), DEVICE).type(torch.bool)).to(DEVICE)
        out = model.decode(ys, memory, tgt_mask)

        # Reshape
        out = out.transpose(0, 1)

        # Covert to probabilities and take the max of these probabilities
        prob = model.ff(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()

        # Now we have an output which is the vector representation of the translation
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == end_symbol:
            break

    return ys


def train(model, train_dl, loss_fn, optim, special_symbols, opts):

    # Object for accumulating losses
    losses = 0

    # Put model into training mode
    model.train()
    for src, tgt in train_dl:

        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)

        # We need to reshape the input slightly to fit into the transformer
        tgt_input = tgt[:-1, :]

        # Create masks
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, special_symbols["<pad>"], DEVICE)

        # Pass into model, get probability over the vocab out
        logits = model(src, tgt_input, src_mask, tgt_mask,src_padding_mask, tgt_padding_mask, src_padding_mask)

        # Reset gradients before we try to compute the gradients over the loss
        optim.zero_grad()

        # Get original shape back
        tgt_out = tgt[1:, :]

        # Compute loss and gradient over that loss
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()

        # Step weights
        optim.step()

        # Accumulate a running loss for reporting
        losses += loss.item()

        if opts.dry_run:
            break

    # Return the average loss
    return losses / len(list(train_dl))


def validate(model, valid_dl, loss_fn, special_symbols):

    # Object for accumulating losses
    losses = 0

    # Turn off gradients a moment
    model.eval()

    for src, tgt in valid_dl:

        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)

        # We need to reshape the input slightly to fit into the transformer
        tgt_input = tgt[:-1, :]

        # Create masks
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, special_symbols["<pad>"], DEVICE)

        # Pass into model, get probability over the vocab out
        logits = model(src, tgt_input, src_mask, tgt_mask,src_padding_mask, tgt_padding_mask, src_padding_mask)

        # Get original shape back, compute loss, accumulate that loss
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        losses += loss.item()

    # Return the average loss
    return losses / len(list(valid_dl))


OPTS = SimpleNamespace(src="de", tgt="en", epochs=2, lr=1e-4, batch=8, attn_heads=2, enc_layers=2,
                       dec_layers=2, embed_size=32, dim_feedforward=32, dropout=0.1, dry_run=False)


def build_model(opts, src_vocab, tgt_vocab):
    return Translator(
        num_encoder_layers=opts.enc_layers,
        num_decoder_layers=opts.dec_layers,
        embed_size=opts.embed_size,
        num_heads=opts.attn_heads,
        src_vocab_size=len(src_vocab),
        tgt_vocab_size=len(tgt_vocab),
        dim_feedforward=opts.dim_feedforward,
        dropout=opts.dropout
    ).to(DEVICE)


def translator_train_validate():
    """`main`: the whole Translator compiled, two epochs of train and validate."""
    opts = OPTS
    torch.manual_seed(0)
    train_dl, valid_dl, src_vocab, tgt_vocab, _, _, special_symbols = get_data(opts)
    model = torch.compile(build_model(opts, src_vocab, tgt_vocab))

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=special_symbols["<pad>"])
    optim = torch.optim.Adam(model.parameters(), lr=opts.lr, betas=(0.9, 0.98), eps=1e-9)

    best_val_loss = 1e6
    for idx, epoch in enumerate(range(1, opts.epochs+1)):
        train_loss = train(model, train_dl, loss_fn, optim, special_symbols, opts)
        val_loss = validate(model, valid_dl, loss_fn, special_symbols)
        if val_loss < best_val_loss:
            best_val_loss = val_loss
        print(f"Epoch: {epoch}\n\tTrain loss: {train_loss:.3f}\n\tVal loss: {val_loss:.3f}")


def translator_greedy_inference():
    """`inference`: the model in eval mode with `encode` and `decode` compiled, three sentences
    translated greedily (the target grows by one token per step)."""
    opts = OPTS
    torch.manual_seed(1)
    _, _, src_vocab, tgt_vocab, src_transform, _, special_symbols = get_data(opts)
    model = build_model(opts, src_vocab, tgt_vocab)
    model.eval()
    model.encode = torch.compile(model.encode)
    model.decode = torch.compile(model.decode)
    index_to_word = {index: word for word, index in tgt_vocab.items()}

    for sentence in ["ein mann faehrt fahrrad", "zwei hunde spielen im park", "eine katze schlaeft"]:
        src = src_transform(sentence).view(-1, 1)
        num_tokens = src.shape[0]

        src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)

        tgt_tokens = greedy_decode(
            model, src, src_mask, max_len=num_tokens+5, start_symbol=special_symbols["<bos>"], end_symbol=special_symbols["<eos>"]
        ).flatten()

        output_list_words = [index_to_word[int(token)] for token in tgt_tokens]
        translation = " ".join(output_list_words).replace("<bos>", "").replace("<eos>", "")
        print(translation)


def translator_layers_compiled():
    """Regional compilation: each encoder and decoder layer of the Transformer compiled in place,
    one epoch of train and validate, then one greedy translation."""
    opts = OPTS
    torch.manual_seed(2)
    train_dl, valid_dl, src_vocab, tgt_vocab, src_transform, _, special_symbols = get_data(opts)
    model = build_model(opts, src_vocab, tgt_vocab)
    for layer in model.transformer.encoder.layers:
        layer.compile()
    for layer in model.transformer.decoder.layers:
        layer.compile()

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=special_symbols["<pad>"])
    optim = torch.optim.Adam(model.parameters(), lr=opts.lr, betas=(0.9, 0.98), eps=1e-9)
    train(model, train_dl, loss_fn, optim, special_symbols, opts)
    validate(model, valid_dl, loss_fn, special_symbols)

    src = src_transform("ein hund rennt").view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    greedy_decode(model, src, src_mask, max_len=num_tokens+5,
                  start_symbol=special_symbols["<bos>"], end_symbol=special_symbols["<eos>"])


RECOMPILE_CASES = [
    ("translator_train_validate", translator_train_validate),
    ("translator_greedy_inference", translator_greedy_inference),
    ("translator_layers_compiled", translator_layers_compiled),
]
