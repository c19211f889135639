"""InfiniBench files in every official record shape and under every official file name (our own fixtures, see
support/infinibench_official.py): import, score, export back byte for byte; --skill, frame folders at their
real rate, subtitle cues past a video's end kept apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.infinibench.loader import iter_qa_file
from niah.benchmarks.infinibench.official import ORDER_JOIN
from niah.benchmarks.infinibench.skills import OFFICIAL_FILE_NAMES, V2_FILE_NAMES, skill_by_name
from niah.cli import app
from niah.sample import ImagePart, TextPart, VideoPart
from niah.util.errors import DataError
from niah.video.expand import PAST_END_HEAD, video_prompt_parts
from support.cli import invoke_ok as _ok
from support.infinibench_official import EPISODE, FILES, MOVIE, SHAPES, write_files, write_media
from support.scores import official_scores

runner = CliRunner()


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ibo")
    write_media(root / "videos")
    write_files(root / "qa")
    _ok(["import", "infinibench", str(root / "qa"), "--media-root", str(root / "videos"), "--out", str(root / "ds1")])
    _ok(["import", "infinibench", str(root / "qa" / "v2"), "--media-root", str(root / "videos"), "--out",
         str(root / "ds2"), "--version", "v2"])
    return root


def test_every_official_file_name_names_its_skill() -> None:
    expected = {"global_appreance": "global_appearance", "scene_transitions": "scene_transitions",
                "character_actions": "character_actions", "temporal_events": "chronological_understanding",
                "deep_context_understanding": "deep_context_understanding",
                "linking_events": "linking_multiple_events", "spoiler_questions": "spoiler_questions",
                "summarization": "summarization", "long_tvqa_questions": "local_visual_questions"}
    assert len(OFFICIAL_FILE_NAMES) == 17 and set(OFFICIAL_FILE_NAMES) == set(FILES)
    for name in OFFICIAL_FILE_NAMES:
        found = skill_by_name(name.removesuffix(".json"))
        assert found is not None, name
        assert any(key in name and found.id == skill for key, skill in expected.items()), name
    assert all(skill_by_name(n.removesuffix(".json")) is not None for n in V2_FILE_NAMES)


def test_every_shape_loads(bench: Path) -> None:
    for shape, name in SHAPES.items():
        path = bench / "qa" / ("v2/" if name.startswith("v2") else "") / name
        samples = list(iter_qa_file(path, version="v2" if name.startswith("v2") else "v1",
                                    videos_root=bench / "videos"))
        assert samples, shape


def test_ordering_options_and_v2_records(bench: Path) -> None:
    ga = list(iter_qa_file(bench / "qa" / "global_appreance.json", videos_root=bench / "videos"))[0]
    assert ga.meta["options"][1] == "blue suit" + ORDER_JOIN + "grey hoodie" and ga.answer == 1
    assert ga.meta["idk_index"] == 3 and ga.meta["official"]["extra"] == {"source": "tvqa", "character": "Leonard"}
    v2 = {s.id: s for s in iter_qa_file(bench / "qa" / "v2" / "v2_by_id.json", version="v2",
                                         videos_root=bench / "videos")}
    assert set(v2) == {"chronological_understanding/q-0001", "global_appearance/q-0002", "summarization/q-0003"}
    beckett = v2["global_appearance/q-0002"]  # options as the text of a Python list, nested orderings
    assert beckett.meta["options"] == ["black coat -> grey scarf", "I don't know", "grey scarf -> black coat"]
    assert v2["chronological_understanding/q-0001"].answer == 0  # "0"
    by_skill = [s.task for s in iter_qa_file(bench / "qa" / "v2" / "v2_by_skill.json", version="v2",
                                             videos_root=bench / "videos")]
    assert by_skill == ["spoiler_questions", "scene_transitions"]


def test_skill_option(bench: Path, tmp_path: Path) -> None:
    mystery = tmp_path / "mystery.json"
    mystery.write_text(json.dumps(FILES["spoiler_questions.json"]), encoding="utf-8")
    with pytest.raises(DataError, match="--skill"):
        list(iter_qa_file(mystery, videos_root=bench / "videos"))
    assert [s.task for s in iter_qa_file(mystery, skill="spoiler_questions", videos_root=bench / "videos")] == [
        "spoiler_questions"]
    out = _ok(["import", "infinibench", str(mystery), "--skill", "spoiler_questions", "--media-root",
               str(bench / "videos"), "--out", str(tmp_path / "ds")])
    assert "wrote 1 samples" in out
    bad = runner.invoke(app, ["import", "infinibench", str(mystery), "--skill", "poetry", "--media-root",
                              str(bench / "videos"), "--out", str(tmp_path / "ds3")])
    assert bad.exit_code != 0 and "--skill" in bad.output + str(bad.exception)


def test_frame_folders_at_their_real_rate(bench: Path) -> None:
    videos = bench / "videos"
    tv = list(iter_qa_file(bench / "qa" / "long_tvqa_questions.json", videos_root=videos, prefer="frames"))[0]
    part = tv.context[0]
    assert isinstance(part, VideoPart) and part.fps == 3.0 and len(part.frames or ()) == 18
    movie = list(iter_qa_file(bench / "qa" / "spoiler_questions.json", videos_root=videos, prefer="frames"))[0]
    assert movie.context[0].fps is None and movie.meta["frame_fps"] == 1.0  # type: ignore[union-attr]
    told = list(iter_qa_file(bench / "qa" / "spoiler_questions.json", videos_root=videos, prefer="frames",
                             frame_fps=2.0))[0]
    assert told.context[0].fps == 2.0  # type: ignore[union-attr]
    # the frame at 2 s (index 6 at 3 fps) gets the cue starting at 2 s, and is labelled 2.0 s, not 6.0 s
    parts, _, _ = video_prompt_parts(part, lambda rel: videos / rel, max_frames=None, fps=1.0,
                                     subtitle_mode="frames", native=False)
    labels = [p.text for p in parts if isinstance(p, TextPart)]
    assert "[2.0s] To the comic book store.\n" in labels
    assert not any(label.startswith("[6.0s]") for label in labels)
    out = _ok(["import", "infinibench", str(bench / "qa" / "long_tvqa_questions.json"), "--prefer", "frames",
               "--media-root", str(videos), "--out", str(bench / "frames-ds")])
    assert "1 at 3 fps" in out


def test_subtitles_past_the_end_are_kept_apart(bench: Path) -> None:
    videos = bench / "videos"
    manifest = json.loads((bench / "ds1" / "manifest.json").read_text())
    assert manifest["import_report"]["subtitles_past_end"] == {"records": 4, "cues": 4}
    movie = list(iter_qa_file(bench / "qa" / "spoiler_questions.json", videos_root=videos, prefer="frames"))[0]
    part = movie.context[0]
    assert isinstance(part, VideoPart) and part.subtitles == f"{MOVIE}.srt"
    parts, _, note = video_prompt_parts(part, lambda rel: videos / rel, max_frames=None, fps=None,
                                        subtitle_mode="frames", native=False)
    last_image = max(i for i, p in enumerate(parts) if isinstance(p, ImagePart))
    assert parts[-1] == TextPart(PAST_END_HEAD + "A line from the longer cut.\n") and last_image == len(parts) - 2
    assert not any("longer cut" in p.text for p in parts[:-1] if isinstance(p, TextPart))
    assert note is not None and "1 subtitle cue(s) past the video's end kept apart" in note
    assert EPISODE  # the episode's subtitles all fall inside it: nothing apart there


def test_score_and_export_back_unchanged(bench: Path) -> None:
    run = bench / "oracle"
    _ok(["run", str(bench / "ds1"), "--model", "baseline:oracle", "--out", str(run), "--no-progress",
         "--media-root", str(bench / "videos"), "--max-frames", "2"])
    _ok(["score", str(run)])
    scores = official_scores(run / "scores.json")
    assert scores["overall"]["accuracy"] == 100.0 and scores["overall"]["accuracy_skills"] == 5
    assert scores["overall"]["open_apart"] == ["character_actions", "global_appearance", "scene_transitions"]
    for ds, qa in (("ds1", bench / "qa"), ("ds2", bench / "qa" / "v2")):
        out = bench / f"export-{ds}"
        _ok(["export", "infinibench", str(bench / ds), "--out", str(out)])
        originals = sorted(qa.glob("*.json"))
        assert sorted(p.name for p in out.glob("*.json")) == [p.name for p in originals]
        for original in originals:
            assert (out / original.name).read_bytes() == original.read_bytes(), original.name
