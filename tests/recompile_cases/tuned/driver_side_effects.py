"""What real training scripts do around the compiled calls: create an output directory
(`os.makedirs`), log through `logging`, time steps with `time.time()`, wrap the loader in a tqdm
progress bar, save numbers with `json.dump`. None of it changes what dynamo guards: 52 rows in
batches of 16 end with a batch of 4 (one recompile with a dynamic batch), an evaluation under
no_grad recompiles on the grad mode. The near miss: 48 rows, and no evaluation (one compile)."""
import json
import logging
import os
import tempfile
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x).log_softmax(dim=-1)


def run(rows, evaluate):
    out_dir = os.path.join(tempfile.gettempdir(), "staticfx_driver_side_effects")
    os.makedirs(out_dir, exist_ok=True)
    loader = DataLoader(TensorDataset(torch.rand(rows, 8), torch.randint(0, 2, (rows,))), batch_size=16)
    model = torch.compile(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        t0 = time.time()
        for data, target in tqdm(loader, desc=f"epoch {epoch}", disable=True):
            loss = nn.functional.nll_loss(model(data), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            logger.info("loss %.4f", loss.item())
        logging.info("epoch %d took %.2fs", epoch, time.time() - t0)
        if evaluate:
            with torch.no_grad():
                for data, target in loader:
                    model(data)
    with open(os.path.join(out_dir, "done.json"), "w") as handle:
        json.dump({"rows": rows}, handle)


def smaller_last_batch_then_eval():
    run(52, evaluate=True)


def even_batches():
    run(48, evaluate=False)


RECOMPILE_CASES = [
    ("smaller_last_batch_then_eval", smaller_last_batch_then_eval),
    ("even_batches", even_batches),
]
