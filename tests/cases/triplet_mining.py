"""Pair and triplet mining for metric-learning losses, on the labels of a batch."""
import torch

INT32_MAX = torch.iinfo(torch.int32).max


def all_triplets(labels):
    """Every (anchor, positive, negative) of the batch; torch.where cannot index a tensor of
    more than INT_MAX elements, so big batches go anchor by anchor."""
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    positives = same ^ torch.eye(len(labels), dtype=torch.bool, device=labels.device)
    negatives = ~same
    if same.shape[0] * same.shape[1] * same.shape[1] < INT32_MAX:
        return torch.where(positives.unsqueeze(2) & negatives.unsqueeze(1))
    return _triplets_by_anchor(positives, negatives)


def _triplets_by_anchor(positives, negatives):
    anchors = torch.arange(len(positives), device=positives.device)
    anchors = anchors[positives.any(1) & negatives.any(1)]
    triplets = [torch.cartesian_prod(torch.tensor([a]), torch.where(positives[a])[0], torch.where(negatives[a])[0])
                for a in anchors.tolist()]
    return torch.cat(triplets).unbind(1)


def hardest_negative_distance(distances, labels):
    """Per anchor, the distance to its closest negative; a masked minimum on small batches."""
    different = labels.unsqueeze(0) != labels.unsqueeze(1)
    if distances.shape[0] * distances.shape[1] < INT32_MAX:
        return distances.masked_fill(~different, float("inf")).amin(1)
    rows, cols = torch.where(different)
    return torch.full_like(distances[:, 0], float("inf")).scatter_reduce(0, rows, distances[rows, cols], "amin")
