"""Published MM-NIAH results shipped as data (the paper's Appendix A tables), and when they may be shown.

The rows are transcribed from the paper into ``niah/data/published/mm_niah_paper.json`` together with the
protocol they were measured under. A report shows them beside the user's model only when the user's results
were produced under the same protocol (benchmark ``mm-niah``, official scoring); numbers from another
benchmark or another scorer would invite a comparison that means nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from niah.benchmarks.mm_niah.bins import CONTEXT_LABELS
from niah.errors import DataError
from niah.report.tables import PublishedSection, TableRow

PAPER_FILE = "mm_niah_paper.json"


@dataclass(frozen=True, slots=True)
class PublishedTable:
    table: int               # the paper's table number
    task: str                # "overall" or a task name
    caption: str
    rows: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True)
class PublishedResults:
    protocol: dict[str, Any]
    source: dict[str, Any]
    model_notes: dict[str, str]
    tables: dict[str, PublishedTable]

    def matches(self, *, benchmark: str | None, scoring: str | None) -> bool:
        """Same benchmark and the official scorer: the only case where the paper's numbers are comparable."""
        return benchmark == self.protocol.get("benchmark") and scoring == self.protocol.get("scoring")

    def section(self, task: str) -> PublishedSection | None:
        table = self.tables.get(task)
        if table is None:
            return None
        split = self.protocol.get("split")
        label = (f"Published: MM-NIAH paper, Table {table.table}"
                 f" ({split} split, {self.protocol.get('scoring')} scoring)" if split else
                 f"Published: MM-NIAH paper, Table {table.table}")
        notes = {m: n for m, n in self.model_notes.items() if any(r.model == m for r in table.rows)}
        return PublishedSection(label=label, rows=list(table.rows), notes=notes)


def _parse(doc: Any, *, where: str) -> PublishedResults:
    if not isinstance(doc, dict) or not isinstance(doc.get("tables"), list):
        raise DataError("expected an object with a 'tables' list", file=where)
    tables: dict[str, PublishedTable] = {}
    for ti, table in enumerate(doc["tables"]):
        field = f"tables[{ti}]"
        rows = []
        for ri, row in enumerate(table.get("rows", [])):
            values = row.get("values")
            if not isinstance(values, list) or len(values) != len(CONTEXT_LABELS):
                raise DataError(f"expected {len(CONTEXT_LABELS)} values", file=where, field=f"{field}.rows[{ri}]")
            rows.append(TableRow(model=str(row["model"]),
                                 values=tuple(None if v is None else float(v) for v in values),
                                 overall=None if row.get("overall") is None else float(row["overall"])))
        tables[str(table["task"])] = PublishedTable(table=int(table["table"]), task=str(table["task"]),
                                                    caption=str(table.get("caption", "")), rows=tuple(rows))
    notes = {str(m): str(info.get("note", "")) for m, info in (doc.get("models") or {}).items()
             if isinstance(info, dict) and info.get("note")}
    return PublishedResults(protocol=dict(doc.get("protocol") or {}), source=dict(doc.get("source") or {}),
                            model_notes=notes, tables=tables)


@lru_cache(maxsize=1)
def load_mm_niah_paper() -> PublishedResults:
    """The MM-NIAH paper's Tables 2 and 6-11 as shipped with niah (package data, read once and cached)."""
    ref = resources.files("niah").joinpath("data", "published", PAPER_FILE)
    try:
        doc = json.loads(ref.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=PAPER_FILE, line=exc.lineno) from None
    return _parse(doc, where=PAPER_FILE)
