"""Published results shipped as data (a paper's tables), and when they may be shown.

A family ships its paper's rows as package data together with the protocol they were measured under, and its
report spec loads them with :func:`parse_published`. A report shows them beside the user's model only when the
user's results were produced under the same protocol (same benchmark, official scoring); numbers from another
benchmark or another scorer would invite a comparison that means nothing.
"""

from __future__ import annotations

from typing import Any

from niah.benchmarks.results import PublishedResults, PublishedTable, TableRow
from niah.util.errors import DataError


def parse_published(doc: Any, *, where: str, num_bins: int, source_label: str) -> PublishedResults:
    """Published tables from their JSON document: ``{"protocol", "source", "models", "tables": [{"table",
    "task", "caption", "rows": [{"model", "values": [num_bins], "overall"}]}]}``."""
    if not isinstance(doc, dict) or not isinstance(doc.get("tables"), list):
        raise DataError("expected an object with a 'tables' list", file=where)
    tables: dict[str, PublishedTable] = {}
    for ti, table in enumerate(doc["tables"]):
        field = f"tables[{ti}]"
        rows = []
        for ri, row in enumerate(table.get("rows", [])):
            values = row.get("values")
            if not isinstance(values, list) or len(values) != num_bins:
                raise DataError(f"expected {num_bins} values", file=where, field=f"{field}.rows[{ri}]")
            rows.append(TableRow(model=str(row["model"]),
                                 values=tuple(None if v is None else float(v) for v in values),
                                 overall=None if row.get("overall") is None else float(row["overall"])))
        tables[str(table["task"])] = PublishedTable(table=int(table["table"]), task=str(table["task"]),
                                                    caption=str(table.get("caption", "")), rows=tuple(rows))
    notes = {str(m): str(info.get("note", "")) for m, info in (doc.get("models") or {}).items()
             if isinstance(info, dict) and info.get("note")}
    return PublishedResults(protocol=dict(doc.get("protocol") or {}), source=dict(doc.get("source") or {}),
                            model_notes=notes, tables=tables, source_label=source_label)
