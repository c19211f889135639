"""InfiniBench QA files (spec-shaped fixtures) to samples, hostile records, and the dataset directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.benchmarks.infinibench.loader import build_dataset, iter_qa_file
from niah.benchmarks.infinibench.skills import QUESTION_TYPES, skill_by_name, skills_of
from niah.sample import Dataset, VideoPart
from niah.util.errors import DataError
from niah.video import align_to_frames, load_subtitles, sample_video
from support.infinibench_fixtures import EPISODE, QA, write_qa_files, write_videos


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("ib")
    videos = root / "videos"
    write_videos(videos)
    return videos, write_qa_files(root / "qa")


def test_skills_tables() -> None:
    assert len(skills_of("v1")) == 9 and len(skills_of("v2")) == 8
    assert {s.qtype for s in skills_of("v1")} == set(QUESTION_TYPES)
    assert skill_by_name("choronological_understanding").id == "chronological_understanding"  # type: ignore[union-attr]
    assert skill_by_name("Temporal-Questions").id == "chronological_understanding"  # type: ignore[union-attr]
    assert skill_by_name("linking_events").id == "linking_multiple_events"  # type: ignore[union-attr]
    assert skill_by_name("no_such_skill") is None


def test_mcq_records(bench: tuple[Path, list[Path]]) -> None:
    videos, files = bench
    ga = list(iter_qa_file(files[0], videos_root=videos, check_media=True))
    assert [s.id for s in ga] == ["global_appearance/00000", "global_appearance/00001"]
    s = ga[0]
    assert s.benchmark == "infinibench" and s.task == "global_appearance"
    assert s.context == [VideoPart(path=EPISODE.lstrip("/") + ".mp4", subtitles=EPISODE.lstrip("/") + ".srt")]
    assert [c[0].text for c in s.choices or []] == QA["global_appearance"][0]["options"]  # type: ignore[union-attr]
    assert s.answer == 1
    assert s.question[0].text.startswith("Choose the correct option")  # type: ignore[union-attr]
    assert s.meta["format"] == "mcq" and s.meta["idk_index"] == 3 and s.meta["question_type"] == "global_visual"
    assert s.meta["subtitles"] == "bbt/season_1/episode_1.srt" and s.meta["season"] == "season_1"


def test_field_variants(bench: tuple[Path, list[Path]]) -> None:
    videos, files = bench
    by_skill = {f.stem: f for f in files}
    st = list(iter_qa_file(by_skill["scene_transitions"], videos_root=videos))  # "video_path" variant
    assert st[0].context == [VideoPart(path="bbt/season_1/episode_1.mp4", subtitles="bbt/season_1/episode_1.srt")]
    chrono = list(iter_qa_file(by_skill["choronological_understanding"], version="v2", videos_root=videos))
    assert chrono[0].answer == 1 and chrono[0].task == "chronological_understanding"  # "1" read as an index
    opened = list(iter_qa_file(by_skill["deep_context_understanding"], videos_root=videos))
    assert opened[1].choices is None and opened[1].answer == "Friendship outweighs his routine."
    assert opened[1].meta["format"] == "open"


def test_frame_folders_in_natural_order(bench: tuple[Path, list[Path]]) -> None:
    videos, files = bench
    s = next(iter_qa_file(files[0], videos_root=videos, prefer="frames"))
    part = s.context[0]
    assert isinstance(part, VideoPart) and part.path is None and part.frames is not None
    assert [Path(f).name for f in part.frames] == [f"frame_{i * 5}.jpg" for i in range(6)]
    assert s.meta["video_kind"] == "frames"


def test_local_skill_is_v1_only(bench: tuple[Path, list[Path]]) -> None:
    videos, files = bench
    local = next(f for f in files if f.stem == "local_visual_questions")
    samples = list(iter_qa_file(local, videos_root=videos))
    assert samples[0].meta["idk_index"] is None and len(samples[0].choices or []) == 5
    with pytest.raises(DataError, match="not part of InfiniBench v2"):
        list(iter_qa_file(local, version="v2", videos_root=videos))


def test_subtitles_of_a_record_align_to_its_sampled_frames(bench: tuple[Path, list[Path]]) -> None:
    videos, files = bench
    s = next(iter_qa_file(files[0], videos_root=videos))
    sampled = sample_video(videos / s.context[0].path, count=3)  # type: ignore[union-attr, operator]
    times = [f.time for f in sampled.frames]
    assert times == [1.0, 3.0, 5.0]
    lines = align_to_frames(load_subtitles(videos / s.meta["subtitles"]), times)
    assert lines == [["Where are we going tonight?"], ["To the comic book store."],
                     ["Then the cafeteria, I suppose."]]


def _write(tmp_path: Path, name: str, records: object) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(records), encoding="utf-8")
    return p


@pytest.mark.parametrize("record, field, message", [
    ({"question": "Q", "options": ["a", "b"], "answer_idx": 2, "video_path": "/v.mp4"}, "[0].answer_idx",
     "outside"),
    ({"question": "Q", "options": ["a", "b"], "answer_idx": True, "video_path": "/v.mp4"}, "[0].answer_idx",
     "option index"),
    ({"question": "Q", "options": "a, b", "answer_idx": 0, "video_path": "/v.mp4"}, "[0].options", "list"),
    ({"question": "Q", "options": ["a", "a"], "answer_idx": 0, "video_path": "/v.mp4"}, "[0].options", "repeat"),
    ({"question": "Q", "options": ["a", "b"], "video_path": "/v.mp4"}, "[0].answer_idx", "answer_idx"),
    ({"question": "", "options": ["a", "b"], "answer_idx": 0, "video_path": "/v.mp4"}, "[0].question", "question"),
    ({"question": "Q", "options": ["a", "b"], "answer_idx": 0}, "[0]", "no video"),
    ({"question": "Q", "options": ["a", "b"], "answer_idx": 0, "video_path": 5}, "[0].video_path", "path"),
    ({"question": "Q", "options": ["a", "b"], "answer_idx": 0, "video_path": "/../../etc/passwd"},
     "[0].video_path", "escapes"),
    ({"question": "Q", "options": ["a", "b"], "answer_idx": 0, "video_path": "/missing.mp4"}, "[0].video_path",
     "not found"),
])
def test_hostile_records_name_file_and_field(tmp_path: Path, record: dict, field: str, message: str) -> None:
    (tmp_path / "v.mp4").write_bytes(b"")  # present: the checks under test come before the video's content
    f = _write(tmp_path, "scene_transitions.json", [record])
    with pytest.raises(DataError, match=message) as err:
        list(iter_qa_file(f, videos_root=tmp_path, check_media=True))
    assert err.value.file == str(f) and err.value.field == field


def test_hostile_files(tmp_path: Path) -> None:
    bad_json = tmp_path / "summarization.json"
    bad_json.write_text('[\n{"question": "Q",\n "answer": }\n]')
    with pytest.raises(DataError) as err:
        list(iter_qa_file(bad_json))
    assert err.value.file == str(bad_json) and err.value.line == 3
    with pytest.raises(DataError, match="must map keys to records"):
        list(iter_qa_file(_write(tmp_path, "summarization.json", {"a": 1})))
    with pytest.raises(DataError, match="JSON list"):
        list(iter_qa_file(_write(tmp_path, "summarization.json", "text")))
    with pytest.raises(DataError, match="cannot tell the skill"):
        list(iter_qa_file(_write(tmp_path, "mystery.json", [])))
    # an open-ended record in an MCQ-only skill (global appearance has open-ended files, the temporal skill
    # has none), and an MCQ record in an open-only skill
    with pytest.raises(DataError, match="only multiple-choice"):
        list(iter_qa_file(_write(tmp_path, "tvqa_temporal_events.json",
                                 [{"question": "Q", "answer": "x", "video_path": "/v.mp4"}])))
    with pytest.raises(DataError, match="no multiple-choice"):
        list(iter_qa_file(_write(tmp_path, "spoiler_questions.json",
                                 [{"question": "Q", "options": ["a", "b"], "answer_idx": 0, "video_path": "/v"}])))


def test_build_dataset_reads_videos_in_place(bench: tuple[Path, list[Path]], tmp_path: Path) -> None:
    videos, files = bench
    n = build_dataset(files, tmp_path / "ds", videos_root=videos)
    assert n == sum(len(v) for v in QA.values())
    assert not Dataset(tmp_path / "ds").media_allowed  # videos outside the dataset: only with the user's say
    ds = Dataset(tmp_path / "ds", media_roots=(videos,))
    assert ds.media_root == videos.resolve()
    assert ds.validate().samples == n  # every video opens as a video
    samples = list(ds.iter_samples(check_media=True))
    assert len(samples) == n and ds.manifest["version"] == "v1"
    assert ds.resolve_media(samples[0].context[0].path).is_file()  # type: ignore[union-attr, arg-type]
    # nothing is written when one file is bad
    bad = _write(tmp_path, "spoiler_questions.json", [{"question": "Q", "video_path": "/x.mp4"}])
    with pytest.raises(DataError):
        build_dataset([*files, bad], tmp_path / "ds2", videos_root=videos)
    assert not (tmp_path / "ds2").exists()
