"""The package's layout as issue 31 left it, measured so that it cannot slide back: no module
over 800 lines, no class over 600, at most 60 isinstance tests on value classes outside
values/ (each kind of value owns its behaviour), and no import circle between modules,
imports inside functions counted (scripts/import_circles.py, scripts/layout_metrics.py)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import import_circles  # noqa: E402  (scripts/import_circles.py)
import layout_metrics  # noqa: E402  (scripts/layout_metrics.py)

MAX_MODULE_LINES = 800
MAX_CLASS_LINES = 600
MAX_VALUE_TESTS_OUTSIDE_VALUES = 60


def test_no_module_is_over_800_lines():
    assert [s for s in layout_metrics.module_sizes(ROOT) if s.lines > MAX_MODULE_LINES] == []


def test_no_class_is_over_600_lines():
    assert [s for s in layout_metrics.class_sizes(ROOT) if s.lines > MAX_CLASS_LINES] == []


def test_few_isinstance_tests_on_value_classes_outside_values():
    tests = layout_metrics.value_tests_outside(ROOT)
    assert len(tests) <= MAX_VALUE_TESTS_OUTSIDE_VALUES, [f"{t.path}:{t.line}" for t in tests]


def test_no_import_circle():
    """Not even among the kinds of value, which make one another (values/__init__.py says how)."""
    assert import_circles.circles(import_circles.graph(ROOT)) == []


def test_a_late_import_closing_a_circle_is_found(tmp_path):
    """The measure itself: an import inside a function counts, one under TYPE_CHECKING does not."""
    package = tmp_path / "flake8_staticfx"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import f\n")
    (package / "b.py").write_text("def f():\n    from .a import g\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n")
    (package / "d.py").write_text("from . import c\n")
    assert import_circles.circles(import_circles.graph(tmp_path)) == [["flake8_staticfx.a", "flake8_staticfx.b"]]
