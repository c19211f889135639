"""Reports any family fills in: per-bin tables (Markdown, CSV, LaTeX) with published rows beside, heatmaps over
two axes, and a static HTML report with a per-sample browser. ``build_report(load_inputs(paths), out)`` is what ``niah report`` runs."""

from __future__ import annotations

from niah.report.build import ReportOptions, ReportResult, build_report, build_tables
from niah.report.inputs import ReportInput, load_input, load_inputs
from niah.report.samples import BrowserOptions

__all__ = [
    "BrowserOptions", "ReportInput", "ReportOptions", "ReportResult", "build_report", "build_tables",
    "load_input", "load_inputs",
]
