"""The report's resolved-spec cache: one object per (spec, values), bounded, and never another spec's entry."""

from __future__ import annotations

from niah.benchmarks.protocol import Axis, ReportSpec
from niah.report import inputs


def _spec() -> ReportSpec:
    columns = Axis.from_data("Length", "length", lambda v: None if v is None else f"{v}")
    return ReportSpec(columns=columns, rows=None, per_bin=lambda acc: acc[0] if acc else [],
                      overall=lambda scores: None, task_order=("t",), task_titles={"t": "T"})


def test_same_values_share_one_resolved_spec() -> None:
    spec = _spec()
    first = inputs.resolve_spec(spec, {"length": [1, 2]})
    assert inputs.resolve_spec(spec, {"length": [2, 1]}) is first
    assert first.columns.labels == ("1", "2")
    assert inputs.resolve_spec(spec, {"length": [3]}) is not first


def test_cache_is_bounded_and_keyed_by_the_spec_itself() -> None:
    spec = _spec()
    for k in range(inputs._RESOLVED_MAX + 50):
        inputs.resolve_spec(spec, {"length": [k]})
    assert len(inputs._RESOLVED) <= inputs._RESOLVED_MAX
    # an entry planted under another spec object's id (as after that id is reused) is never handed out
    planted = inputs.resolve_spec(spec, {"length": [5]})
    values_key = next(reversed(inputs._RESOLVED))[1]
    other = _spec()
    inputs._RESOLVED[(id(other), values_key)] = (spec, planted)
    got = inputs.resolve_spec(other, {"length": [5]})
    assert got is not planted
    assert got.columns.labels == ("5",)
