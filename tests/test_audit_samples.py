"""`niah audit` measures a generated dataset on enough samples: more of the same builder (its build record's
command and options, other seeds), built into a private temporary folder, until every probe's noise allowance
is within a few points or `--limit` samples a task; an imported or hand-made dataset is audited as it is."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.audit.dataset import AuditOptions, AuditReport
from niah.audit.samples import (
    MIN_TASK_SAMPLES,
    BuildRecipe,
    allowance_95,
    audit_enough,
    samples_needed,
)
from niah.benchmarks.protocol import ProbeResult
from niah.build.record import BUILD_RECORD
from niah.cli import app

#: Two samples a task at 1K tokens: each extra build takes a second or two.
TINY = ["build", "mm-niah", "--tasks", "retrieval-text,counting-text", "--lengths", "1k", "--depths", "0,0.4",
        "--per-cell", "1", "--seed", "3", "--quiet", "--no-progress"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny") / "ds"
    result = CliRunner().invoke(app, [*TINY, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _audit(args: list[str]) -> tuple[int, str, dict]:  # type: ignore[type-arg]
    result = CliRunner().invoke(app, ["audit", *args])
    out = Path(args[args.index("--out") + 1])
    return result.exit_code, result.output, json.loads(out.read_text(encoding="utf-8"))


def test_a_built_dataset_is_measured_on_more_samples_of_its_builder(tiny: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    code, output, audit = _audit([str(tiny), "--limit", "12", "--out", str(tmp_path / "a.json")])
    assert code == 0, output
    own, built = audit["sources"]
    assert own == {"built": False, "samples": 4, "tasks": {"counting-text": 2, "retrieval-text": 2},
                   "path": str(tiny)}
    # --limit 12: five times the dataset's --per-cell (2 + 10 a task), another seed, the same command
    assert built["built"] and built["command"] == "niah build mm-niah" and built["per_cell"] == 5
    assert built["tasks"] == {"counting-text": 10, "retrieval-text": 10} and built["seed"] != 3
    assert audit["tasks"] == {"counting-text": 12, "retrieval-text": 12}
    assert {p["n"] for p in audit["probes"] if p["probe"] in ("random", "constant")} == {12}
    assert "(12 samples: 2 of the dataset, 10 built)" in output
    # twelve samples leave counting-text's probes (chance 10) wide: a note names them and the limit
    assert any("above 5 points at 95% (--limit 12 samples a task): counting-text/" in n for n in audit["notes"])
    assert "building more samples of `niah build mm-niah` (--per-cell 5" in output  # progress, on stderr
    assert not list(scratch.iterdir())  # the extra builds are gone
    # the same dataset gets the same extra samples: the audit is as reproducible as the build
    again = _audit([str(tiny), "--limit", "12", "--out", str(tmp_path / "b.json")])[2]
    assert again == audit


def test_the_help_states_the_default_limit() -> None:
    from niah.audit.samples import DEFAULT_LIMIT

    result = CliRunner().invoke(app, ["audit", "--help"], env={"COLUMNS": "200"})
    assert f"at most {DEFAULT_LIMIT} a task" in " ".join(result.output.replace("│", " ").split())


def test_limit_0_audits_the_dataset_as_it_is(tiny: Path, tmp_path: Path) -> None:
    code, output, audit = _audit([str(tiny), "--limit", "0", "--no-progress", "--out", str(tmp_path / "a.json")])
    assert [s["built"] for s in audit["sources"]] == [False] and audit["tasks"]["retrieval-text"] == 2
    assert "built" not in output


def test_without_a_build_record_the_dataset_is_audited_as_it_is(tiny: Path, tmp_path: Path) -> None:
    copy = tmp_path / "imported"
    shutil.copytree(tiny, copy)
    (copy / BUILD_RECORD).unlink()
    assert BuildRecipe.of(copy) is None
    report = audit_enough(copy, AuditOptions(limit=12), progress=False)
    assert report.samples == 4 and len(report.sources) == 1


def test_a_build_that_cannot_run_leaves_a_note_and_the_dataset_audited(tiny: Path, tmp_path: Path) -> None:
    """The build record is input like any other: a corpus that is not there (or a command that does not
    exist) is no crash, only a note; the dataset's own samples are audited."""
    changes = ({"options": {"corpus": f"textdir:{tmp_path / 'gone'}"}}, {"command": "build no-such-family"},
               {"options": {"per_cell": 10**9}})  # a record that is not this dataset's must not size a build
    for k, change in enumerate(changes):
        copy = tmp_path / f"copy-{k}"
        shutil.copytree(tiny, copy)
        record = json.loads((copy / BUILD_RECORD).read_text(encoding="utf-8"))
        record["options"].update(change.get("options", {}))
        record["command"] = change.get("command", record["command"])
        (copy / BUILD_RECORD).write_text(json.dumps(record), encoding="utf-8")
        report = audit_enough(copy, AuditOptions(limit=12), progress=False)
        assert report.samples == 4, change
        assert len(report.sources) == 1, change
        assert any(n.startswith(("could not build more samples with `niah build", "its build record (--per-cell"))
                   for n in report.notes), report.notes


def test_the_recipe_replays_the_build_byte_for_byte(tiny: Path, tmp_path: Path) -> None:
    recipe = BuildRecipe.of(tiny)
    assert recipe is not None and recipe.name == "niah build mm-niah"
    recipe.build(tmp_path / "again", seed=3, per_cell=1, progress=False)
    assert (tmp_path / "again" / "samples.jsonl").read_bytes() == (tiny / "samples.jsonl").read_bytes()
    assert recipe.seed(0) != recipe.seed(1) and recipe.seed(0) == BuildRecipe.of(tiny).seed(0)  # type: ignore[union-attr]


def _probe(task: str, name: str, n: int, noise: float, *, advisory: bool = False, kind: str = "no-read") -> ProbeResult:
    return ProbeResult(name, task, kind, 30.0, 25.0, n, True, "", noise=noise, advisory=advisory)


def test_samples_needed_scale_the_widest_allowance_of_each_task() -> None:
    # allowance 10 points at 95% on 100 samples: four times the samples halve it to 5
    wide = 10 / allowance_95(1.0)
    report = AuditReport("ds", 300, AuditOptions(), [
        _probe("a", "constant", 100, wide), _probe("a", "random", 100, 1.0),
        _probe("b", "constant", 100, 1.0),
        _probe("c", "text-whitespace-skew", 100, 4 * wide, advisory=True),  # diagnostics need no more
        _probe("c", "needles-delivered", 100, 4 * wide, kind="delivery"),
    ], tasks={"a": 100, "b": 100, "c": 100})
    need = samples_needed(report, 5.0)
    assert need["a"] == pytest.approx(400, abs=1)
    assert need["b"] == need["c"] == MIN_TASK_SAMPLES
    assert samples_needed(report, 10.0)["a"] == MIN_TASK_SAMPLES
