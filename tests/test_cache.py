"""The diagnostics kept between runs (front/cache.py): a warm run answers as a cold one, byte for
byte, and an entry whose file, settings, linter or dependencies changed is never used.

A kept entry is proved used by "poisoning" it (its diagnostics replaced by one no analysis
gives): the warm answer is then the poison, and a stale entry must never give it."""
from __future__ import annotations

import glob
import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from flake8_staticfx.config import Options
from flake8_staticfx.discover import compiled
from flake8_staticfx.discover.reads import Reads
from flake8_staticfx.front import cache, plugin
from flake8_staticfx.front.cache import ResultCache
from flake8_staticfx.front import packs as packs_module
from flake8_staticfx.front.packs import evict
from flake8_staticfx.front.report import Diagnostic

ROOT = Path(__file__).resolve().parent.parent
POISON = {"line": 1, "col": 0, "message": "SFX999 kept", "code": "SFX999", "gb_ids": [], "condition": None, "waits_on": None}
POISONED = "1:0:SFX999:SFX999 kept:():None:None"  # what lines_of gives for it


@pytest.fixture(autouse=True)
def cache_on(monkeypatch):
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)  # conftest turns it off for the other tests
    monkeypatch.delenv(cache.CACHE_DIR_ENV, raising=False)


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


def lines_of(path: Path, options: Options) -> list[str]:
    """Every field of each diagnostic of `path`, as text."""
    source = path.read_text(encoding="utf-8")
    return [f"{path}:{d.line}:{d.col}:{d.code}:{d.message}:{d.gb_ids}:{d.condition}:{d.waits_on}"
            for d in plugin.diagnose(source, str(path), None, options)]


def packs(directory: Path) -> list[Path]:
    return sorted((directory / "packs").glob("*.jsonl"))


def records(directory: Path) -> list[dict]:
    """Every record of the packs (a line that is not one left out)."""
    found = []
    for pack in packs(directory):
        for line in pack.read_text().splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
    return [record for record in found if isinstance(record, dict) and "key" in record]


def entries(directory: Path) -> list[dict]:
    """The records holding a file's answer (not the shared sets of stamps they name), the newest
    of each key."""
    return list({record["key"]: record for record in records(directory) if "diagnostics" in record}.values())


def shared_sets(directory: Path) -> list[dict]:
    return [record for record in records(directory) if "diagnostics" not in record]


def rewrite(directory: Path, change) -> None:
    """Replace each record's line by change(record) (a record, or a line of text, or None to
    keep it) as an earlier run would have left it: this process forgets what it read."""
    for pack in packs(directory):
        lines = []
        for line in pack.read_text().splitlines():
            changed = change(json.loads(line))  # the records of this test's own runs
            lines.append(line if changed is None else changed if isinstance(changed, str) else json.dumps(changed))
        pack.write_text("".join(line + "\n" for line in lines))
    cache._PACKS.clear()  # noqa: SLF001


def poison(directory: Path) -> None:
    rewrite(directory, lambda record: {**record, "diagnostics": [POISON]} if "diagnostics" in record else None)


def test_warm_answers_as_cold_byte_for_byte_on_the_cases_and_examples(tmp_path, monkeypatch):
    options = Options(cache_dir=str(tmp_path / "cache"))
    files = sorted(Path(p) for p in glob.glob(str(ROOT / "tests" / "cases" / "*.py")) + glob.glob(str(ROOT / "examples" / "*.py")))
    cold = [lines_of(path, options) for path in files]
    assert sum(map(len, cold)) > 100  # the cases break: a real comparison
    assert len(entries(tmp_path / "cache")) > 100

    def not_analysed(*args, **kwargs):
        raise AssertionError("a warm run analysed a file again")

    monkeypatch.setattr(plugin, "analysed", not_analysed)
    warm = [lines_of(path, options) for path in files]
    assert warm == cold


LIBRARY_SAMPLE = ROOT / "tests" / "library_sample"


def test_warm_answers_as_cold_byte_for_byte_on_a_library_sample(tmp_path, monkeypatch):
    """User files that call an installed library (the answers reach into its files), and the
    library's own files."""
    options = Options(cache_dir=str(tmp_path / "cache"), library_path=(str(LIBRARY_SAMPLE / "site-packages"),))
    files = sorted(LIBRARY_SAMPLE.glob("**/*.py"))
    cold = [lines_of(path, options) for path in files]
    assert sum(any("at toylib/" in line for line in lines) for lines in cold) >= 2
    assert len(entries(tmp_path / "cache")) == sum(plugin.might_have_roots(path.read_text()) for path in files) == 5

    def not_analysed(*args, **kwargs):
        raise AssertionError("a warm run analysed a file again")

    monkeypatch.setattr(plugin, "analysed", not_analysed)
    assert [lines_of(path, options) for path in files] == cold


MODEL = """
    import torch
    from torch import nn

    from .helpers import scale


    class Model(nn.Module):
        def forward(self, x):
            return scale(x) + x.sum().item()
"""


def project(tmp_path: Path, helper_body: str) -> Path:
    write(tmp_path / "proj" / "pkg" / "__init__.py", "")
    write(tmp_path / "proj" / "pkg" / "helpers.py", f"def scale(x):\n{helper_body}    return x * 2\n")
    return write(tmp_path / "proj" / "pkg" / "model.py", MODEL)


def fresh_answer(path: Path, options: Options) -> list[str]:
    return lines_of(path, replace(options, no_cache=True))


def test_an_edited_project_file_the_linted_file_imports_gives_a_new_answer(tmp_path):
    options = Options(cache_dir=str(tmp_path / "cache"))
    model = project(tmp_path, "    print(x)\n")
    before = lines_of(model, options)
    assert any("print" in line for line in before)
    poison(tmp_path / "cache")
    assert lines_of(model, options) == [f"{model}:{POISONED}"]  # the entry is used

    write(tmp_path / "proj" / "pkg" / "helpers.py", "def scale(x):\n    return x * 2\n")
    after = lines_of(model, options)
    assert after == fresh_answer(model, options)
    assert not any("print" in line for line in after)


def new_process() -> None:
    """What a new run starts without: the compile index is built, and the stamps of its files
    looked at and kept, once per process."""
    compiled._INDEXES.clear()  # noqa: SLF001
    cache._SHARED_UNCHANGED.clear()  # noqa: SLF001
    cache._PACKS.clear()  # noqa: SLF001
    cache._KEPT.clear()  # noqa: SLF001


def test_a_file_only_the_compile_index_reads_gives_a_new_answer(tmp_path):
    """train.py is not imported: the linted file depends on it through the compile index,
    whose stamps the entries share (a set of their own)."""
    model = project(tmp_path, "")
    write(tmp_path / "proj" / "train.py", "from pkg.model import Model\n\nmodel = Model()\n")
    options = Options(cache_dir=str(tmp_path / "cache"))
    before = lines_of(model, options)
    assert any(".item()" in line for line in before)
    poison(tmp_path / "cache")
    assert lines_of(model, options) == [f"{model}:{POISONED}"]

    write(tmp_path / "proj" / "train.py", "import torch\nfrom pkg.model import Model\n\n"
                                          "model = torch.compile(Model(), fullgraph=True)\n")
    new_process()
    after = lines_of(model, options)
    assert after == fresh_answer(model, options) != before


def test_the_files_of_a_project_share_one_set_of_the_compile_index_stamps(tmp_path):
    model = project(tmp_path, "")
    train = write(tmp_path / "proj" / "train.py", "import torch\nfrom pkg.model import Model\n\n"
                                                  "model = torch.compile(Model())\n")
    other = write(tmp_path / "proj" / "pkg" / "other.py", MODEL.replace(".sum()", ".mean()"))
    # Read by the index alone (train.py imports the model: reach.py reads it for its roots).
    notes = write(tmp_path / "proj" / "notes.py", "import torch\n\nstep = torch.compile(print)\n")
    options = Options(cache_dir=str(tmp_path / "cache"))
    assert lines_of(model, options) and lines_of(other, options)
    documents = entries(tmp_path / "cache")
    assert len(documents) == 2
    assert documents[0]["shared"] == documents[1]["shared"] and len(documents[0]["shared"]) == 1
    sets = {record["key"]: {path for path, _, _ in record["reads"]} for record in shared_sets(tmp_path / "cache")}
    assert all(str(notes) not in sets[document["read_set"]] for document in documents)
    assert {str(train), str(notes)} <= sets[documents[0]["shared"][0]]


@pytest.mark.parametrize("text", ["", "{", '{"shared": "0", "reads": []}'])
def test_a_corrupt_shared_set_is_a_miss(tmp_path, text):
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    expected = lines_of(model, options)
    poison(tmp_path / "cache")
    new_process()
    rewrite(tmp_path / "cache", lambda record: None if "diagnostics" in record else text)
    assert lines_of(model, options) == expected


LIBRARY_USER = """
    from torch import nn
    from fakelib import scale


    class Model(nn.Module):
        def forward(self, x):
            return scale(x)
"""


def library_user(tmp_path: Path) -> tuple[Path, Options]:
    """user/model.py calling fakelib.scale, the options that find fakelib in tmp_path/site-packages."""
    model = write(tmp_path / "user" / "model.py", LIBRARY_USER)
    return model, Options(cache_dir=str(tmp_path / "cache"), library_path=(str(tmp_path / "site-packages"),))


SCALE_BREAKS = "def scale(x):\n    return x / x.abs().max().item()\n"
SCALE_CALM = "def scale(x):\n    return x / 2\n"


def assert_library_edit_gives_a_new_answer(tmp_path: Path, files: dict[str, str], edited: str) -> None:
    """fakelib made of `files` (its layers.py's scale breaks), linted with the cache; then
    `edited` given a calm scale: the answer warm is the fresh one, no break."""
    site = tmp_path / "site-packages"
    for name, text in files.items():
        write(site / "fakelib" / name, text)
    model, options = library_user(tmp_path)
    assert any("fakelib/layers.py" in line for line in lines_of(model, options))
    poison(tmp_path / "cache")
    write(site / "fakelib" / edited, SCALE_CALM)
    assert lines_of(model, options) == fresh_answer(model, options) == []


def test_an_edited_library_file_gives_a_new_answer(tmp_path):
    assert_library_edit_gives_a_new_answer(
        tmp_path, {"__init__.py": "from .layers import scale\n", "layers.py": SCALE_BREAKS}, "layers.py")


def test_a_star_imported_module_read_only_for_its_text_is_a_dependency_too(tmp_path):
    """A star-imported module whose text does not spell the name is not parsed (resolver
    _may_bind), but its text decided the answer: defining the name there later (the last star
    import wins) gives a new answer."""
    assert_library_edit_gives_a_new_answer(
        tmp_path, {"__init__.py": "from .layers import *\nfrom .other import *\n", "layers.py": SCALE_BREAKS,
                   "other.py": "def helper(x):\n    return x\n"}, "other.py")


def test_a_module_appearing_where_the_import_looked_gives_a_new_answer(tmp_path):
    """A path tested and found empty is a dependency too: the module found first changes."""
    write(tmp_path / "site-packages" / "fakelib" / "__init__.py", "def scale(x):\n    return x / 2\n")
    model, options = library_user(tmp_path)
    assert lines_of(model, options) == []
    poison(tmp_path / "cache")
    write(tmp_path / "user" / "fakelib.py", "def scale(x):\n    print(x)\n    return x\n")  # the project's shadows it
    assert lines_of(model, options) == fresh_answer(model, options) != []


def test_files_given_new_mtimes_with_the_same_content_keep_their_answers(tmp_path):
    """A fresh checkout, or a cache directory restored in CI: every stamp moves, no content
    does; the entries are used (compared by content)."""
    model = project(tmp_path, "    print(x)\n")
    write(tmp_path / "proj" / "train.py", "from pkg.model import Model\n\nmodel = Model()\n")
    options = Options(cache_dir=str(tmp_path / "cache"))
    assert lines_of(model, options)
    poison(tmp_path / "cache")
    later = 2_000_000_000 * 10**9
    for path in [tmp_path / "proj", *(tmp_path / "proj").rglob("*")]:
        os.utime(path, ns=(later, later))
    new_process()
    assert lines_of(model, options) == [f"{model}:{POISONED}"]


def test_an_edit_of_the_same_size_gives_a_new_answer(tmp_path):
    model = project(tmp_path, "    x = x.abs().item()\n")
    options = Options(cache_dir=str(tmp_path / "cache"))
    assert any(".item()" in line for line in lines_of(model, options))
    poison(tmp_path / "cache")
    helpers = tmp_path / "proj" / "pkg" / "helpers.py"
    size = helpers.stat().st_size
    write(helpers, "def scale(x):\n    x = x.abs().relu()\n    return x * 2\n")
    assert helpers.stat().st_size == size
    new_process()
    assert lines_of(model, options) == fresh_answer(model, options)
    assert not any("helpers" in line for line in lines_of(model, options))


def test_a_changed_setting_gives_its_own_answer(tmp_path):
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    assert any(".item()" in line for line in lines_of(model, options))
    poison(tmp_path / "cache")
    captured = replace(options, capture_scalar_outputs=True)
    assert lines_of(model, captured) == fresh_answer(model, captured)
    assert not any(".item()" in line for line in lines_of(model, captured))


def test_a_new_linter_version_never_uses_an_older_entry(tmp_path, monkeypatch):
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    expected = lines_of(model, options)
    poison(tmp_path / "cache")
    monkeypatch.setattr(cache, "_linter_stamp", cache.linter_stamp() + " edited")
    assert lines_of(model, options) == expected


@pytest.mark.parametrize("text", ["", "{", "[]", '{"key": 3}', "\x00\xff garbage"])
def test_a_corrupt_entry_is_ignored(tmp_path, text):
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    expected = lines_of(model, options)
    assert len(entries(tmp_path / "cache")) == 1
    rewrite(tmp_path / "cache", lambda record: text if "diagnostics" in record else None)
    assert lines_of(model, options) == expected
    (document,) = entries(tmp_path / "cache")  # and the entry is written anew
    assert document["diagnostics"] and document["diagnostics"] != [POISON]


def test_an_entry_of_another_form_is_ignored(tmp_path):
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    expected = lines_of(model, options)
    rewrite(tmp_path / "cache", lambda record: {**record, "diagnostics": [{"line": "one"}]}
            if "diagnostics" in record else None)
    assert lines_of(model, options) == expected


def test_an_entry_of_the_previous_layout_is_a_miss(tmp_path):
    """Format 4 kept the stamps of the paths a file read in the entry itself ("reads"); an entry
    of that form, even under the key of today's, is not used without them being checked."""
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    expected = lines_of(model, options)
    sets = {record["key"]: record["reads"] for record in shared_sets(tmp_path / "cache")}

    def previous_layout(record: dict) -> dict | None:
        if "diagnostics" not in record:
            return None
        old = {name: value for name, value in record.items() if name != "read_set"}
        return {**old, "reads": sets[record["read_set"]], "diagnostics": [POISON]}

    rewrite(tmp_path / "cache", previous_layout)
    new_process()
    assert lines_of(model, options) == expected


def test_an_entry_of_an_older_format_is_never_found(tmp_path, monkeypatch):
    model = project(tmp_path, "")
    options = Options(cache_dir=str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "FORMAT", cache.FORMAT - 1)
    expected = lines_of(model, options)
    poison(tmp_path / "cache")
    monkeypatch.undo()
    assert lines_of(model, options) == expected


def _store_many(directory: str, worker: int) -> None:
    results = ResultCache(directory)
    for index in range(60):
        key = f"{index % 7:02d}" + "ab" * 31  # the same few keys from every writer
        results.store(key, "model.py", Reads(paths={__file__}), [Diagnostic(worker, index, f"SFX100 from {worker}", "SFX100")])


def test_concurrent_writers_leave_a_valid_cache(tmp_path):
    directory = str(tmp_path / "cache")
    processes = [multiprocessing.get_context("spawn").Process(target=_store_many, args=(directory, worker))
                 for worker in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    found = entries(tmp_path / "cache")  # every line a whole record
    assert len(found) == 7 and len(records(tmp_path / "cache")) == 4 * (60 + 1)  # and each writer's set of stamps
    assert not list((tmp_path / "cache").glob("*/*.tmp"))
    results = ResultCache(directory)
    for entry in found:
        kept = results.load(entry["key"])
        assert kept is not None and len(kept) == 1 and kept[0].message == f"SFX100 from {kept[0].line}"


def test_flake8_jobs_with_a_cache_dir_answer_as_without(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in (cache.NO_CACHE_ENV, cache.CACHE_DIR_ENV)}
    command = [sys.executable, "-m", "flake8", "--select=SFX", "--isolated", "--jobs=2", str(ROOT / "examples")]
    without = subprocess.run([*command, "--staticfx-no-cache"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert without.stdout.count("SFX") > 3
    assert not (tmp_path / "cache").exists()
    runs = [subprocess.run([*command, f"--staticfx-cache-dir={tmp_path / 'cache'}"], capture_output=True, text=True,
                           env=env, cwd=tmp_path) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout == without.stdout
    assert len(entries(tmp_path / "cache")) >= len(glob.glob(str(ROOT / "examples" / "*.py")))


def test_eviction_keeps_the_most_recently_used_within_the_bound(tmp_path):
    for index in range(10):
        entry = write(tmp_path / f"{index:02d}" / f"{index:02d}.json", "x" * 1000)
        os.utime(entry, ns=(index * 10**9, index * 10**9))
    evict(str(tmp_path), 4500)
    assert [path.stem for path in sorted(tmp_path.glob("*/*.json"))] == ["06", "07", "08", "09"]


def test_a_later_file_reusing_an_earlier_files_parse_depends_on_it_too(tmp_path):
    """The parses are cached per process: the second file never reads the library, and its
    answer depends on it all the same."""
    site = tmp_path / "site-packages"
    write(site / "fakelib" / "__init__.py", "def scale(x):\n    return x / x.abs().max().item()\n")
    first, options = library_user(tmp_path)
    second = write(tmp_path / "user" / "second.py", LIBRARY_USER + "\n")
    assert lines_of(first, options) and lines_of(second, options)
    poison(tmp_path / "cache")
    write(site / "fakelib" / "__init__.py", "def scale(x):\n    return x / 2\n")
    assert lines_of(second, options) == []


def test_a_run_adds_one_file_to_the_cache_not_one_per_answer(tmp_path):
    """Creating a file per entry cost a cold run more than the analysis of a small file."""
    options = Options(cache_dir=str(tmp_path / "cache"))
    model = project(tmp_path, "    print(x)\n")
    others = [write(tmp_path / "proj" / "pkg" / f"other{index}.py", MODEL.replace(".sum()", f".sum({index})"))
              for index in range(5)]
    for path in [model, *others]:
        assert lines_of(path, options)
    assert len(entries(tmp_path / "cache")) == 6
    assert [path.relative_to(tmp_path / "cache").parent for path in (tmp_path / "cache").rglob("*.*")] == [Path("packs")]


def _store_and_leave(directory: str) -> None:
    """A --jobs worker's end: os._exit, no flushing, no atexit."""
    ResultCache(directory).store("cd" * 32, "model.py", Reads(paths={__file__}), [Diagnostic(3, 0, "SFX100 kept", "SFX100")])
    os._exit(0)


def test_a_record_outlives_a_worker_leaving_by_os_exit(tmp_path):
    directory = str(tmp_path / "cache")
    process = multiprocessing.get_context("fork").Process(target=_store_and_leave, args=(directory,))
    process.start()
    process.join(60)
    assert process.exitcode == 0
    (kept,) = ResultCache(directory).load("cd" * 32)
    assert kept.message == "SFX100 kept"


def test_a_line_cut_short_is_ignored_and_the_lines_before_it_are_used(tmp_path):
    """A process killed in the middle of a write."""
    directory = str(tmp_path / "cache")
    ResultCache(directory).store("ab" * 32, "model.py", Reads(paths={__file__}), [Diagnostic(1, 0, "SFX100 first", "SFX100")])
    ResultCache(directory).store("cd" * 32, "model.py", Reads(paths={__file__}), [Diagnostic(2, 0, "SFX100 second", "SFX100")])
    (pack,) = packs(tmp_path / "cache")
    pack.write_bytes(pack.read_bytes()[:-20])
    cache._PACKS.clear()  # noqa: SLF001 - a later run
    assert ResultCache(directory).load("cd" * 32) is None
    assert [d.message for d in ResultCache(directory).load("ab" * 32)] == ["SFX100 first"]


def test_a_record_of_another_key_is_never_used(tmp_path):
    directory = str(tmp_path / "cache")
    ResultCache(directory).store("ab" * 32, "model.py", Reads(paths={__file__}), [Diagnostic(1, 0, "SFX100 first", "SFX100")])
    rewrite(tmp_path / "cache", lambda record: json.dumps(record).replace("ab" * 32, "cd" * 32, 1)[:-1]
            + ', "key": "' + "ab" * 32 + '"}')  # its line starts with one key and holds another
    assert ResultCache(directory).load("cd" * 32) is None


def test_many_packs_are_compacted_into_one_keeping_their_records(tmp_path, monkeypatch):
    directory = str(tmp_path / "cache")
    keys = [f"{index:02d}" * 32 for index in range(packs_module.COMPACT_AT + 3)]
    for index, key in enumerate(keys):
        cache._PACKS.clear()  # noqa: SLF001 - a run of its own, with a pack of its own
        monkeypatch.setattr(os, "getpid", lambda index=index: 10_000 + index)
        ResultCache(directory).store(key, f"model{index}.py", Reads(paths={__file__}), [Diagnostic(index, 0, "SFX100 kept", "SFX100")])
    monkeypatch.undo()
    # The run that found 33 packs merged them into one before making its own; one more run after it.
    assert len(packs(tmp_path / "cache")) == 3
    assert len([pack for pack in packs(tmp_path / "cache") if "compacted" in pack.name]) == 1
    cache._PACKS.clear()  # noqa: SLF001
    assert [ResultCache(directory).load(key)[0].line for key in keys] == list(range(len(keys)))


def test_compaction_drops_an_edited_files_older_entry_and_the_shared_sets_no_entry_names(tmp_path, monkeypatch):
    """Else every edit would leave an entry in the packs each process reads."""
    directory = str(tmp_path / "cache")

    def run(index: int, key: str, path: str, shared: frozenset[str] = frozenset()) -> None:
        cache._PACKS.clear()  # noqa: SLF001 - a run of its own, with a pack of its own
        cache._SETS_STORED.clear()  # noqa: SLF001
        monkeypatch.setattr(os, "getpid", lambda: 20_000 + index)
        ResultCache(directory).store(key, path, Reads(paths={__file__}, shared={shared} if shared else set()),
                                     [Diagnostic(index, 0, "SFX100 kept", "SFX100")])

    run(0, "aa" * 32, "model.py", frozenset({str(tmp_path / "train.py")}))
    run(1, "bb" * 32, "model.py")  # model.py edited: a new key
    for index in range(2, packs_module.COMPACT_AT + 2):
        run(index, f"{index:02d}" * 32, f"other{index}.py")
    monkeypatch.undo()
    kept = {record["key"] for record in records(tmp_path / "cache")}
    assert "bb" * 32 in kept and "aa" * 32 not in kept
    assert {frozenset(path for path, _, _ in record["reads"]) for record in shared_sets(tmp_path / "cache")} == {frozenset({__file__})}
    assert all(f"{index:02d}" * 32 in kept for index in range(2, packs_module.COMPACT_AT + 2))
