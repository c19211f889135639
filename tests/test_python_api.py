"""The Python API (niah.api): docs/python-api.md's worked example runs as written, and the functions keep the
CLI's checks (unknown options, wrong kinds, folders holding something else)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

from niah.api import build, builder_of, headlines, load_dataset
from niah.util.errors import ConfigError

DOC = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


def test_the_worked_example_runs_as_written(tmp_path: Path) -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) == 1, "docs/python-api.md has one worked example"
    out = io.StringIO()
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(blocks[0], str(DOC), "exec"), {"__name__": "__doc_example__"})
    finally:
        os.chdir(here)
    printed = out.getvalue().splitlines()
    assert printed[0] == "{'retrieval-text': 10, 'counting-text': 10}"  # what the comment beside it says
    assert printed[1] == "20 samples"
    assert printed[2] == "20 answered, 0 failed"
    assert printed[3].startswith("100.0% (")
    assert printed[4] == "index.html"
    assert printed[5].startswith("audit passed ")
    for name in ("ds/samples.jsonl", "run/responses.jsonl", "run/scores.json", "report/index.html"):
        assert (tmp_path / name).is_file(), name


def test_build_refuses_what_the_builder_does_not_take_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="takes no option 'per_sell'"):
        build("mm-niah", tmp_path / "a", per_sell=2, progress=False)
    with pytest.raises(ConfigError, match="option 'per_cell' .* must be an integer"):
        build("mm-niah", tmp_path / "b", per_cell="two", progress=False)
    with pytest.raises(ConfigError, match="no builder 'nope'"):
        build("mm-niah", tmp_path / "c", builder="nope", progress=False)
    assert not any(tmp_path.iterdir())


def test_build_keeps_the_folder_rules(tmp_path: Path) -> None:
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "NOTES.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds something else"):
        build("mm-niah", mine, lengths="1k", tasks=["retrieval-text"], per_cell=1, progress=False)
    assert [p.name for p in mine.iterdir()] == ["NOTES.txt"]

    ds = tmp_path / "ds"
    first = build("mm-niah", ds, lengths="1k", tasks=["retrieval-text"], per_cell=1, seed=1, progress=False)
    before = (ds / "samples.jsonl").read_bytes()
    with pytest.raises(ConfigError, match="already holds a dataset"):
        build("mm-niah", ds, lengths="1k", tasks=["retrieval-text"], per_cell=1, seed=2, progress=False)
    assert (ds / "samples.jsonl").read_bytes() == before
    again = build("mm-niah", ds, lengths="1k", tasks=["retrieval-text"], per_cell=1, seed=2, overwrite=True,
                  progress=False)
    assert again == first and (ds / "samples.jsonl").read_bytes() != before
    assert len(list(load_dataset(ds))) == sum(first.values())


def test_builder_of_names_the_options_and_refuses_a_family_without_a_generator() -> None:
    assert "per_cell" in builder_of("mm-niah").option_kinds
    with pytest.raises(ConfigError):
        builder_of("no-such-family")


def test_headlines_reads_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="scores.json"):
        headlines(tmp_path)


def test_audit_measures_more_samples_of_a_python_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from niah.api import audit

    ds = tmp_path / "ds"
    counts = build("mm-niah", ds, lengths="1k", tasks=["retrieval-text"], per_cell=1, seed=4, progress=False)
    report = audit(ds, max_per_task=3 * counts["retrieval-text"], progress=False)
    built = [s for s in report.sources if s.get("built")]
    assert built and "niah.api.build" in built[0]["command"], report.sources
    assert report.tasks["retrieval-text"] > counts["retrieval-text"]
    as_is = audit(ds, max_per_task=0, progress=False)
    assert as_is.tasks["retrieval-text"] == counts["retrieval-text"]
    old_spelling = audit(ds, limit=0, progress=False)  # AuditOptions' own name, deprecated here
    assert old_spelling.tasks == as_is.tasks
    assert "note: audit(limit=...) is deprecated; use max_per_task" in capsys.readouterr().err


def test_run_takes_the_sampling_seed_by_its_own_name(tmp_path: Path) -> None:
    """``sampling_seed`` is ``niah run --sampling-seed`` (``seed`` is a build's); it reaches the settings sent."""
    import json

    from niah.api import run
    from niah.prompts.types import GenerationSettings
    from niah.util.errors import ConfigError

    ds = tmp_path / "ds"
    build("mm-niah", ds, lengths="1k", tasks=["retrieval-text"], per_cell=1, progress=False)
    run(ds, "baseline:oracle", tmp_path / "run", sampling_seed=3, progress=False)
    assert '"seed": 3' in json.dumps(json.loads((tmp_path / "run" / "run.json").read_text()))
    with pytest.raises(ConfigError, match="give the sampling seed once"):
        run(ds, "baseline:oracle", tmp_path / "other", sampling_seed=3, generation=GenerationSettings(seed=4))
    assert not (tmp_path / "other").exists()
