"""Analysis options: the dynamo settings that change the answer, and the analysis limits."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping

from .ir import AUTOCAST, CONFIGURED, DEVICE, FLOAT_DTYPE, TRAINING, Condition

if TYPE_CHECKING:
    from .rules import Rule

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
    # Builtins dynamo reorders after the graph (torch._dynamo.config.reorderable_logging_functions).
    reorderable_logging_functions: tuple[str, ...] = ()
    # What counts as an nn.Module base besides torch.nn.Module (qualified or bare class names).
    module_bases: tuple[str, ...] = DEFAULT_MODULE_BASES
    # Where installed libraries are looked for before $VIRTUAL_ENV, the project's venv and sys.path.
    library_path: tuple[str, ...] = ()
    # Every public function and method of the linted file, and every __call__, is a root too.
    library_roots: bool = False
    # Only what the project's torch.compile calls and decorators compile is a root.
    compiled_only: bool = False
    # Report SFX900 "could not analyse" notices (off by default: they are about us, not the code).
    report_notices: bool = False
    # Limits that keep the analysis bounded on any input.
    max_inline_depth: int = 12
    max_unroll: int = 64
    max_nodes: int = 20000
    file_time_budget: float = 5.0  # CPU seconds per file
    max_steps: int = 400_000  # statements interpreted per file
    # The torch release the answers are for ("2.14"); "" until analysis.py resolves it
    # (torch_versions.resolve: this option, else the installed torch, the pins, the newest).
    torch_version: str = ""
    # Reuse what a call inlined before in the same file (flake8); the CLI draws full graphs.
    reuse_inlined: bool = True
    # Follow constructor defaults and training mode in `if`s, as torch.fx traces a module
    # built with defaults (the graph CLI); the lint explores every path instead.
    follow_defaults: bool = False
    # The mode the model runs in ("eval", "train"), and the floating dtype of its inputs
    # ("float32", "float16", "bfloat16"): "" for any, each break of one only labelled with it.
    mode: str = ""
    dtype: str = ""
    # The device type the model runs on ("cpu", "cuda", "mps"): "" for any, as dtype.
    device: str = ""
    # The configuration: "default" follows constructor and config-field defaults (a model built
    # with defaults); "any" also takes the paths other values reach, each break labelled with one.
    # Unset: "default", but "any" with library_roots (a library's users build its classes).
    configuration: str = ""
    # Where answers are kept between runs (front/cache.py): "" for the user's cache directory.
    cache_dir: str = ""
    no_cache: bool = False

    def settles(self, condition: Condition) -> bool | None:
        """Does `condition` hold in the run these options describe (--staticfx-mode,
        --staticfx-dtype, --staticfx-device, --staticfx-configuration)? None when they leave it open."""
        if condition.kind == CONFIGURED and not self.any_configuration:
            return not condition.holds
        if condition.kind == TRAINING and self.mode:
            return (self.mode == "train") == condition.holds
        if condition.kind == FLOAT_DTYPE and self.dtype:
            return (self.dtype == condition.subject) == condition.holds
        if condition.kind == DEVICE and self.device:
            return (self.device == condition.subject) == condition.holds
        if condition.kind == AUTOCAST and self.dtype == "float32":
            return not condition.holds  # a float16 or bfloat16 run may be one under autocast
        return None

    @property
    def any_configuration(self) -> bool:
        """Are the paths only a non-default setting reaches taken (--staticfx-configuration=any;
        never in the instance view, which draws the model built with defaults)?"""
        chosen = self.configuration or ("any" if self.library_roots else "default")
        return chosen == "any" and not self.follow_defaults

    def captures(self, setting: str) -> bool:
        """Is the boolean dynamo setting `setting` (a field name) on?"""
        return bool(getattr(self, setting))

    def breaks(self, rule: Rule, qname: str = "") -> bool:
        """Does dynamo break on a construct of `rule` (a call of `qname`) under these settings,
        or does a setting capture it (`.item()` under capture_scalar_outputs) or drop it (a
        logger method listed in ignore_logger_methods)?"""
        if any(self.captures(setting) for setting in rule.captured_by):
            return False
        return not (rule.ignored_by and qname in getattr(self, rule.ignored_by))

    def with_written(self, written: Mapping[str, Any]) -> Options:
        """These options under the dynamo settings the code writes (a module's top level, a
        `config.patch`), keyed by Options field: a switch takes the written value, the functions
        dynamo ignores add to those of the options."""
        if not written:
            return self
        fields = {name: (*getattr(self, name), *(item for item in value if item not in getattr(self, name)))
                  if isinstance(value, tuple) else value for name, value in written.items()}
        return replace(self, **fields)


def might_have_roots(source: str) -> bool:
    """Cheap pre-filter, before astroid is even imported: no compile root can exist without
    `forward` or torch being named."""
    return "torch" in source or "forward" in source


# -- the staticfx-* options, declared once -------------------------------------------------
# The flake8 plugin (plugin.py: add_options/parse_options) and the standalone command
# (`flake8-staticfx check`, cli.py) both build their flags and config keys from this table, so
# `staticfx-fullgraph = true` in a [flake8] section means the same to both.


@dataclass(frozen=True)
class OptionSpec:
    flag: str  # the command-line flag; the config key is the flag without its leading `--`
    kind: str  # "bool" (a switch), "int", "list" (comma separated names), "version" (X.Y), "choice" or "path"
    field: str  # the Options field it sets
    help: str
    default: Any = None  # None: the Options field's own default
    choices: tuple[str, ...] = ()  # the values a "choice" option takes
    # "list" options only: add to the field as set by the options before it in the table
    # (--staticfx-extend-module-bases) instead of replacing it (--staticfx-module-bases).
    extends: bool = False

    @property
    def config_name(self) -> str:
        return self.flag[2:]

    @property
    def dest(self) -> str:
        """The attribute name argparse (and flake8) give the value."""
        return self.config_name.replace("-", "_")

    @property
    def default_value(self) -> Any:
        if self.default is not None:
            return self.default
        return () if self.extends else getattr(Options(), self.field)


OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("--staticfx-fullgraph", "bool", "fullgraph",
               "Lint for torch.compile(fullgraph=True): .item() and dynamic-shape operators are "
               "captured, not broken on."),
    OptionSpec("--staticfx-capture-scalar-outputs", "bool", "capture_scalar_outputs",
               "Mirror torch._dynamo.config.capture_scalar_outputs=True."),
    OptionSpec("--staticfx-capture-dynamic-output-shape-ops", "bool", "capture_dynamic_output_shape_ops",
               "Mirror torch._dynamo.config.capture_dynamic_output_shape_ops=True."),
    OptionSpec("--staticfx-ignore-logging-functions", "list", "ignore_logging_functions",
               "Logger methods dynamo drops (torch._dynamo.config.ignore_logger_methods), "
               "e.g. logging.Logger.info,logging.Logger.warning."),
    OptionSpec("--staticfx-module-bases", "list", "module_bases",
               "Third-party base classes that are nn.Modules (qualified or bare names); replaces the "
               "default list. Default: %(default)s"),
    OptionSpec("--staticfx-extend-module-bases", "list", "module_bases",
               "Third-party base classes that are nn.Modules, added to --staticfx-module-bases "
               "(qualified or bare names).", extends=True),
    OptionSpec("--staticfx-library-path", "list", "library_path",
               "Directories (site-packages) where the libraries the code calls are found, searched "
               "before $VIRTUAL_ENV, a .venv/venv at the project root and sys.path; found by path, "
               "never imported."),
    OptionSpec("--staticfx-library-roots", "bool", "library_roots",
               "Lint a library: every public function and method of the file, and every __call__, "
               "is a compile root, its parameters typed as a forward's (*args and unannotated "
               "None defaults unknown)."),
    OptionSpec("--staticfx-compiled-only", "bool", "compiled_only",
               "Lint only what the project compiles: classes and functions its torch.compile calls "
               "(in any file of the project) and decorators compile. Without a compile call, every "
               "forward is linted, and it says so once."),
    OptionSpec("--staticfx-notices", "bool", "report_notices",
               "Report SFX900 when a compile root could not be analysed (and why)."),
    OptionSpec("--staticfx-torch-version", "version", "torch_version",
               "The torch release to answer for (X.Y: 2.13, 2.14, 2.15). Default: the torch installed "
               "beside the code, else the project's pins, else the newest modeled."),
    OptionSpec("--staticfx-max-inline-depth", "int", "max_inline_depth",
               "How deep calls are inlined. Default: %(default)s"),
    OptionSpec("--staticfx-mode", "choice", "mode",
               "The mode the model runs in: only the breaks of that mode are reported. Default: both, "
               "each break of one mode only labelled with it (`when training`).", choices=("eval", "train")),
    OptionSpec("--staticfx-dtype", "choice", "dtype",
               "The floating dtype of the inputs: only the breaks in that dtype are reported; float32 "
               "also means autocast is off, float16 and bfloat16 leave it open (`under autocast`). "
               "Default: any, each break of one dtype only labelled with it (`in float16`).",
               choices=("float32", "float16", "bfloat16")),
    OptionSpec("--staticfx-device", "choice", "device",
               "The device type the model runs on: only the breaks on it are reported. Default: any, "
               "each break of one device only labelled with it (`on cuda`).", choices=("cpu", "cuda", "mps")),
    OptionSpec("--staticfx-configuration", "choice", "configuration",
               "The configuration the model is built with: `default` follows constructor and config-field "
               "defaults; `any` also reports the breaks only another value reaches, each labelled with it "
               "(`with debug=True`), for library authors. Default: `default`, or `any` where every public "
               "function is a root (library roots).", choices=("default", "any")),
    OptionSpec("--staticfx-cache-dir", "path", "cache_dir",
               "Where each file's diagnostics are kept between runs. Default: $FLAKE8_STATICFX_CACHE_DIR, "
               "else $XDG_CACHE_HOME/flake8-staticfx (~/.cache/flake8-staticfx)."),
    OptionSpec("--staticfx-no-cache", "bool", "no_cache",
               "Analyse every file again instead of using the diagnostics kept between runs (also "
               "$FLAKE8_STATICFX_NO_CACHE=1)."),
)

_LIST_SEPARATOR = re.compile(r"[,\s]")  # flake8's COMMA_SEPARATED_LIST_RE


def split_list(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A comma (or whitespace) separated list, as flake8 splits `comma_separated_list` options."""
    if not isinstance(value, str):
        return tuple(item for item in value if item)
    return tuple(item.strip() for item in _LIST_SEPARATOR.split(value) if item.strip())


_BOOLEANS = {"1": True, "yes": True, "true": True, "on": True,
             "0": False, "no": False, "false": False, "off": False}


def parse_config_value(spec: OptionSpec, text: str) -> Any:
    """A [flake8] section's value for `spec`, read the way flake8 reads it (configparser's
    getboolean / getint, flake8's list splitting). Raises ValueError on a bad value."""
    if spec.kind == "bool":
        try:
            return _BOOLEANS[text.strip().lower()]
        except KeyError:
            raise ValueError(f"{spec.config_name}: not a boolean: {text!r}") from None
    if spec.kind == "int":
        try:
            return int(text.strip())
        except ValueError:
            raise ValueError(f"{spec.config_name}: not an integer: {text!r}") from None
    if spec.kind == "version":
        return version_value(text)
    if spec.kind == "choice":
        if text.strip() not in spec.choices:
            raise ValueError(f"{spec.config_name}: not one of {', '.join(spec.choices)}: {text!r}")
        return text.strip()
    if spec.kind == "path":
        return text.strip()
    return split_list(text)


def version_value(text: str) -> str:
    """A torch release as X.Y or X.Y.Z (`2.14`, `2.14.1`). Raises ValueError otherwise."""
    if not re.fullmatch(r"\s*\d+\.\d+(\.\d+)?\s*", text):
        raise ValueError(f"staticfx-torch-version: not a torch version (X.Y): {text!r}")
    return text.strip()


def options_from(values: Mapping[str, Any], **extra: Any) -> Options:
    """Options from option values keyed by `OptionSpec.dest` (an argparse namespace's vars(),
    flake8's parsed options); a missing or None value takes the option's default."""
    fields: dict[str, Any] = {}
    for spec in OPTION_SPECS:
        value = values.get(spec.dest)
        if value is None:
            value = spec.default_value
        if spec.kind == "list":
            value = split_list(value)
        if spec.extends:
            current = fields.get(spec.field, getattr(Options(), spec.field))
            value = (*current, *(item for item in value if item not in current))
        fields[spec.field] = value
    return Options(**fields, **extra)
