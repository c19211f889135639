"""A benchmark family written outside niah, plugged in by one registry line, runs end to end through the CLI:
build -> run (baseline) -> score -> report, plus its metric rule and an extra verb; no shared code is touched."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

FAMILY_PY = '''
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from niah.benchmarks.protocol import (OFFICIAL, Axis, Breakdown, Builder, Command, Family, ReportSpec,
                                      SampleScore, Scorer)
from niah.scoring.metrics.base import MetricRule

WORDS = ("oak", "elm", "ash", "fir", "yew", "box")


def build(out: Path, options: dict[str, Any], progress: bool) -> dict[str, int]:
    from niah.sample import DatasetWriter, Sample, TextPart

    n = int(options.get("n", 6))
    with DatasetWriter(out) as writer:
        for i in range(n):
            needles = 1 + i % 3
            filler = "The meadow is quiet. " * (5 if i % 2 else 60)
            text = filler + " ".join(f"The secret tree is {WORDS[i % 6]}." for _ in range(needles))
            writer.write(Sample(id=f"find/{i:03d}", benchmark="toy-niah", task="find",
                                context=[TextPart(text)], question=[TextPart("Which tree is secret?")],
                                choices=None, answer=WORDS[i % 6],
                                meta={"context_length": len(text), "needle_count": needles}))
        writer.finish({"benchmark": "toy-niah", "tasks": ["find"], "num_samples": n})
    return {"find": n}


def build_command(out: Annotated[Path, typer.Option("--out")],
                  n: Annotated[int, typer.Option("--n", help="samples")] = 6) -> None:
    """Build toy samples."""
    build(out, {"n": n}, False)
    typer.echo(f"built {n}")


def judge_test(word: Annotated[str, typer.Argument()]) -> None:
    """An extra verb only this family has."""
    typer.echo(f"judged {word}")


def exact(answer: Any, response: str | None) -> float:
    return float(response is not None and response.strip().lower() == str(answer).lower())


def score(sample: Any, response: str | None) -> SampleScore:
    strict = exact(sample.answer, response)
    loose = float(response is not None and str(sample.answer) in response.lower())
    return SampleScore({OFFICIAL: strict, "contains": loose})


def aggregate(rows: list[tuple[dict[str, Any], dict[str, Any]]], mode: str) -> dict[str, Any]:
    values = [row["scores"][mode] for row, _ in rows]
    return {"accuracy": sum(values) / len(values), "by_needles": sorted({row["needle_count"] for row, _ in rows})}


def per_bin(acc: list[list[float]]) -> list[float]:
    return [round(sum(r[c] for r in acc) / len(acc), 6) for c in range(len(acc[0]))]


REPORT = ReportSpec(
    columns=Axis("Context length (chars)", "context_length", ("short", "long"),
                 lambda v: 0 if v < 500 else 1),
    rows=Axis("Needles", "needle_count", ("1", "2", "3"), lambda v: int(v) - 1),
    per_bin=per_bin,
    overall=lambda scores: None,
    task_order=("find",),
    task_titles={"find": "Find the tree"},
    table_prefix="toy_",
    footnote="Toy values: exact match per length bin.",
    breakdowns=(Breakdown("By needles", "needle_count", lambda n: f"{n} needles"),),
)

FAMILY = Family(
    name="toy-niah", title="Toy", tasks=("find",), description="a toy family",
    commands=lambda: (Command("build", "toy-niah", build_command), Command("judge-test", "toy-niah", judge_test)),
    builders=lambda: (Builder("toy-niah", build, {"n": 6}),),
    scorer=lambda: Scorer(score, aggregate, (OFFICIAL, "contains"),
                          row_fields=lambda s: {"needle_count": s.meta["needle_count"]}),
    metric_rules=lambda: (MetricRule("toy-niah/exact", "exact match, case-insensitive", exact),),
    report=lambda: REPORT,
)
'''

LAUNCHER = '''
import sys
from niah.benchmarks import registry
registry.FAMILIES["toy-niah"] = "toyfam.family"   # the one registry line a new family adds
from niah.cli import main
sys.argv[0] = "niah"
main()
'''


def _niah(tmp_path: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, str(tmp_path / "launch.py"), *args], capture_output=True, text=True,
                          cwd=tmp_path, check=False,
                          env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).parents[1] / 'src'}", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_toy_family_end_to_end(tmp_path: Path) -> None:
    (tmp_path / "toyfam").mkdir()
    (tmp_path / "toyfam" / "__init__.py").write_text("")
    (tmp_path / "toyfam" / "family.py").write_text(textwrap.dedent(FAMILY_PY))
    (tmp_path / "launch.py").write_text(LAUNCHER)

    assert "offers: build toy-niah, judge-test toy-niah, score, report" in _niah(tmp_path, "list")
    assert "toy-niah" in _niah(tmp_path, "build", "--help")
    assert "judged oak" in _niah(tmp_path, "judge-test", "toy-niah", "oak")
    assert "built 6" in _niah(tmp_path, "build", "toy-niah", "--out", "ds", "--n", "6")
    _niah(tmp_path, "run", "ds", "--model", "baseline:oracle", "--out", "run", "--no-progress")
    out = _niah(tmp_path, "score", "run")
    assert "scored 6 samples" in out
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    # the shared layout: headline in percent (a plain mean of 0/1 scores: Wilson's interval, 6/(6 + 1.96^2) =
    # 60.97 below), the family's own structure under "official" (this family has no percent hook: its scale)
    assert scores == {
        "schema": "niah.scores/2", "benchmark": "toy-niah", "mode": "official", "scale": "percent",
        "metric": "mean score", "overall": 100.0, "ci95": [60.9666, 100.0], "ci_method": "wilson",
        "covered": 100.0, "n": 6, "full_grid": True, "covered_ci95": [60.9666, 100.0], "covered_ci_method": "wilson",
        "by_task": {"find": {"score": 100.0, "n": 6, "ci95": [60.9666, 100.0]}},
        "official": {"accuracy": 1.0, "by_needles": [1, 2, 3]},
        "run_status": {"complete": True, "answered": 6, "failed": 0, "skipped": 0, "missing": 0, "total": 6,
                       "requests": 6}}
    assert "toy-niah: mean score 100.0% (95% CI 61.0-100.0, wilson), n=6; covered 100.0%" in out
    contains = json.loads((tmp_path / "run" / "scores.contains.json").read_text())
    assert contains["overall"] == 100.0 and contains["official"]["accuracy"] == 1.0
    rows = [json.loads(line) for line in (tmp_path / "run" / "scored.jsonl").read_text().splitlines()]
    assert [r["needle_count"] for r in rows] == [1, 2, 3, 1, 2, 3]

    _niah(tmp_path, "report", "run", "--out", "rep")
    table = (tmp_path / "rep" / "tables" / "toy_find.md").read_text()
    assert "| Model | short | long | Overall |" in table
    assert "| baseline:oracle | 100.0 [43.9-100.0] | 100.0 [43.9-100.0] | 100.0 [61.0-100.0] |" in table  # Wilson 3/3, 6/6
    assert (tmp_path / "rep" / "assets" / "heatmaps" / "1-baseline-oracle" / "find.png").is_file()
    md = (tmp_path / "rep" / "tables.md").read_text()
    assert "| Model | 1 needles | 2 needles | 3 needles |" in md
    assert "| baseline:oracle | 100.0 (2) | 100.0 (2) | 100.0 (2) |" in md
    index = (tmp_path / "rep" / "index.html").read_text()
    assert "Find the tree" in index and "Toy values" in index

    (tmp_path / "m.jsonl").write_text('{"answer": "Oak", "response": "oak"}\n{"answer": "oak", "response": "elm"}\n')
    assert "mean score 0.500000" in _niah(tmp_path, "metric", "toy-niah/exact", "--input", "m.jsonl",
                                          "--out", "o.jsonl")
