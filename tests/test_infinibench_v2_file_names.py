"""Every InfiniBench v2 file name the code knows (``skills.V2_FILE_NAMES``, so a name added there is covered
here too), in each v2 container (support/infinibench_v2.py, our own fixtures): imported with ``niah import
infinibench --version v2`` (no --skill: the name or the records tell the skill), answered by the oracle,
scored, exported with ``niah export infinibench`` and compared byte for byte with the file imported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from niah.benchmarks.infinibench.official import records_of
from niah.benchmarks.infinibench.skills import V2_FILE_NAMES
from niah.util.iox import EXPORT_MARKER
from support.cli import invoke_ok as _ok
from support.infinibench_official import write_media
from support.infinibench_v2 import CONTAINERS, format_of, records_for, skill_of_name, v2_text, write_v2_files
from support.scores import official_scores

CASES = [pytest.param(container, name, id=f"{container}-{name.removesuffix('.json')}")
         for container in CONTAINERS for name in V2_FILE_NAMES]


@pytest.fixture(scope="module")
def v2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One dataset per container, each imported from a folder of all the v2 file names, run by the oracle,
    scored and exported."""
    root = tmp_path_factory.mktemp("ibv2")
    write_media(root / "videos")
    for container in CONTAINERS:
        qa = root / "qa" / container
        write_v2_files(qa, container)
        ds, run = root / "ds" / container, root / "run" / container
        _ok(["import", "infinibench", str(qa), "--version", "v2", "--media-root", str(root / "videos"), "--out", str(ds)])
        _ok(["run", str(ds), "--model", "baseline:oracle", "--out", str(run), "--no-progress",
             "--media-root", str(root / "videos"), "--max-frames", "2"])
        _ok(["score", str(run)])
        _ok(["export", "infinibench", str(ds), "--out", str(root / "export" / container)])
    return root


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_fixtures_hold_each_container() -> None:
    for container in CONTAINERS:
        for name in V2_FILE_NAMES:
            kind, entries = records_of(json.loads(v2_text(name, container)), file=Path(name))
            assert kind == container and len(entries) == len(records_for(name)), (container, name)


@pytest.mark.parametrize(("container", "name"), CASES)
def test_v2_file_name_imports_scores_and_exports_unchanged(v2: Path, container: str, name: str) -> None:
    skill = skill_of_name(name)
    samples = [s for s in _rows(v2 / "ds" / container / "samples.jsonl") if s["meta"]["source_file"] == name]
    assert len(samples) == len(records_for(name))
    assert {s["task"] for s in samples} == {skill.id}
    assert {s["meta"]["version"] for s in samples} == {"v2"}
    fmt = format_of(skill)
    assert {s["meta"]["format"] for s in samples} == {fmt}

    ids = {s["id"] for s in samples}
    scored = [r for r in _rows(v2 / "run" / container / "scored.jsonl") if r["id"] in ids]
    assert len(scored) == len(samples)
    skill_scores = official_scores(v2 / "run" / container / "scores.json")["skills"][skill.id]
    if fmt == "mcq":  # the oracle names the right option: every item scores 1, the skill 100%
        assert [r["score"] for r in scored] == [1] * len(samples)
        assert skill_scores["mcq"]["accuracy"] == 100.0
    else:  # open-ended replies wait for a judge: rules score none of them
        assert all(r["unscored"].startswith("open-ended: not judged yet") for r in scored)
        assert skill_scores["open"]["excluded"] == len(samples)

    original = v2 / "qa" / container / name
    exported = v2 / "export" / container / name
    assert exported.read_bytes() == original.read_bytes()


def test_every_exported_file_is_one_imported(v2: Path) -> None:
    for container in CONTAINERS:
        assert sorted(p.name for p in (v2 / "export" / container).iterdir()) == sorted([*V2_FILE_NAMES, EXPORT_MARKER])


def test_fields_the_sample_does_not_carry_come_back_as_written(v2: Path, tmp_path: Path) -> None:
    """An MCQ record's reference text beside answer_idx, a padded digit-string answer_idx, a question written
    both as question and Q, an open record's stray answer_idx and a null show: none is a sample field, all are
    written back."""
    from niah.benchmarks.infinibench.loader import iter_qa_file
    from niah.benchmarks.infinibench.official import sample_to_record
    from support.infinibench_official import V2_EPISODE

    video = V2_EPISODE + ".mp4"
    mcq = tmp_path / "qa" / "global_appearance.json"
    mcq.parent.mkdir()
    mcq.write_text(json.dumps([
        {"question": "Which coat?", "options": ["black", "grey", "I don't know"], "answer_idx": " 1",
         "answer": "grey", "video_path_mp4": video},
        {"question": "Which scarf?", "Q": "Which scarf, again?", "options": ["red", "blue"], "answer_idx": 0,
         "video_path_mp4": video, "show": None}], indent=4), encoding="utf-8")
    summary = tmp_path / "qa" / "summarization.json"
    summary.write_text(json.dumps({"s-1": {"skill_name": "summarization", "question": "Summarize it.",
                                           "answer": "A case is solved.", "answer_idx": 3,
                                           "video_path_mp4": video}}, indent=2) + "\n", encoding="utf-8")
    ds, out = tmp_path / "ds", tmp_path / "out"
    _ok(["import", "infinibench", str(tmp_path / "qa"), "--version", "v2", "--media-root", str(v2 / "videos"),
         "--out", str(ds)])
    _ok(["export", "infinibench", str(ds), "--out", str(out)])
    for original in (mcq, summary):
        assert (out / original.name).read_bytes() == original.read_bytes(), original.name
    # the question asked is the record's "question"; an answer changed after import is written as its index
    first, second = iter_qa_file(mcq, version="v2", videos_root=v2 / "videos")
    assert second.question[0].text == "Which scarf?"  # type: ignore[union-attr]
    first.answer = 0
    assert sample_to_record(first)["answer_idx"] == "0"
