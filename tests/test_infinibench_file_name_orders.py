"""InfiniBench QA files named either way the official scripts name them: the source first
(``movienet_character_actions.json``, the current scripts) or after the skill (``character_actions_movienet.json``,
``temporal_questions_tvqa.json``, earlier versions of the same scripts), for all nine skills, and every name the
earlier scripts wrote (``skills.EARLIER_FILE_NAMES``). Each folder (our own records, support/infinibench_official.py)
is imported without --skill, answered by the oracle, scored and exported; every file comes back byte for byte.
So do the scraped spoiler questions (``movies_spoiler_questions.json``, an object keyed by movie). A name that
tells no skill keeps the clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from niah.benchmarks.infinibench.loader import iter_qa_file
from niah.benchmarks.infinibench.skills import EARLIER_FILE_NAMES, SCRAPED_FILE_NAMES, SKILLS, parse_name
from niah.cli import app
from niah.util.errors import DataError
from niah.util.iox import EXPORT_MARKER
from support.cli import invoke_ok as _ok
from support.infinibench_official import FILES, MOVIE, write_media
from support.scores import official_scores

#: Per skill: the stem its scripts use, and for each source the FILES entry holding records of that source
#: (an MCQ file, then the open-ended one where the skill has both).
SCRIPT_STEMS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "global_appearance": ("global_appreance", {"tvqa": ("global_appreance.json",
                                                        "global_appreance_open_ended.json")}),
    "scene_transitions": ("scene_transitions", {"tvqa": ("scene_transitions.json",
                                                         "scene_transitions_open_ended.json")}),
    "character_actions": ("character_actions", {
        "tvqa": ("tvqa_character_actions.json", "tvqa_character_actions_open_ended.json"),
        "movienet": ("movienet_character_actions.json", "movienet_character_actions_open_ended.json")}),
    "chronological_understanding": ("temporal_events", {"tvqa": ("tvqa_temporal_events.json",),
                                                        "movienet": ("movienet_temporal_events.json",)}),
    "deep_context_understanding": ("deep_context_understanding", {
        "tvqa": ("tvqa_deep_context_understanding.json",), "movienet": ("movienet_deep_context_understanding.json",)}),
    "linking_multiple_events": ("linking_events", {"tvqa": ("tvqa_linking_events.json",),
                                                   "movienet": ("movienet_linking_events.json",)}),
    "spoiler_questions": ("spoiler_questions", {"movienet": ("spoiler_questions.json",)}),
    "summarization": ("summarization", {"tvqa": ("summarization.json",), "movienet": ("summarization.json",)}),
    "local_visual_questions": ("long_tvqa_questions", {"tvqa": ("long_tvqa_questions.json",)}),
}
ORDERS = ("source-first", "source-last")


def _name(order: str, stem: str, source: str, fmt: str) -> str:
    suffix = "_open_ended" if fmt == "open" else ""
    return f"{source}_{stem}{suffix}.json" if order == "source-first" else f"{stem}_{source}{suffix}.json"


def _dump(name: str, records: Any) -> str:
    return json.dumps(records, indent=None if name.startswith("scene_transitions") else 4)  # as the scripts write


def _folder(order: str) -> dict[str, str]:
    """{file name: text} for one naming order: every skill, every source its scripts use, MCQ and open files;
    the skill named by its scripts' stem and, in a second file, by its id."""
    files: dict[str, str] = {}
    for skill_id, (stem, sources) in SCRIPT_STEMS.items():
        for source, keys in sources.items():
            for key in keys:
                fmt = "open" if "open_ended" in key or "answer_idx" not in FILES[key][0] else "mcq"
                for named in dict.fromkeys((stem, skill_id)):
                    files[_name(order, named, source, fmt)] = _dump(named, FILES[key])
    return files


def _earlier() -> dict[str, str]:
    """{file name: text}: each name the earlier scripts wrote, holding records of its skill, source and format."""
    files: dict[str, str] = {}
    for name in EARLIER_FILE_NAMES:
        parsed = parse_name(name.removesuffix(".json"))
        assert parsed is not None, name
        skill, source = parsed
        keys = SCRIPT_STEMS[skill.id][1][source or next(iter(SCRIPT_STEMS[skill.id][1]))]
        key = keys[-1] if "open_ended" in name else keys[0]
        files[name] = json.dumps(FILES[key], indent=None if name.startswith("scene_transitions") else 4)
    return files


def _scraped() -> dict[str, str]:
    """The scraped spoiler questions as the official scraping script writes them: an object keyed by movie, its
    question/answer list first, then the paths and the name the script adds (``indent=4``)."""
    movie = {"questions": [{"question": "Who sends the letter?", "answer": "The hero's brother, to warn him."},
                           {"question": "Why does the race end early?", "answer": "The bridge is closed."}],
             "video_path_mp4": f"/{MOVIE}.mp4", "video_path_frames": f"/{MOVIE}",
             "video_subtitles": f"/{MOVIE}.srt", "name": MOVIE}
    return {name: json.dumps({MOVIE: movie}, indent=4) for name in SCRAPED_FILE_NAMES}


FOLDERS: dict[str, dict[str, str]] = {order: _folder(order) for order in ORDERS}
FOLDERS["both-orders"] = {**FOLDERS["source-first"], **FOLDERS["source-last"]}
FOLDERS["earlier"] = _earlier()
FOLDERS["scraped"] = _scraped()
CASES = [pytest.param(folder, name, id=f"{folder}-{name.removesuffix('.json')}")
         for folder, files in FOLDERS.items() for name in files]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ibnames")
    write_media(root / "videos")
    for folder, files in FOLDERS.items():
        qa = root / "qa" / folder
        qa.mkdir(parents=True)
        for name, text in files.items():
            (qa / name).write_text(text, encoding="utf-8")
        ds, run = root / "ds" / folder, root / "run" / folder
        _ok(["import", "infinibench", str(qa), "--media-root", str(root / "videos"), "--out", str(ds)])
        _ok(["run", str(ds), "--model", "baseline:oracle", "--out", str(run), "--no-progress",
             "--media-root", str(root / "videos"), "--max-frames", "2"])
        _ok(["score", str(run)])
        _ok(["export", "infinibench", str(ds), "--out", str(root / "export" / folder)])
    return root


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_skill_is_named_both_ways() -> None:
    for order in ORDERS:
        skills = {parse_name(n.removesuffix(".json"))[0].id for n in FOLDERS[order]}  # type: ignore[index]
        assert skills == {s.id for s in SKILLS}, order
    # the source is read from either side of the skill, with the format suffix on either side of the source
    assert parse_name("character_actions_movienet") == parse_name("movienet_character_actions")
    for stem in ("character_actions_movienet_open_ended", "character_actions_open_ended_movienet",
                 "movienet_character_actions_open_ended", "character_actions_mcq_movienet",
                 "character_actions_qa_movienet_mcq"):
        found = parse_name(stem)
        assert found is not None and (found[0].id, found[1]) == ("character_actions", "movienet"), stem


@pytest.mark.parametrize(("folder", "name"), CASES)
def test_file_imports_scores_and_exports_unchanged(bench: Path, folder: str, name: str) -> None:
    parsed = parse_name(name.removesuffix(".json"))
    assert parsed is not None
    skill = parsed[0]
    doc = json.loads(FOLDERS[folder][name])
    records = doc if isinstance(doc, list) else [q for movie in doc.values() for q in movie["questions"]]
    samples = [s for s in _rows(bench / "ds" / folder / "samples.jsonl") if s["meta"]["source_file"] == name]
    assert len(samples) == len(records) and {s["task"] for s in samples} == {skill.id}
    ids = {s["id"] for s in samples}
    scored = [r for r in _rows(bench / "run" / folder / "scored.jsonl") if r["id"] in ids]
    assert len(scored) == len(samples)
    for sample, row in zip(sorted(samples, key=lambda s: s["id"]), sorted(scored, key=lambda r: r["id"]),
                           strict=True):
        if sample["meta"]["format"] == "mcq":  # the oracle names the right option
            assert row["score"] == 1
        else:  # open-ended replies wait for a judge
            assert row["unscored"].startswith("open-ended: not judged yet")
    assert (bench / "export" / folder / name).read_bytes() == (bench / "qa" / folder / name).read_bytes()


@pytest.mark.parametrize("folder", list(FOLDERS))
def test_each_folder_scores_every_mcq_skill_and_exports_only_its_files(bench: Path, folder: str) -> None:
    scores = official_scores(bench / "run" / folder / "scores.json")
    mcq_skills = {s for s, v in scores["skills"].items() if v.get("mcq") and v["mcq"].get("n")}
    for skill in mcq_skills:
        assert scores["skills"][skill]["mcq"]["accuracy"] == 100.0, skill
    if folder not in ("earlier", "scraped"):
        assert mcq_skills == {s.id for s in SKILLS if "mcq" in s.formats}
    assert sorted(p.name for p in (bench / "export" / folder).iterdir()) == sorted([*FOLDERS[folder], EXPORT_MARKER])


@pytest.mark.parametrize("name", ["tvqa_poetry.json", "character_actions_youtube.json",
                                  "summarization_tvqa_movienet.json", "movienet_tvqa_summarization.json",
                                  "character_actions_open_ended_open_ended.json", "qa.json", "tvqa_.json"])
def test_a_name_that_tells_no_skill_keeps_the_clear_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(_dump(name, FILES["spoiler_questions.json"]), encoding="utf-8")
    assert parse_name(name.removesuffix(".json")) is None
    with pytest.raises(DataError, match="cannot tell the skill .*--skill"):
        list(iter_qa_file(path, videos_root=tmp_path))
    res = CliRunner().invoke(app, ["import", "infinibench", str(path), "--media-root", str(tmp_path), "--out",
                                   str(tmp_path / "ds")])
    assert res.exit_code != 0 and "cannot tell the skill" in res.output + str(res.exception)


def test_scraped_spoiler_questions_are_one_sample_per_question(bench: Path) -> None:
    samples = _rows(bench / "ds" / "scraped" / "samples.jsonl")
    assert [s["id"] for s in samples] == [f"spoiler_questions/{MOVIE}/00000", f"spoiler_questions/{MOVIE}/00001"]
    assert {s["meta"]["format"] for s in samples} == {"open"}
    assert all(s["context"][0]["path"] == f"{MOVIE}.mp4" for s in samples)
