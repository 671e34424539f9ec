"""An input made to require grad by setting the attribute (`data.requires_grad = True`, as the
FGSM tutorial does before computing the input's gradient): dynamo guards each tensor input's
requires_grad, so a call with such an input after one without recompiles once; the near misses
set it on every input, or set it to False."""
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(x).log_softmax(dim=1)


def attack_after_plain_calls():
    model = torch.compile(Classifier())
    for _ in range(2):
        model(torch.randn(4, 8))
    data = torch.randn(4, 8)
    data.requires_grad = True
    loss = model(data).sum()
    loss.backward()
    print(data.grad.sign().shape)


def every_input_requires_grad():
    model = torch.compile(Classifier())
    for _ in range(3):
        data = torch.randn(4, 8)
        data.requires_grad = True
        model(data).sum().backward()


def requires_grad_set_false():
    model = torch.compile(Classifier())
    model(torch.randn(4, 8))
    data = torch.randn(4, 8)
    data.requires_grad = False
    model(data)


RECOMPILE_CASES = [
    ("attack_after_plain_calls", attack_after_plain_calls),
    ("every_input_requires_grad", every_input_requires_grad),
    ("requires_grad_set_false", requires_grad_set_false),
]
