"""Held out (issue 34): model files of seven public repositories no other part of the project
used, copied unchanged with their licences (each file's header names its repository, commit and
path; only the imports between a repository's files are joined), each with a short driver at its
end (`CASES`) that builds the model at a small size and makes inputs, as their READMEs and
training scripts call them: ViT, CaiT and NaViT (lucidrains/vit-pytorch), PointNet
(fxia22/pointnet.pytorch), GAT dense and sparse (Diego999/pyGAT), a Llama 2 (karpathy/llama2.c),
Mamba (johnma2006/mamba-minimal), WaveGlow (NVIDIA/waveglow), three VAEs (AntixK/PyTorch-VAE).

Never used to tune the rules. Truth for dynamo 2.13 (`python tests/oracle/record_truth.py --cases
tests/model_heldout`); the vit-pytorch files need einops (0.8.2) installed beside the linter, as
a user of them would have it. Score: `python tests/oracle/scoring.py --cases tests/model_heldout`.
"""
