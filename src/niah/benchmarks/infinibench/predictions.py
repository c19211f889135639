"""InfiniBench v2 prediction folders scored as the official evaluation script scores them, offline.

The official v2 evaluation reads a folder of per-skill prediction files, each a JSON list of QA records with
the model's ``pred`` added (``{skill}.json``), and prints per-skill MCQ accuracy and open-ended judge scores.
:func:`score_prediction_folder` gives the same figures without a network: MCQ items by the official rule, and
open-ended items from the ``gpt_score`` each record already carries (the official script reuses a stored
``gpt_score`` and asks its judge only for the others; here those count as missing, and the output says how many
a judge still has to score). The official rules, quirks included:

- a file's skill is its name up to the first dot (``summarization.v2.json`` is summarization); only the four
  MCQ names ``global_appearance``, ``scene_transitions``, ``character_actions``, ``choronological_understanding``
  (the official spelling: ``chronological_understanding.json`` is skipped) and the four open-ended names
  ``summarization``, ``spoiler_questions``, ``deep_context_understanding``, ``linking_multiple_events`` are
  read; other ``.json`` files are skipped, and so is an empty list;
- MCQ: an item is right when ``str(pred) == str(answer_idx)`` (so ``1`` matches ``"1"`` but not ``" 1"``,
  ``1.0`` or ``"B"``); an item without ``pred`` or ``answer_idx`` is missing and still counts in the
  denominator (accuracy = right / all items);
- open-ended: the mean of the stored ``gpt_score`` values; a skill with none has average 0.0, and the overall
  open-ended score, the unweighted mean of the skills' averages, counts that 0.0 too;
- overall MCQ accuracy: the unweighted mean of the skills' accuracies.

Where the official script would crash or read nonsense (a record that is not an object, a file that is not a
list, a ``gpt_score`` that is not a number, two files naming one skill, which the official script resolves by
directory order), this refuses with the file and field named. Beside the official MCQ figure, each MCQ skill
gets niah's ``matched`` accuracy: the rule matcher (:mod:`niah.benchmarks.infinibench.matcher`) reads a
free-text ``pred`` against the record's options ("B) Sheldon" is right where the official rule counts it wrong);
an undecided reply, a hedge among them, is wrong there and counted.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

from niah.benchmarks.infinibench.matcher import match_option
from niah.benchmarks.infinibench.official import decode_options
from niah.benchmarks.infinibench.skills import parse_name
from niah.util.errors import ConfigError, DataError
from niah.util.iox import read_json_file

#: The official script's skill lists, in its order (file stems, official spellings).
MCQ_SKILLS: tuple[str, ...] = ("character_actions", "scene_transitions", "choronological_understanding",
                               "global_appearance")
OPEN_SKILLS: tuple[str, ...] = ("summarization", "spoiler_questions", "deep_context_understanding",
                                "linking_multiple_events")
OPEN_SCALE = 10
_OPTION_LINE = re.compile(r"^\s*option\s+(\d{1,3})\s*:\s?(.*?)\s*$", re.I)


def prediction_files(paths: list[Path], what: str = "prediction") -> list[Path]:
    """The ``.json`` files the official scripts read: those directly in each folder (``os.listdir``, not
    recursive; the name must end in ``.json`` exactly), or the files given, in name order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.name.endswith(".json") and p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise ConfigError(f"{path}: no such {what} file or folder")
    if not files:
        raise ConfigError(f"no {what} files given (a folder is searched for *.json)")
    return files


def _records(file: Path) -> list[dict[str, Any]]:
    doc = read_json_file(file, what="prediction file")
    if not isinstance(doc, list):
        raise DataError("a prediction file must hold a JSON list of records", file=file)
    for k, rec in enumerate(doc):
        if not isinstance(rec, dict):
            raise DataError("a prediction record must be a JSON object", file=file, field=f"[{k}]")
    return doc


def _options(rec: dict[str, Any], *, file: Path, k: int) -> list[str] | None:
    """The record's option texts: ``options`` (a list or the text of one), else v1's ``options_str``
    (``option 0 : ...`` lines); None when it has neither."""
    if "options" in rec:
        return decode_options(rec["options"], file=file, field=f"[{k}].options")[0]
    text = rec.get("options_str")
    if isinstance(text, str):
        found = [m for m in map(_OPTION_LINE.match, text.split("\n")) if m]
        if len(found) >= 2 and [int(m[1]) for m in found] == list(range(len(found))):
            return [m[2] for m in found]
    return None


def _answer_index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def score_mcq_file(file: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Official accuracy (exact string match of ``pred`` and ``answer_idx``) and niah's matched accuracy."""
    right = missing = matched_right = undecided = no_options = 0
    for k, rec in enumerate(records):
        if "pred" not in rec or "answer_idx" not in rec:
            missing += 1
            continue
        if str(rec["pred"]) == str(rec["answer_idx"]):
            right += 1
        options = _options(rec, file=file, k=k)
        gold = _answer_index(rec["answer_idx"])
        if options is None:
            no_options += 1
            continue
        pred = rec["pred"]
        choice, _rule = match_option(options, None if pred is None else str(pred), index_base=0)
        if choice is None:
            undecided += 1
        elif choice == gold:
            matched_right += 1
    n = len(records)
    return {"accuracy": right / n, "total_items": n, "missing_predictions": missing,
            "matched": {"accuracy": matched_right / n, "undecided": undecided, "without_options": no_options}}


def score_open_file(file: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The mean of the stored judge scores, as the official summary gives it."""
    scores: list[float] = []
    out_of_range = 0
    for k, rec in enumerate(records):
        value = rec.get("gpt_score")
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > sys.float_info.max:
            # a 4000-digit integer: no float holds it, its mean would overflow
            raise DataError("gpt_score is too large to average (the official judge's 0-10 integer)", file=file,
                            field=f"[{k}].gpt_score")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise DataError("gpt_score must be a number (the official judge's 0-10 integer)", file=file,
                            field=f"[{k}].gpt_score")
        out_of_range += not 0 <= value <= OPEN_SCALE
        scores.append(value)
    n = len(records)
    return {"average_score": sum(scores) / len(scores) if scores else 0.0,
            "min_score": min(scores) if scores else 0, "max_score": max(scores) if scores else 0,
            "total_items": n, "valid_scores": len(scores), "missing_scores": n - len(scores),
            "out_of_range_scores": out_of_range}


def _skip_reason(stem: str) -> str:
    why = "not one of the official script's skill file names"
    known = parse_name(stem)
    if known is None:
        return why
    official = [name for name in (*MCQ_SKILLS, *OPEN_SKILLS) if parse_name(name) == (known[0], None)]
    return f"{why}; it reads {known[0].title} only as {official[0]}.json" if official else \
        f"{why}; {known[0].title} is not a v2 skill"


def score_prediction_folder(paths: list[Path]) -> dict[str, Any]:
    """Per-skill and overall figures of an official v2 prediction folder (see the module docstring)."""
    files = prediction_files(paths)
    by_skill: dict[str, Path] = {}
    skipped: list[dict[str, str]] = []
    for file in files:
        skill = file.name.split(".")[0]
        if skill not in MCQ_SKILLS and skill not in OPEN_SKILLS:
            skipped.append({"file": str(file), "why": _skip_reason(skill)})
            continue
        if skill in by_skill:
            raise DataError(f"names the skill {skill!r} as {by_skill[skill]} does; the official script keeps one "
                            "of them by directory order: give one file per skill", file=file)
        by_skill[skill] = file
    loaded = {skill: _records(file) for skill, file in by_skill.items()}  # every file checked before scoring
    mcq: dict[str, Any] = {}
    open_ended: dict[str, Any] = {}
    for skill in (*MCQ_SKILLS, *OPEN_SKILLS):
        if skill not in loaded:
            continue
        if not loaded[skill]:
            skipped.append({"file": str(by_skill[skill]), "why": "no records"})
            continue
        if skill in MCQ_SKILLS:
            mcq[skill] = score_mcq_file(by_skill[skill], loaded[skill])
        else:
            open_ended[skill] = score_open_file(by_skill[skill], loaded[skill])
    overall: dict[str, Any] = {}
    if mcq:
        overall["mcq_accuracy"] = sum(r["accuracy"] for r in mcq.values()) / len(mcq)
        overall["mcq_matched_accuracy"] = sum(r["matched"]["accuracy"] for r in mcq.values()) / len(mcq)
    if open_ended and any(r["valid_scores"] for r in open_ended.values()):
        overall["open_ended_score"] = sum(r["average_score"] for r in open_ended.values()) / len(open_ended)
    unjudged = sum(r["missing_scores"] for r in open_ended.values())
    return {"protocol": "v2", "scale": {"accuracy": "fraction", "open_ended": f"0-{OPEN_SCALE}"},
            "mcq": mcq, "open_ended": open_ended, "overall": overall,
            "unjudged_open_ended_items": unjudged, "skipped": skipped}


def notes(result: dict[str, Any]) -> list[str]:
    """What a user should know about the figures: skipped files, unjudged items, out-of-range scores."""
    lines = [f"skipped {s['file']}: {s['why']}" for s in result["skipped"]]
    if result["unjudged_open_ended_items"]:
        lines.append(f"{result['unjudged_open_ended_items']} open-ended item(s) carry no gpt_score and count as "
                     "missing (the official script would ask its judge for them)")
    for skill, r in result["open_ended"].items():
        if r["out_of_range_scores"]:
            lines.append(f"{skill}: {r['out_of_range_scores']} stored gpt_score(s) outside 0-{OPEN_SCALE}, "
                         "counted as the official script counts them")
    return lines
