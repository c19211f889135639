"""The report's "Audit" section: the shortcut probes ``niah audit`` stored for each input's run or dataset.

An input's audit is ``audit.json`` in its run folder (``niah audit --run RUN``: what that run sent) or else in
its dataset folder (``niah audit DATASET``). Every text from the file is escaped: it is a file like any other.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.audit.dataset import AUDIT_FILE, DELIVERY, read_audit, verdict_label
from niah.report.inputs import ReportInput


@dataclass(frozen=True)
class InputAudit:
    name: str
    path: Path
    data: dict[str, Any]

    @property
    def probes(self) -> list[dict[str, Any]]:
        return [p for p in self.data.get("probes", []) if isinstance(p, dict)]

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [p for p in self.probes if not p.get("passed") and not p.get("advisory")]


def find_audits(inputs: Sequence[ReportInput]) -> list[InputAudit]:
    """The stored audit of each input that has one (its run's first, else its dataset's)."""
    out: list[InputAudit] = []
    for inp in inputs:
        places = [inp.path / AUDIT_FILE] if inp.kind == "run" and inp.path.is_dir() else []
        if inp.dataset_path is not None:
            places.append(inp.dataset_path / AUDIT_FILE)
        for place in places:
            data = read_audit(place)
            if data is not None:
                out.append(InputAudit(inp.name, place, data))
                break
    return out


def _number(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def _rows(audit: InputAudit) -> list[tuple[str, ...]]:
    return [(str(p.get("task", "")), str(p.get("probe", "")), str(p.get("kind", "")), _number(p.get("score")),
             _number(p.get("chance")), str(p.get("n", "")), _verdict(p))
            for p in audit.probes]


def _verdict(probe: dict[str, Any]) -> str:
    return verdict_label(bool(probe.get("passed")), bool(probe.get("advisory")), str(probe.get("kind", "")))


HEADER = ("task", "probe", "kind", "score", "chance", "n", "verdict")


def _summary(audit: InputAudit) -> str:
    margin = audit.data.get("margin")
    failed = audit.failed
    margin_text = f"{margin:g}" if isinstance(margin, (int, float)) else "?"
    if not failed:
        return (f"{audit.name}: all {len(audit.probes)} probes within chance + {margin_text} points plus their "
                f"sampling noise ({audit.path})")
    unsent = sum(1 for p in failed if p.get("kind") == DELIVERY)
    parts = []
    if len(failed) > unsent:
        parts.append(f"{len(failed) - unsent} of {len(audit.probes)} probes beat chance by more than {margin_text} "
                     "points plus their sampling noise")
    if unsent:
        parts.append(f"{unsent} delivery probe(s) failed (samples that cannot be answered from what is sent)")
    return f"{audit.name}: {'; '.join(parts)} ({audit.path})"


def audit_markdown(audits: Sequence[InputAudit]) -> str:
    if not audits:
        return ""
    parts = ["## Audit", ""]
    for audit in audits:
        parts += [_summary(audit).replace("|", "\\|"), "", "| " + " | ".join(HEADER) + " |",
                  "|---|---|---|---:|---:|---:|---|"]
        parts += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in _rows(audit)]
        parts.append("")
    return "\n".join(parts) + "\n"


def audit_html(audits: Sequence[InputAudit]) -> str:
    if not audits:
        return ""
    esc = html.escape
    parts = []
    for audit in audits:
        head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
        body = []
        for row, probe in zip(_rows(audit), audit.probes, strict=True):
            css = ("" if probe.get("passed") else ' class="audit-skew"' if probe.get("advisory")
                   else ' class="audit-fail"')
            title = esc(str(probe.get("detail", "")))
            body.append(f'<tr{css} title="{title}">' + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
        parts.append(f'<p class="table-notes">{esc(_summary(audit))}</p>'
                     f'<table class="results audit"><caption>Shortcut probes: {esc(audit.name)}</caption>'
                     f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
    return ('<section id="audit"><h2>Audit</h2><p class="table-notes">Could the data be scored without doing '
            "the task? Each probe's score against blind chance (percent); hover a row for what it measured."
            f"</p>{''.join(parts)}</section>")
