"""Load InfiniBench's official QA JSON files into niah samples (one file per skill, a JSON list of records).

Records (both official field variants are read):
- MCQ: ``question``, ``options`` (list of str; usually ending with or containing "I don't know"),
  ``answer_idx`` (0-based; an int or a digit string);
- open-ended: ``question``, ``answer`` (str);
- video: ``video_path_mp4`` or ``video_path`` (a video file) and/or ``video_path_frames`` (a folder of frames),
  ``video_subtitles`` (an .srt), optional ``show``, ``season``, ``episode``. The prediction-file spelling
  (``Q``, ``A``) is read too.
Paths are relative to ``videos_root`` (a leading "/" as in the official files is dropped) and may not leave it.

Each record becomes one sample: context = one video part (the file, or the frame folder's images in order),
question = the question text, choices = the options (a prompt shows them lettered A, B, C, ...), answer = the
option index (MCQ) or the reference text (open-ended). ``meta`` keeps the skill, question type, format,
subtitles path, show/season/episode and the record's position in its file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from niah.benchmarks.infinibench.matcher import idk_index
from niah.benchmarks.infinibench.skills import Skill, skill_by_name
from niah.errors import DataError
from niah.iox import read_json_file, resolve_under
from niah.sample import DatasetWriter, MediaChecker, Sample, TextPart, VideoPart, check_sample_values
from niah.video.frames import list_frame_folder

BENCHMARK = "infinibench"
MCQ_PREFIX = "Choose the correct option for the following question: "
VideoPreference = Literal["mp4", "frames"]


def _rel(value: Any, *, file: Path, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError("must be a non-empty path string", file=file, field=field)
    rel = value.strip().lstrip("/")
    if not rel:
        raise DataError("must be a non-empty path string", file=file, field=field)
    return rel


def _video_part(rec: dict[str, Any], *, file: Path, where: str, videos_root: Path | None, prefer: VideoPreference,
                check_media: bool, media: MediaChecker | None = None) -> tuple[VideoPart, str]:
    mp4_key = "video_path_mp4" if "video_path_mp4" in rec else ("video_path" if "video_path" in rec else None)
    mp4 = _rel(rec[mp4_key], file=file, field=f"{where}.{mp4_key}") if mp4_key else None
    frames = (_rel(rec["video_path_frames"], file=file, field=f"{where}.video_path_frames")
              if "video_path_frames" in rec else None)
    if mp4 is None and frames is None:
        raise DataError("record has no video (video_path_mp4, video_path or video_path_frames)", file=file,
                        field=where)
    root = videos_root
    use_frames = frames is not None and (prefer == "frames" or mp4 is None)
    if use_frames:
        assert frames is not None
        if root is None:
            raise DataError("a frame-folder video needs the videos root to list its frames", file=file,
                            field=f"{where}.video_path_frames")
        folder = resolve_under(root, frames, file=file, field=f"{where}.video_path_frames")
        try:
            images = list_frame_folder(folder)
        except DataError as exc:
            raise DataError(exc.message, file=file, field=f"{where}.video_path_frames") from None
        rels = []
        for k, image in enumerate(images):
            rel = str(image.relative_to(root.resolve()))  # a frame may be a link: it must resolve inside the root
            if media is not None:
                media.check(rel, "image", file=file, field=f"{where}.video_path_frames[{k}]")
            else:
                resolve_under(root, rel, file=file, field=f"{where}.video_path_frames[{k}]")
            rels.append(rel)
        return VideoPart(frames=tuple(rels)), "frames"
    assert mp4 is not None
    if root is not None:
        path = resolve_under(root, mp4, file=file, field=f"{where}.{mp4_key}")
        if check_media and not path.is_file():
            raise DataError(f"video file {mp4!r} not found under {str(root)!r}", file=file, field=f"{where}.{mp4_key}")
        if media is not None:
            media.check(mp4, "video", file=file, field=f"{where}.{mp4_key}")
    return VideoPart(path=mp4), "mp4"


def _answer_idx(value: Any, n: int, *, file: Path, field: str) -> int:
    if isinstance(value, bool):
        raise DataError("must be an option index", file=file, field=field)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) < 10:
        value = int(value.strip())
    if not isinstance(value, int):
        raise DataError(f"must be an option index, got {str(value)[:40]!r}", file=file, field=field)
    if not 0 <= value < n:
        raise DataError(f"option index {value} outside 0..{n - 1}", file=file, field=field)
    return value


def record_to_sample(rec: Any, index: int, *, skill: Skill, file: Path, version: str,
                     videos_root: Path | None = None, prefer: VideoPreference = "mp4",
                     check_media: bool = False, media: MediaChecker | None = None) -> Sample:
    """One QA record as a sample. ``check_media`` requires the files to exist; ``media`` (a checker over
    ``videos_root``) also requires each to be what it claims: a decodable video, image frames, subtitles."""
    where = f"[{index}]"
    if not isinstance(rec, dict):
        raise DataError("a QA record must be a JSON object", file=file, field=where)
    question = rec.get("question", rec.get("Q"))
    if not isinstance(question, str) or not question.strip():
        raise DataError("missing or empty question", file=file, field=f"{where}.question")
    video, video_kind = _video_part(rec, file=file, where=where, videos_root=videos_root, prefer=prefer,
                                    check_media=check_media, media=media)
    meta: dict[str, Any] = {"skill": skill.id, "question_type": skill.qtype, "version": version,
                            "source_file": file.name, "source_index": index, "video_kind": video_kind}
    for key in ("show", "season", "episode"):
        if key in rec and rec[key] is not None:
            if not isinstance(rec[key], (str, int)):
                raise DataError("must be a string or a number", file=file, field=f"{where}.{key}")
            meta[key] = rec[key]
    if rec.get("video_subtitles") not in (None, ""):
        sub = _rel(rec["video_subtitles"], file=file, field=f"{where}.video_subtitles")
        if videos_root is not None:
            path = resolve_under(videos_root, sub, file=file, field=f"{where}.video_subtitles")
            if check_media and not path.is_file():
                raise DataError(f"subtitle file {sub!r} not found", file=file, field=f"{where}.video_subtitles")
            if media is not None:
                media.check(sub, "subtitles", file=file, field=f"{where}.video_subtitles")
        meta["subtitles"] = sub
        video = replace(video, subtitles=sub)  # the video stage shows them per frame or as a transcript

    options = rec.get("options")
    if options is not None:
        if "mcq" not in skill.formats:
            raise DataError(f"skill {skill.id!r} has no multiple-choice questions", file=file,
                            field=f"{where}.options")
        if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) for o in options):
            raise DataError("options must be a list of at least two strings", file=file, field=f"{where}.options")
        if len({o.strip() for o in options}) != len(options):
            raise DataError("options repeat", file=file, field=f"{where}.options")
        if "answer_idx" not in rec:
            raise DataError("an MCQ record needs answer_idx", file=file, field=f"{where}.answer_idx")
        answer = _answer_idx(rec["answer_idx"], len(options), file=file, field=f"{where}.answer_idx")
        meta["format"] = "mcq"
        meta["options"] = list(options)
        meta["idk_index"] = idk_index(options)
        return Sample(id=f"{skill.id}/{index:05d}", benchmark=BENCHMARK, task=skill.id, context=[video],
                      question=[TextPart(question)], choices=[[TextPart(o)] for o in options], answer=answer,
                      meta=meta)
    answer_text = rec.get("answer", rec.get("A"))
    if not isinstance(answer_text, str) or not answer_text.strip():
        raise DataError("an open-ended record needs a non-empty answer (or options + answer_idx)", file=file,
                        field=f"{where}.answer")
    if "open" not in skill.formats:
        raise DataError(f"skill {skill.id!r} has only multiple-choice questions", file=file,
                        field=f"{where}.options")
    meta["format"] = "open"
    return Sample(id=f"{skill.id}/{index:05d}", benchmark=BENCHMARK, task=skill.id, context=[video],
                  question=[TextPart(question)], answer=answer_text, meta=meta)


def iter_qa_file(path: str | Path, *, skill: str | None = None, version: str = "v1",
                 videos_root: str | Path | None = None, prefer: VideoPreference = "mp4",
                 check_media: bool = False, media: MediaChecker | None = None) -> Iterator[Sample]:
    """Samples of one official QA file; the skill comes from ``skill`` or the file name. A file without
    records is an error."""
    file = Path(path)
    if version not in ("v1", "v2"):
        raise DataError(f"unknown InfiniBench version {version!r} (v1 or v2)", file=file)
    found = skill_by_name(skill or file.stem)
    if found is None:
        raise DataError(f"cannot tell the skill from {skill or file.stem!r}; name it (one of the nine skills)",
                        file=file)
    if version not in found.versions:
        raise DataError(f"skill {found.id!r} is not part of InfiniBench {version}", file=file)
    records = read_json_file(file, what="QA file")
    if not isinstance(records, list):
        raise DataError("a QA file must hold a JSON list of records", file=file)
    if not records:
        raise DataError("the QA file holds no records", file=file)
    root = Path(videos_root) if videos_root is not None else None
    for i, rec in enumerate(records):
        sample = record_to_sample(rec, i, skill=found, file=file, version=version, videos_root=root,
                                  prefer=prefer, check_media=check_media, media=media)
        try:
            check_sample_values(sample)
        except DataError as exc:
            raise DataError(f"{exc.message} (in the sample's {exc.field})", file=file, field=f"[{i}]") from None
        yield sample


def build_dataset(files: Iterable[str | Path], out: str | Path, *, videos_root: str | Path, version: str = "v1",
                  prefer: VideoPreference = "mp4", check_media: bool = True) -> int:
    """Write a niah dataset directory reading the videos in place (``media_root`` = ``videos_root``).

    Every file is validated before anything is written (with ``check_media``, every video, frame and subtitle
    file must also be readable as what it claims); returns the number of samples.
    """
    root = Path(videos_root).resolve()
    if not root.is_dir():
        raise DataError("the videos root is not a directory", file=videos_root)
    media = MediaChecker(root) if check_media else None
    samples: list[Sample] = []
    seen: set[str] = set()
    files = list(files)
    stems: dict[str, list[str]] = {}
    for f in files:
        found = skill_by_name(Path(f).stem)
        if found is not None:
            stems.setdefault(found.id, []).append(Path(f).stem)
    for f in files:
        for s in iter_qa_file(f, version=version, videos_root=root, prefer=prefer, check_media=check_media,
                              media=media):
            if len(stems.get(s.task, ())) > 1:  # e.g. character_actions_mcq.json + ..._open_ended.json
                s.id = f"{s.task}/{Path(f).stem}/{s.meta['source_index']:05d}"
            if s.id in seen:
                raise DataError(f"two QA files give sample {s.id!r}", file=f)
            seen.add(s.id)
            samples.append(s)
    with DatasetWriter(out) as writer:
        for s in samples:
            writer.write(s)
        writer.finish({"benchmark": BENCHMARK, "version": version, "media_root": str(root),
                       "video_preference": prefer,
                       "skills": sorted({s.task for s in samples})})
    return len(samples)
