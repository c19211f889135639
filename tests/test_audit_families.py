"""Every generator's build passes `niah audit` (small grids here; larger ones in bench/audit_families.py).

No reply written without reading beats chance by more than the margin, no layout class picks needles out,
no gold stands in its haystack more than other golds do, and every needle is in what `niah run` sends at the
settings the docs recommend.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.audit.dataset import AuditOptions, audit_dataset
from niah.cli import app

BUILDS = {
    "mm-niah": ["mm-niah", "--per-cell", "1", "--lengths", "1k-2k,4k-8k"],
    "seq-niah": ["seq-niah", "--per-cell", "2", "--lengths", "8k-16k"],
    "mmlongbench-vh": ["mmlongbench-vh", "--lengths", "8k", "--per-cell", "24"],
    "milebench-niah": ["milebench-niah", "--per-cell", "8"],
    "video-niah": ["video-niah", "--durations", "1m,2m", "--per-cell", "1"],
}
#: What the docs recommend running each with (video-niah: as many frames as the build sampled).
RUN_SETTINGS = {"video-niah": {"max_frames": 64}}


@pytest.mark.parametrize("family", sorted(BUILDS))
def test_default_build_passes_the_audit(tmp_path: Path, family: str) -> None:
    out = tmp_path / family
    result = CliRunner().invoke(app, ["build", *BUILDS[family][:1], "--out", str(out), "--no-progress",
                                      *BUILDS[family][1:]])
    assert result.exit_code == 0, result.output
    report = audit_dataset(out, AuditOptions(**RUN_SETTINGS.get(family, {})), progress=False)  # type: ignore[arg-type]
    kinds = {p.kind for p in report.probes}
    assert {"no-read", "delivery"} <= kinds, kinds
    assert report.passed, [(p.task, p.probe, p.score, p.chance, p.noise, p.detail) for p in report.failed]
