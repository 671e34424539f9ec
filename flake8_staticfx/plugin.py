"""The flake8 adapter: reads options, runs the analysis, yields (line, col, message, type)."""
from __future__ import annotations

import ast
import gc
from typing import Any, Iterator

from . import __version__
from .config import DEFAULT_MODULE_BASES, Options, might_have_roots
from .rules import OFF_BY_DEFAULT

GC_THRESHOLDS = (20_000, 50, 100)


def _relax_garbage_collector() -> None:
    """Collect less often in the flake8 process: the parsed trees the analysis keeps across
    files made half of its time garbage collection. Measured on 119 model files of
    transformers, timm and diffusers: flake8 with the plugin cost 1.84x flake8 alone with
    Python's thresholds, 1.40x with these, for 99 MB instead of 81 MB peak."""
    current = gc.get_threshold()
    gc.set_threshold(*(max(a, b) for a, b in zip(current, GC_THRESHOLDS)))


class Checker:
    name = "flake8-staticfx"
    version = __version__
    options = Options()

    def __init__(self, tree: ast.Module, filename: str, lines: list[str]):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option("--staticfx-fullgraph", action="store_true", parse_from_config=True,
                           help="Lint for torch.compile(fullgraph=True): .item() and dynamic-shape "
                                "operators are captured, not broken on.")
        manager.add_option("--staticfx-capture-scalar-outputs", action="store_true", parse_from_config=True,
                           help="Mirror torch._dynamo.config.capture_scalar_outputs=True.")
        manager.add_option("--staticfx-capture-dynamic-output-shape-ops", action="store_true",
                           parse_from_config=True,
                           help="Mirror torch._dynamo.config.capture_dynamic_output_shape_ops=True.")
        manager.add_option("--staticfx-ignore-logging-functions", default="", parse_from_config=True,
                           comma_separated_list=True,
                           help="Logger methods dynamo drops (torch._dynamo.config.ignore_logger_methods), "
                                "e.g. logging.Logger.info,logging.Logger.warning.")
        manager.add_option("--staticfx-module-bases", default=",".join(DEFAULT_MODULE_BASES),
                           parse_from_config=True, comma_separated_list=True,
                           help="Third-party base classes that are nn.Modules (qualified or bare names). "
                                "Default: %(default)s")
        manager.add_option("--staticfx-notices", action="store_true", parse_from_config=True,
                           help="Report SFX900 when a compile root could not be analysed (and why).")
        manager.add_option("--staticfx-max-inline-depth", type=int, default=Options.max_inline_depth,
                           parse_from_config=True, help="How deep calls are inlined. Default: %(default)s")
        manager.extend_default_ignore(list(OFF_BY_DEFAULT))

    @classmethod
    def parse_options(cls, options: Any) -> None:
        _relax_garbage_collector()
        cls.options = Options(
            fullgraph=options.staticfx_fullgraph,
            capture_scalar_outputs=options.staticfx_capture_scalar_outputs,
            capture_dynamic_output_shape_ops=options.staticfx_capture_dynamic_output_shape_ops,
            ignore_logging_functions=tuple(options.staticfx_ignore_logging_functions or ()),
            module_bases=tuple(options.staticfx_module_bases or ()),
            max_inline_depth=options.staticfx_max_inline_depth,
            report_notices=options.staticfx_notices,
        )

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        if not might_have_roots(source):
            return  # before importing the analysis (and astroid): other projects pay nothing
        from .analysis import analyze
        from .messages import notice
        from .report import flake8_diagnostics
        from .rules import RULES

        try:
            analysis = analyze(source, self.filename, self.tree, self.options)
        except Exception as exc:  # noqa: BLE001 - the last guard: flake8 must never see it
            if self.options.report_notices:
                yield 1, 0, notice(RULES["SFX900"], self.filename, type(exc).__name__), type(self)
            return
        for line, col, message in flake8_diagnostics(analysis, self.options.report_notices):
            yield line, col, message, type(self)
