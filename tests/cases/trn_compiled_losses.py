"""Knowledge-distillation losses as stand-alone compiled functions.

The student is trained on a mix of the hard labels (cross-entropy with label smoothing and
an ``ignore_index``), the teacher's temperature-softened distribution (Hinton et al.) and a
small z-loss on the log-partition function that keeps logits from drifting (PaLM).
"""
import math

import torch
import torch.nn.functional as F


@torch.compile
def z_loss(logits, weight=1e-4):
    return weight * torch.logsumexp(logits.float(), dim=-1).pow(2).mean()


@torch.compile(dynamic=False)
def soft_target_cross_entropy(logits, soft_targets, valid=None):
    loss = torch.sum(-soft_targets * F.log_softmax(logits, dim=-1), dim=-1)
    if valid is None:
        return loss.mean()
    valid = valid.to(loss.dtype)
    return (loss * valid).sum() / valid.sum().clamp_min(1.0)


@torch.compile
def distillation_loss(student_logits, teacher_logits, labels, temperature=2.0, alpha=0.5,
                      smoothing=0.1, ignore_index=-100):
    if student_logits.dim() == 3:
        student_logits = student_logits.flatten(0, 1)
        teacher_logits = teacher_logits.flatten(0, 1)
        labels = labels.flatten()
    if not isinstance(temperature, float):
        temperature = float(temperature)
    num_classes = student_logits.size(-1)
    valid = labels.ne(ignore_index)
    one_hot = F.one_hot(labels.clamp_min(0), num_classes=num_classes).to(student_logits.dtype)
    hard_targets = one_hot * (1.0 - smoothing) + smoothing / num_classes
    hard = soft_target_cross_entropy(student_logits, hard_targets, valid)
    with torch.no_grad():
        teacher_probs = F.softmax(teacher_logits / temperature, dim=-1)
    soft = soft_target_cross_entropy(student_logits / temperature, teacher_probs, valid)
    kd_scale = temperature ** 2 if temperature > 1.0 else 1.0
    loss = alpha * hard + (1.0 - alpha) * kd_scale * soft + z_loss(student_logits)
    entropy = -(teacher_probs * teacher_probs.clamp_min(torch.finfo(teacher_probs.dtype).tiny).log()).sum(-1)
    return loss, entropy.mean() / math.log(num_classes)


def _inputs():
    labels = torch.tensor([[1, 4, -100], [0, 2, 3]])
    return torch.randn(2, 3, 5), torch.randn(2, 3, 5), labels


CASES = [
    ("distillation_loss", lambda: distillation_loss, _inputs),
    ("soft_target_cross_entropy", lambda: soft_target_cross_entropy,
     lambda: (torch.randn(4, 5), torch.softmax(torch.randn(4, 5), -1))),
]
