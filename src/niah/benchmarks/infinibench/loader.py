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
from niah.benchmarks.infinibench.official import (
    decode_options,
    frame_fps_for,
    layout_of,
    official_meta,
    records_of,
)
from niah.benchmarks.infinibench.skills import Skill, skill_by_name
from niah.sample import DatasetWriter, MediaChecker, Sample, TextPart, VideoPart, check_sample_values
from niah.util.errors import DataError
from niah.util.iox import read_json_file, resolve_under
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
                check_media: bool, media: MediaChecker | None = None,
                frame_fps: float | None = None) -> tuple[VideoPart, str]:
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
        rate = frame_fps if frame_fps is not None else frame_fps_for(rec, [frames, mp4 or ""])[0]
        return VideoPart(frames=tuple(rels), fps=rate), "frames"
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
                     check_media: bool = False, media: MediaChecker | None = None, key: str | None = None,
                     group: str | None = None, frame_fps: float | None = None) -> Sample:
    """One QA record as a sample. ``check_media`` requires the files to exist; ``media`` (a checker over
    ``videos_root``) also requires each to be what it claims: a decodable video, image frames, subtitles.
    ``key`` / ``group``: the record's key in a v2 object file (the sample id uses it) / its skill list's key.
    ``frame_fps``: the frame folders' rate (default: known per source, TVQA 3 fps; else 1 fps)."""
    where = f"[{key!r}]" if key is not None else (f"[{group!r}][{index}]" if group is not None else f"[{index}]")
    if not isinstance(rec, dict):
        raise DataError("a QA record must be a JSON object", file=file, field=where)
    question = rec.get("question", rec.get("Q"))
    if not isinstance(question, str) or not question.strip():
        raise DataError("missing or empty question", file=file, field=f"{where}.question")
    video, video_kind = _video_part(rec, file=file, where=where, videos_root=videos_root, prefer=prefer,
                                    check_media=check_media, media=media, frame_fps=frame_fps)
    meta: dict[str, Any] = {"skill": skill.id, "question_type": skill.qtype, "version": version,
                            "source_file": file.name, "source_index": index, "video_kind": video_kind}
    if video.frames:
        meta["frame_fps"] = video.fps if video.fps is not None else 1.0
    for k in ("show", "season", "episode"):
        if k in rec and rec[k] is not None:
            if not isinstance(rec[k], (str, int)):
                raise DataError("must be a string or a number", file=file, field=f"{where}.{k}")
            meta[k] = rec[k]
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
    ident = f"{skill.id}/{key}" if key is not None else f"{skill.id}/{index:05d}"

    raw_options = rec.get("options")
    if raw_options is not None:
        if "mcq" not in skill.formats:
            raise DataError(f"skill {skill.id!r} has no multiple-choice questions", file=file,
                            field=f"{where}.options")
        options, spelled = decode_options(raw_options, file=file, field=f"{where}.options")
        if len({o.strip() for o in options}) != len(options):
            raise DataError("options repeat", file=file, field=f"{where}.options")
        if "answer_idx" not in rec:
            raise DataError("an MCQ record needs answer_idx", file=file, field=f"{where}.answer_idx")
        answer = _answer_idx(rec["answer_idx"], len(options), file=file, field=f"{where}.answer_idx")
        meta["format"] = "mcq"
        meta["options"] = options
        meta["idk_index"] = idk_index(options)
        meta["official"] = official_meta(rec, options_raw=raw_options, options_spelled=spelled, key=key,
                                         group=group)
        return Sample(id=ident, benchmark=BENCHMARK, task=skill.id, context=[video],
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
    if not skill.counts("open"):
        meta["unscored_format"] = True  # reported, not averaged: the paper scores this skill's MCQ only
    meta["official"] = official_meta(rec, options_raw=None, options_spelled=False, key=key, group=group)
    return Sample(id=ident, benchmark=BENCHMARK, task=skill.id, context=[video],
                  question=[TextPart(question)], answer=answer_text, meta=meta)


def _skill_of(name: str, *, file: Path, version: str, field: str | None = None) -> Skill:
    found = skill_by_name(name)
    if found is None:
        raise DataError(f"cannot tell the skill from {name!r}; name it with --skill (one of the nine skills)",
                        file=file, field=field)
    if version not in found.versions:
        raise DataError(f"skill {found.id!r} is not part of InfiniBench {version}", file=file, field=field)
    return found


def read_qa_file(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """(the file's JSON, its layout: container and how it was written)."""
    file = Path(path)
    doc = read_json_file(file, what="QA file")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    container, _ = records_of(doc, file=file)
    return doc, {"container": container, **layout_of(text)}


def iter_qa_file(path: str | Path, *, skill: str | None = None, version: str = "v1",
                 videos_root: str | Path | None = None, prefer: VideoPreference = "mp4",
                 check_media: bool = False, media: MediaChecker | None = None,
                 frame_fps: float | None = None) -> Iterator[Sample]:
    """Samples of one official QA file. The skill comes from ``skill``, else a record's ``skill_name`` (v2),
    else the key of its list (an object of lists), else the file name. A file without records is an error."""
    file = Path(path)
    if version not in ("v1", "v2"):
        raise DataError(f"unknown InfiniBench version {version!r} (v1 or v2)", file=file)
    if frame_fps is not None and not frame_fps > 0:
        raise DataError(f"the frame rate must be positive, got {frame_fps}", file=file)
    forced = _skill_of(skill, file=file, version=version) if skill is not None else None
    doc = read_json_file(file, what="QA file")
    container, entries = records_of(doc, file=file)
    if not entries:
        if forced is None and container == "list":
            _skill_of(file.stem, file=file, version=version)  # say first that the name tells no skill
        raise DataError("the QA file holds no records", file=file)
    root = Path(videos_root) if videos_root is not None else None
    counters: dict[str, int] = {}
    stem_skill: Skill | None = None
    for group, key, rec in entries:
        where = f"[{key!r}]" if key is not None else f"[{group!r}]" if group is not None else None
        named = rec.get("skill_name") if isinstance(rec, dict) else None
        if forced is not None:
            found = forced
        elif isinstance(named, str) and named.strip():
            found = _skill_of(named, file=file, version=version, field=f"{where or ''}.skill_name")
        elif group is not None and container != "by-movie":
            found = _skill_of(group, file=file, version=version, field=where)
        else:
            stem_skill = stem_skill or _skill_of(file.stem, file=file, version=version)
            found = stem_skill
        index = counters.get(group or "", 0)
        counters[group or ""] = index + 1
        sample = record_to_sample(rec, index, skill=found, file=file, version=version, videos_root=root,
                                  prefer=prefer, check_media=check_media, media=media, key=key, group=group,
                                  frame_fps=frame_fps)
        if container == "by-skill":
            sample.id = f"{found.id}/{group}/{index:05d}"
        elif container == "by-movie":  # what the export needs to put the question back under its movie
            sample.id = f"{found.id}/{group}/{index:05d}"
            movie = doc[group]
            sample.meta["official"]["movie"] = {"key": group, "keys": list(movie),
                                                "qa_keys": list(movie["questions"][index])}
        try:
            check_sample_values(sample)
        except DataError as exc:
            raise DataError(f"{exc.message} (in the sample's {exc.field})", file=file,
                            field=where or f"[{index}]") from None
        yield sample


def build_dataset(files: Iterable[str | Path], out: str | Path, *, videos_root: str | Path, version: str = "v1",
                  prefer: VideoPreference = "mp4", check_media: bool = True, skill: str | None = None,
                  frame_fps: float | None = None) -> int:
    """Write a niah dataset directory reading the videos in place (``media_root`` = ``videos_root``).

    Every file is validated before anything is written (with ``check_media``, every video, frame and subtitle
    file must also be readable as what it claims); returns the number of samples. ``skill`` names the skill
    of every file (``--skill``); ``frame_fps`` the frame folders' rate. The manifest keeps each file's layout
    (``official_files``) for ``niah export infinibench``.
    """
    root = Path(videos_root).resolve()
    if not root.is_dir():
        raise DataError("the videos root is not a directory", file=videos_root)
    media = MediaChecker(root) if check_media else None
    samples: list[Sample] = []
    seen: set[str] = set()
    files = list(files)
    stems: dict[str, list[str]] = {}
    layouts: dict[str, dict[str, Any]] = {}
    for f in files:
        found = skill_by_name(skill or Path(f).stem)
        if found is not None:
            stems.setdefault(found.id, []).append(Path(f).stem)
        if Path(f).name in layouts:
            raise DataError(f"two QA files are named {Path(f).name!r} (the export writes one file per name)",
                            file=f)
        layouts[Path(f).name] = read_qa_file(f)[1]
    for f in files:
        for s in iter_qa_file(f, version=version, videos_root=root, prefer=prefer, check_media=check_media,
                              media=media, skill=skill, frame_fps=frame_fps):
            if len(stems.get(s.task, ())) > 1 and s.id.count("/") == 1:
                s.id = f"{s.task}/{Path(f).stem}/{s.id.split('/', 1)[1]}"  # tvqa_ + movienet_ files of a skill
            if s.id in seen:
                raise DataError(f"two QA files give sample {s.id!r}", file=f)
            seen.add(s.id)
            samples.append(s)
    report = _subtitles_past_end(samples, root, probe_files=check_media)
    rates: dict[str, int] = {}
    for s in samples:
        if "frame_fps" in s.meta:
            rates[f"{s.meta['frame_fps']:g}"] = rates.get(f"{s.meta['frame_fps']:g}", 0) + 1
    with DatasetWriter(out) as writer:
        for s in samples:
            writer.write(s)
        writer.finish({"benchmark": BENCHMARK, "version": version, "media_root": str(root),
                       "video_preference": prefer, "official_files": layouts,
                       "import_report": {"frame_fps": rates, **report},
                       "skills": sorted({s.task for s in samples})})
    return len(samples)


def _subtitles_past_end(samples: list[Sample], root: Path, *, probe_files: bool) -> dict[str, Any]:
    """Count, per sample, the subtitle cues starting at or after its video's end (``meta.subtitles_past_end``;
    the official 1 fps MovieNet videos are shorter than the cuts their subtitles were timed on). The video
    stage keeps such cues apart instead of piling them onto the last frame. A frame folder lasts its frames
    over its rate; a video file's length is read from its header when ``probe_files``."""
    from niah.video.frames import probe
    from niah.video.subtitles import load_subtitles

    lengths: dict[str, float | None] = {}
    starts: dict[str, list[float]] = {}
    records = cues = 0
    for s in samples:
        video = s.context[0] if s.context and isinstance(s.context[0], VideoPart) else None
        if video is None or video.subtitles is None:
            continue
        if video.frames:
            length: float | None = len(video.frames) / (video.fps or 1.0)
        elif video.path is not None and probe_files:
            if video.path not in lengths:
                try:
                    lengths[video.path] = probe(root / video.path).duration or None
                except (DataError, OSError, ValueError):
                    lengths[video.path] = None
            length = lengths[video.path]
        else:
            length = None
        if length is None:
            continue
        if video.subtitles not in starts:
            try:
                starts[video.subtitles] = [c.start for c in load_subtitles(root / video.subtitles)]
            except (DataError, OSError):
                starts[video.subtitles] = []
        past = sum(t >= length for t in starts[video.subtitles])
        s.meta["video_seconds"] = round(length, 3)
        if past:
            s.meta["subtitles_past_end"] = past
            records += 1
            cues += past
    return {"subtitles_past_end": {"records": records, "cues": cues}}


def import_notes(dataset: str | Path) -> list[str]:
    """What the import tells the user: the frame folders' rates and the subtitle cues past a video's end."""
    manifest = read_json_file(Path(dataset) / "manifest.json", what="manifest")
    report = manifest.get("import_report") or {}
    notes = []
    rates = report.get("frame_fps") or {}
    if rates:
        told = ", ".join(f"{n} at {rate} fps" for rate, n in sorted(rates.items()))
        notes.append(f"frame folders timed by their rate: {told} (TVQA frames are 3 fps; --frame-fps sets it)")
    past = report.get("subtitles_past_end") or {}
    if past.get("cues"):
        notes.append(f"{past['cues']} subtitle cue(s) in {past['records']} record(s) start after their video's "
                     "end: kept apart (shown after the frames, not on the last frame); see meta.subtitles_past_end")
    return notes
