"""Analysis options: the dynamo settings that change the answer, and the analysis limits."""
from __future__ import annotations

from dataclasses import dataclass

# Third-party classes that are nn.Modules, recognised by name (--staticfx-module-bases).
DEFAULT_MODULE_BASES = (
    "LightningModule", "PreTrainedModel", "GradientCheckpointingLayer", "ModelMixin", "HubMixin",
    "PyTorchModelHubMixin",
)


@dataclass(frozen=True)
class Options:
    # Mirrors of torch.compile / torch._dynamo.config settings.
    fullgraph: bool = False
    capture_scalar_outputs: bool = False
    capture_dynamic_output_shape_ops: bool = False
    ignore_logging_functions: tuple[str, ...] = ()
    # What counts as an nn.Module base besides torch.nn.Module (qualified or bare class names).
    module_bases: tuple[str, ...] = DEFAULT_MODULE_BASES
    # Report SFX900 "could not analyse" notices (off by default: they are about us, not the code).
    report_notices: bool = False
    # Limits that keep the analysis bounded on any input.
    max_inline_depth: int = 12
    max_unroll: int = 64
    max_nodes: int = 20000
    file_time_budget: float = 5.0  # CPU seconds per file
    max_steps: int = 400_000  # statements interpreted per file
    # Reuse what a call inlined before in the same file (flake8); the CLI draws full graphs.
    reuse_inlined: bool = True
    # Follow constructor defaults and training mode in `if`s, as torch.fx traces a module
    # built with defaults (the graph CLI); the lint explores every path instead.
    follow_defaults: bool = False

    def captures(self, setting: str) -> bool:
        """Is the boolean dynamo setting `setting` (a field name) on?"""
        return bool(getattr(self, setting))


def might_have_roots(source: str) -> bool:
    """Cheap pre-filter, before astroid is even imported: no compile root can exist without
    `forward` or torch being named."""
    return "torch" in source or "forward" in source
