"""The official InfiniBench QA file shapes: how a file holds its records, how an option is spelled, and the way
back (``niah export infinibench``) so that import -> export gives the same bytes.

Shapes read (the generator scripts of the release and v2's files):
- a JSON list of records (every v1 generator script; written with ``indent=4`` or, for scene transitions, on
  one line);
- a JSON object keyed by question id whose values are records (v2), or keyed by skill name whose values are
  lists of records; a record's own ``skill_name`` (v2) names its skill;
- the scraped spoiler questions as ``scrapping/movienet/spoiler_questions_qa.py`` writes them
  (``movies_spoiler_questions.json``): an object keyed by movie, each with its video paths, its ``name`` and a
  ``questions`` list of question/answer objects (container ``by-movie``: one sample per question);
- options as a list of strings, or with ordering options (global appearance, scene transitions, character
  actions, temporal ordering) each a list of strings beside the literal string "I don't know"; v2 may hold the
  options as the text of a Python list.

What niah does not keep in a sample's own fields (extra record fields such as ``source``, ``character``,
``episode_neme``, ``question_id``, ``split``; own fields the sample does not carry, such as an MCQ record's
``answer`` text; the paths as written; options as lists; ``answer_idx`` as a string; the key order) is kept in
``meta["official"]``, and the file's layout (container, indentation, escaping) in the dataset manifest, so the
export writes the record back as it was.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from niah.util.errors import DataError

#: Joins the items of an ordering option into the option text the prompt shows and the matcher reads.
ORDER_JOIN = " -> "
PATH_FIELDS = ("video_path_mp4", "video_path", "video_path_frames", "video_subtitles")
#: Show slugs of the TVQA episodes (existed_videos_tvqa.json); their frame folders hold 3 frames a second.
TVQA_SHOWS = frozenset({"friends", "bbt", "house", "castle", "met", "grey"})
KNOWN_FRAME_FPS = {"tvqa": 3.0}


def layout_of(text: str) -> dict[str, Any]:
    """How a JSON file was written: indentation, separators, escaping and a final newline (json.dump's
    options), so the export writes the same bytes."""
    lines = text.split("\n", 2)
    indent: int | None = None
    if len(lines) > 1 and lines[1].strip():
        indent = len(lines[1]) - len(lines[1].lstrip(" "))
    compact = indent is None and re.search(r'"\s*:\S', text[:4000]) is not None and ": " not in text[:4000]
    return {"indent": indent, "compact": compact, "ensure_ascii": text.isascii(),
            "newline": text.endswith("\n")}


def dump(obj: Any, layout: dict[str, Any]) -> str:
    indent = layout.get("indent")
    separators = (",", ":") if layout.get("compact") else ((",", ": ") if indent is not None else (", ", ": "))
    text = json.dumps(obj, indent=indent, separators=separators, ensure_ascii=bool(layout.get("ensure_ascii", True)))
    return text + ("\n" if layout.get("newline") else "")


def records_of(doc: Any, *, file: Path) -> tuple[str, list[tuple[str | None, str | None, Any]]]:
    """(container kind, [(group key, record key, record)]) of a QA file's JSON: ``list``, ``by-id`` (an object
    of records), ``by-skill`` (an object of record lists) or ``by-movie`` (an object of movies holding a
    ``questions`` list; each question's record carries its movie's fields)."""
    if isinstance(doc, list):
        return "list", [(None, None, rec) for rec in doc]
    if isinstance(doc, dict) and doc:
        values = list(doc.values())
        if all(_is_movie_entry(v) for v in values):
            return "by-movie", [(str(k), None, {**{f: x for f, x in v.items() if f != "questions"}, **qa})
                                for k, v in doc.items() for qa in v["questions"]]
        if all(isinstance(v, list) for v in values):
            return "by-skill", [(str(k), None, rec) for k, v in doc.items() for rec in v]
        if all(isinstance(v, dict) for v in values):
            return "by-id", [(None, str(k), rec) for k, rec in doc.items()]
        raise DataError("a QA object must map keys to records (v2) or to lists of records", file=file)
    raise DataError("a QA file must hold a JSON list of records, or an object of records", file=file)


def _is_movie_entry(value: Any) -> bool:
    """A movie of the scraped spoiler questions (``movies_spoiler_questions.json``): its video paths and a
    ``questions`` list of question/answer objects, and no question of its own."""
    return isinstance(value, dict) and isinstance(value.get("questions"), list) and \
        all(isinstance(q, dict) for q in value["questions"]) and "question" not in value and "Q" not in value


def decode_options(value: Any, *, file: Path, field: str) -> tuple[list[str], bool]:
    """(option texts, whether the options were spelled other than as a plain list of strings)."""
    spelled = False
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise DataError("options must be a list (or the text of one)", file=file, field=field) from None
        spelled = True
    if not isinstance(value, list) or len(value) < 2:
        raise DataError("options must be a list of at least two options", file=file, field=field)
    texts: list[str] = []
    for k, opt in enumerate(value):
        if isinstance(opt, str):
            texts.append(opt)
        elif isinstance(opt, list) and opt and all(isinstance(x, str) for x in opt):
            texts.append(ORDER_JOIN.join(x.strip() for x in opt))  # an ordering: its items in order
            spelled = True
        else:
            raise DataError("an option must be a string or a list of strings (an ordering)", file=file,
                            field=f"{field}[{k}]")
    return texts, spelled


def frame_fps_for(rec: dict[str, Any], paths: Sequence[str]) -> tuple[float | None, str | None]:
    """The known frame rate of a record's frame folder (TVQA: 3 fps) and the source it was told by."""
    source = rec.get("source")
    if isinstance(source, str) and source.lower() in KNOWN_FRAME_FPS:
        return KNOWN_FRAME_FPS[source.lower()], source.lower()
    for path in paths:
        parts = {p.lower() for p in path.strip("/").split("/")}
        if parts & TVQA_SHOWS or "tv_shows" in parts:
            return KNOWN_FRAME_FPS["tvqa"], "tvqa"
    return None, None


def official_meta(rec: dict[str, Any], *, options_raw: Any, options_spelled: bool, key: str | None,
                  group: str | None) -> dict[str, Any]:
    """What the export needs beyond the sample's own fields to write ``rec`` back unchanged.

    Of the own fields, those the sample does not carry are kept as written too: an MCQ record's reference
    text (``answer`` beside ``answer_idx``), an open-ended record's stray ``answer_idx``, the second spelling
    of a field written twice (``question`` and ``Q``)."""
    used = {"question" if "question" in rec else "Q", *PATH_FIELDS}
    if options_raw is not None:
        used |= {"options", "answer_idx"}
    else:
        used.add("answer" if "answer" in rec else "A")
    used |= {k for k in ("show", "season", "episode") if rec.get(k) is not None}
    out: dict[str, Any] = {"keys": list(rec), "extra": {k: v for k, v in rec.items() if k not in used},
                           "paths": {k: rec[k] for k in PATH_FIELDS if k in rec}}
    if options_spelled:
        out["options"] = options_raw
    if "answer_idx" in rec and not isinstance(rec["answer_idx"], int):
        out["answer_idx"] = rec["answer_idx"]
    for alias, plain in (("Q", "question"), ("A", "answer")):
        if alias in rec and plain not in rec:  # the sample's text came from the alias: written back under it
            out.setdefault("spelling", []).append(alias)
    if key is not None:
        out["key"] = key
    if group is not None:
        out["group"] = group
    return out


def sample_to_record(sample: Any) -> dict[str, Any]:
    """The official record of one sample: its question, options, answer and video, in the record's own key
    order and spelling when the sample was imported (``meta["official"]``), else in the generator scripts'
    order."""
    from niah.sample import VideoPart, parts_text

    meta = sample.meta
    official: dict[str, Any] = meta.get("official") or {}
    spelling = set(official.get("spelling") or ())
    values: dict[str, Any] = {}
    values["Q" if "Q" in spelling else "question"] = parts_text(sample.question)
    if meta.get("format") == "mcq" or (meta.get("format") is None and sample.choices):
        values["options"] = official["options"] if "options" in official else list(
            meta.get("options") or [parts_text(c) for c in sample.choices or []])
        raw_idx = official.get("answer_idx")
        if isinstance(raw_idx, str):  # a digit string: as written (" 2" stays " 2") unless the answer changed
            same = raw_idx.strip().isdigit() and int(raw_idx.strip()) == sample.answer
            values["answer_idx"] = raw_idx if same else str(sample.answer)
        else:
            values["answer_idx"] = sample.answer
    else:
        values["A" if "A" in spelling else "answer"] = sample.answer
    for k in ("show", "season", "episode"):
        if k in meta:
            values[k] = meta[k]
    paths = official.get("paths")
    if paths is None:
        video = next((p for p in sample.context if isinstance(p, VideoPart)), None)
        paths = {}
        if video is not None:
            if video.path is not None:
                paths["video_path_mp4"] = "/" + video.path
            if video.frames:
                paths["video_path_frames"] = "/" + str(Path(video.frames[0]).parent)
            if video.subtitles is not None:
                paths["video_subtitles"] = "/" + video.subtitles
    values.update(paths)
    values.update(official.get("extra") or {})
    order = official.get("keys") or list(values)
    record = {k: values[k] for k in order if k in values}
    record.update({k: v for k, v in values.items() if k not in record})
    return record


def export_dataset(dataset: str | Path, out: str | Path) -> dict[str, int]:
    """Write a dataset's samples as official QA files under ``out``: an imported file under its own name,
    container (list, object by id, object by skill, object by movie) and layout, so the bytes match the file imported; other
    samples as one ``{skill}.json`` list per skill (``indent=4``, as the generator scripts write). Returns
    {file name: records}."""
    from niah.sample import Dataset
    from niah.util.iox import check_file_name, export_dir

    ds = Dataset(Path(dataset))
    layouts: dict[str, Any] = dict(ds.manifest.get("official_files") or {})
    groups: dict[str, list[Any]] = {}
    for sample in ds:
        if sample.benchmark != "infinibench":
            raise DataError(f"sample {sample.id!r} is benchmark {sample.benchmark!r}, not infinibench",
                            file=Path(dataset) / "samples.jsonl")
        name = sample.meta.get("source_file")
        if not isinstance(name, str) or name not in layouts:
            name = f"{sample.task}.json"
        # the name comes from the dataset: "../../x.json" must not lead the export out of --out
        check_file_name(name, what=f"sample {sample.id!r}: official file", file=ds.samples_path,
                        field="meta.source_file")
        groups.setdefault(name, []).append(sample)
    if not groups:
        raise DataError("the dataset holds no InfiniBench samples", file=dataset)
    with export_dir(Path(out), kind="infinibench export") as target:  # new, empty or an earlier export
        return _write_files(target, groups, layouts)


def _write_files(target: Path, groups: dict[str, list[Any]], layouts: dict[str, Any]) -> dict[str, int]:
    from niah.util.iox import write_atomic

    written: dict[str, int] = {}
    for name, samples in groups.items():
        layout = layouts.get(name) or {"container": "list", "indent": 4, "ensure_ascii": True, "newline": False}
        container = layout.get("container", "list")
        doc: Any
        if container == "by-id":
            doc = {}
            for s in samples:
                key = (s.meta.get("official") or {}).get("key") or s.id.split("/", 1)[-1]
                doc[str(key)] = sample_to_record(s)
        elif container == "by-movie":  # each movie's fields in their order, its questions where they stood
            doc = {}
            for s in samples:
                info = (s.meta.get("official") or {}).get("movie") or {}
                rec = sample_to_record(s)
                key = str(info.get("key") or s.meta.get("movie") or s.id.split("/")[1])
                keys = info.get("keys") or [*(k for k in rec if k not in ("question", "answer")), "questions"]
                movie = doc.setdefault(key, {k: [] if k == "questions" else rec.get(k) for k in keys})
                qa_keys = info.get("qa_keys") or ["question", "answer"]
                movie.setdefault("questions", []).append({k: rec[k] for k in qa_keys if k in rec})
        elif container == "by-skill":
            doc = {}
            for s in samples:
                group = (s.meta.get("official") or {}).get("group") or s.task
                doc.setdefault(str(group), []).append(sample_to_record(s))
        else:
            doc = [sample_to_record(s) for s in samples]
        write_atomic(target / name, dump(doc, layout))
        written[name] = len(samples)
    return written
