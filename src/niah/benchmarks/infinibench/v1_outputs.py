"""InfiniBench v1 judge outputs scored as the official v1 evaluation scripts score them, offline.

The v1 scripts (one for MCQ accuracy, one for the open-ended GPT score) ask a judge about every prediction of
one skill's file and write every verdict into one combined JSON file (their ``--output_json``): an object
mapping each item's key to ``[verdict, {"q": ..., "a": ..., "pred": ...}]``, the verdict being the judge's reply
read as a Python literal, or the reply text itself when it did not parse. Each script then prints one figure;
:func:`score_v1_outputs` gives the same figure for each such file, and the unweighted mean over the files (the
paper's AVG), by the scripts' rules, quirks included:

- MCQ accuracy = yes / (yes + no) over the verdicts whose ``decision`` is exactly ``'yes'`` or ``'no'``; any
  other decision (``'Yes'``, ``True``, ``1``) counts neither way, and a verdict that is no object (an unparsed
  reply) or has no ``decision`` is left out ("decision not found");
- open-ended score = the mean of ``int(verdict['score'])`` over the verdicts where that works (``int('4')`` is 4,
  ``int(4.7)`` is 4, ``int(True)`` is 1, ``'4.5'`` is left out); not range-checked.

A file whose every verdict is left out has no figure (the scripts divide by zero there); a file holding both
``decision`` and ``score`` verdicts, or anything but such an object, is refused naming the file and key.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from niah.benchmarks.infinibench.predictions import prediction_files
from niah.benchmarks.infinibench.skills import parse_name
from niah.util.errors import DataError
from niah.util.iox import read_json_file


def _int_score(value: Any) -> int | None:
    """Python's ``int(value)`` where it succeeds (the official reading), else None."""
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def _entries(file: Path) -> dict[str, list[Any]]:
    doc = read_json_file(file, what="judge output file")
    if not isinstance(doc, dict):
        raise DataError("a v1 judge output must be a JSON object of key -> [verdict, qa]", file=file)
    for key, value in doc.items():
        if not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], dict):
            raise DataError("each entry must be [verdict, {q, a, pred}]", file=file, field=key)
    return doc


def score_v1_file(file: Path) -> dict[str, Any]:
    """One combined output file's official figure (see the module docstring)."""
    entries = _entries(file)
    kinds = {k for _key, (verdict, _qa) in entries.items() if isinstance(verdict, dict)
             for k in ("decision", "score") if k in verdict}
    if len(kinds) > 1:
        key = next(k for k, (v, _qa) in entries.items() if isinstance(v, dict) and "score" in v)
        raise DataError("holds both MCQ decisions and open-ended scores: one file per script run", file=file,
                        field=key)
    stem = file.name.removesuffix(".json")
    known = parse_name(stem)
    row: dict[str, Any] = {"file": str(file), "skill": known[0].id if known else stem, "items": len(entries)}
    if kinds == {"decision"}:
        decisions = [v.get("decision") if isinstance(v, dict) else None for v, _qa in entries.values()]
        yes = sum(d == "yes" for d in decisions if isinstance(d, str))
        no = sum(d == "no" for d in decisions if isinstance(d, str))
        not_found = sum(not isinstance(v, dict) or "decision" not in v for v, _qa in entries.values())
        row.update(kind="mcq", accuracy=yes / (yes + no) if yes + no else None, yes=yes, no=no,
                   not_counted=len(entries) - yes - no - not_found, not_found=not_found)
    elif kinds == {"score"}:
        scores = [s for v, _qa in entries.values() if isinstance(v, dict)
                  for s in [_int_score(v.get("score"))] if s is not None]
        huge = next((key for key, (v, _qa) in entries.items() if isinstance(v, dict)
                     and abs(_int_score(v.get("score")) or 0) > sys.float_info.max), None)
        if huge is not None:  # the mean would overflow a float (a 4000-digit score): refused, named
            raise DataError("score is too large to average (not a 0-5 judge score)", file=file, field=f"{huge}.score")
        row.update(kind="open", average_score=sum(scores) / len(scores) if scores else None, scored=len(scores),
                   not_found=len(entries) - len(scores))
    else:  # no verdict parsed: neither script can count anything
        row.update(kind="unknown", not_found=len(entries))
    return row


def score_v1_outputs(paths: list[Path]) -> dict[str, Any]:
    """Every file's figure and the unweighted means over the MCQ files and over the open-ended files."""
    rows = [score_v1_file(f) for f in prediction_files(paths, what="judge output")]
    accuracies = [r["accuracy"] for r in rows if r["kind"] == "mcq" and r["accuracy"] is not None]
    scores = [r["average_score"] for r in rows if r["kind"] == "open" and r["average_score"] is not None]
    overall: dict[str, float] = {}
    if accuracies:
        overall["mcq_accuracy"] = sum(accuracies) / len(accuracies)
    if scores:
        overall["open_ended_score"] = sum(scores) / len(scores)
    return {"protocol": "v1", "scale": {"accuracy": "fraction", "open_ended": "0-5"}, "files": rows,
            "overall": overall}


def notes(result: dict[str, Any]) -> list[str]:
    """Per file: verdicts the official count leaves out, and files without a figure."""
    lines: list[str] = []
    for r in result["files"]:
        left_out = r["not_found"] + r.get("not_counted", 0)
        figure = r.get("accuracy") if r["kind"] == "mcq" else r.get("average_score")
        if figure is None:
            lines.append(f"{r['file']}: no verdict counts, so no figure (the official script divides by zero)")
        elif left_out:
            lines.append(f"{r['file']}: {left_out} of {r['items']} verdict(s) left out, as officially")
    return lines
