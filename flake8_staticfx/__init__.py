"""flake8-staticfx: find where torch.compile will break a model's graph, from the source alone."""
__version__ = "0.3.0"
