"""InfiniBench's report: MCQ accuracy per skill and overall beside the paper's rows; open-ended scores apart.

The shared tables show one number per skill: the MCQ accuracy (open-ended rows are not binned there, so an
accuracy never mixes with a score); the Overall table is the unweighted mean of the skill accuracies (the
paper's "AVG Accuracy"). Open-ended scores appear in a breakdown, per skill, as a percentage of the scale's
maximum (v1: 0-5, v2: 0-10); scores.json holds them on the paper's own scale. The paper's rows are v1 (GPT-4o
judge); compare a v1-judged run with them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from niah.benchmarks.infinibench.skills import SKILLS
from niah.benchmarks.protocol import Axis, Breakdown, ReportSpec
from niah.report.published import PublishedResults, PublishedTable
from niah.report.tables import TableRow
from niah.util.errors import DataError

#: The paper's published results, package data of this family.
PAPER_FILE = "data/paper.json"
_PAPER_SHOWN = "niah/benchmarks/infinibench/" + PAPER_FILE  # where errors say it is
MCQ_SKILLS = tuple(s.id for s in SKILLS if "mcq" in s.formats)
TITLES = {s.id: s.title for s in SKILLS}


def per_bin(acc: list[list[float]]) -> list[float]:
    return [acc[0][0]]


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    """The unweighted mean of the MCQ skills' accuracies present in the run."""
    values = [scores[0] for task, scores in task_scores.items() if task in MCQ_SKILLS]
    return [sum(values) / len(values)] if values else None


def published() -> PublishedResults:
    ref = resources.files("niah.benchmarks.infinibench").joinpath(*PAPER_FILE.split("/"))
    try:
        doc = json.loads(ref.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=_PAPER_SHOWN, line=exc.lineno) from None
    models: dict[str, Any] = doc.get("models") or {}
    tables: dict[str, PublishedTable] = {}
    for number, skill in enumerate(MCQ_SKILLS):
        rows = tuple(TableRow(model=name, values=(acc,), overall=acc)
                     for name, m in models.items()
                     if (acc := (m.get("skills", {}).get(skill) or {}).get("accuracy")) is not None)
        if rows:
            tables[skill] = PublishedTable(table=2, task=skill, caption=f"Table 2 ({'abcde'[number]})", rows=rows)
    overall_rows = tuple(TableRow(model=name, values=(acc,), overall=acc) for name, m in models.items()
                         if (acc := (m.get("overall") or {}).get("accuracy")) is not None)
    tables["overall"] = PublishedTable(table=2, task="overall", caption="Table 2 (j)", rows=overall_rows)
    letters = {skill: letter for letter, skill in ((doc.get("source") or {}).get("tables") or {}).items()}
    notes = {}
    for name, m in models.items():
        if (m.get("overall") or {}).get("score") is None:
            continue
        opened = [f"{TITLES[k]} ({letters.get(k, '?')}) {v['score']}" for k, v in (m.get("skills") or {}).items()
                  if k in TITLES and isinstance(v, dict) and v.get("score") is not None]
        notes[name] = (f"paper average score {m['overall']['score']} (0-5, GPT-4o judge)"
                       + (f": {', '.join(opened)}" if opened else ""))
    protocol = {**(doc.get("protocol") or {}), "scoring": "official"}
    return PublishedResults(protocol=protocol, source=dict(doc.get("source") or {}), model_notes=notes,
                            tables=tables, source_label="InfiniBench paper (v1)")


def _format_bin(value: Any) -> int | None:
    return 0 if value == "mcq" else None


def _open_skill(value: Any) -> str | None:
    return TITLES.get(value, str(value)) if value else None


SPEC = ReportSpec(
    columns=Axis("Format", "format", ("MCQ accuracy",), _format_bin),
    rows=None,
    per_bin=per_bin,
    overall=overall,
    task_order=tuple(s.id for s in SKILLS),
    task_titles={**TITLES, "overall": "Overall (mean MCQ accuracy over skills)"},
    overall_title="Overall (mean MCQ accuracy over skills)",
    table_prefix="infinibench_",
    published=published,
    unbinned_note="open-ended answers (see the score breakdown)",
    footnote=("InfiniBench: tables give MCQ accuracy (open-ended rows are scored apart, as a percentage of the "
              "judge scale's maximum, in the breakdown; scores.json has them on the paper's scale). Published rows "
              "are the paper's v1 results (GPT-4o judge); a run scored with rules only counts undecided MCQ "
              "replies as wrong."),
    breakdowns=(Breakdown("Open-ended score by skill (% of the judge scale)", "open_skill", _open_skill),
                Breakdown("MCQ accuracy by question type", "mcq_question_type",
                          lambda v: str(v) if v else None),),
)
