"""`niah eval --config`: the documented example end to end, resume counted at a real (stand-in) server, and every
kind of bad file refused in one line before anything is written."""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.eval.config import load_eval_config
from niah.util.outcome import EXIT_ERROR, EXIT_INCOMPLETE
from support.datasets import write_text_prompts
from support.openai_server import FaultPlan, OpenAIServer

ROOT = Path(__file__).resolve().parents[1]
EVAL_DOC = ROOT / "docs" / "eval.md"


def _niah(*args: str | Path, env: dict[str, str] | None = None) -> object:
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False, env=env)


def doc_block(marker: str) -> str:
    """The TOML block between ``<!-- marker -->`` and ``<!-- /marker -->`` in docs/eval.md."""
    text = EVAL_DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- {marker} -->\n```toml\n(.*?)```\n<!-- /{marker} -->", text, re.S)
    assert match, f"docs/eval.md has no {marker} block"
    return match.group(1)


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


# --------------------------------------------------------------------------- the documented example, as written


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, object]]:
    """docs/eval.md's example run in a fresh folder (its out is relative: the current directory)."""
    where = tmp_path_factory.mktemp("example")
    (where / "eval.toml").write_text(doc_block("eval-example"), encoding="utf-8")
    before = Path.cwd()
    os.chdir(where)
    try:
        result = _niah("eval", "--config", "eval.toml", "--no-progress")
        yield where, result
    finally:
        os.chdir(before)


def test_the_example_runs_two_models_on_two_families_into_one_report(example) -> None:
    where, result = example
    assert result.exit_code == 0, result.output
    out = where / "out" / "eval-grid"
    for bench in ("mm-small", "seq-small"):
        assert (out / "datasets" / bench / "samples.jsonl").is_file()
        for model in ("oracle", "random"):
            run = json.loads((out / "runs" / model / bench / "run.json").read_text())
            # built once: both models ran on the one dataset folder
            assert Path(run["dataset"]).resolve() == (out / "datasets" / bench).resolve()
    report = json.loads((out / "report" / "report.json").read_text())
    board = {(row["model"], row["family"]) for row in report["leaderboard"]}
    oracle, random = "oracle (baseline:oracle)", "random (baseline:random)"  # named, and still said to be baselines
    assert board == {(oracle, "mm-niah"), (random, "mm-niah"), (oracle, "seq-niah"), (random, "seq-niah")}
    assert len(report["length_charts"]) == 2  # one accuracy-vs-length chart per family, a line per model
    assert "report:" in result.stdout and "oracle" in result.stdout


def test_the_oracle_scores_100_on_each_family_and_the_top_leaderboard_is_the_report_s(example) -> None:
    where, _ = example
    out = where / "out" / "eval-grid"
    rows = _csv_rows(out / "leaderboard.csv")
    assert rows == _csv_rows(out / "report" / "tables" / "leaderboard.csv")
    oracle = {r["family"]: r for r in rows if r["model"] == "oracle (baseline:oracle)"}
    # 5 depth cells x 1 sample of one task; one Sequential-NIAH sample: every one answered with its gold
    assert {f: (r["overall"], r["n"]) for f, r in oracle.items()} == {"mm-niah": ("100.0", "5"),
                                                                      "seq-niah": ("100.0", "1")}
    assert all(float(r["overall"]) < 100.0 for r in rows if r["model"] == "random (baseline:random)")
    assert "| oracle (baseline:oracle) | mm-niah | 100.0 | 5 |" in (out / "leaderboard.md").read_text()
    record = json.loads((out / "eval.json").read_text())
    assert [(r["model"], r["benchmark"], r["answered"]) for r in record["runs"]] == [
        ("oracle", "mm-small", 5), ("oracle", "seq-small", 1), ("random", "mm-small", 5), ("random", "seq-small", 1)]


def test_a_rerun_of_the_example_resumes_every_run_and_a_changed_benchmark_is_refused(example) -> None:
    where, _ = example
    before = Path.cwd()
    os.chdir(where)
    try:
        again = _niah("eval", "--config", "eval.toml", "--no-progress")
        assert again.exit_code == 0, again.output
        runs = json.loads((where / "out" / "eval-grid" / "eval.json").read_text())["runs"]
        assert [(r["requests"], r["resumed"]) for r in runs] == [(0, 5), (0, 1), (0, 5), (0, 1)]
        changed = (where / "eval.toml").read_text().replace('lengths = ["1k-2k"]', 'lengths = ["2k-4k"]')
        (where / "changed.toml").write_text(changed)
        result = _niah("eval", "--config", "changed.toml", "--no-progress")
    finally:
        os.chdir(before)
    assert result.exit_code == EXIT_ERROR
    assert result.stderr.count("\n") == 1
    assert "changed.toml: [benchmarks.mm-small] changed since" in result.stderr and "datasets/mm-small" in result.stderr


def test_the_served_model_example_is_a_valid_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    write_text_prompts(tmp_path / "data" / "mmniah-val", ["The oak is old."])
    text = 'out = "out/served"\n' + doc_block("eval-served")
    (tmp_path / "served.toml").write_text(text)
    config = load_eval_config(Path("served.toml"))
    (model,) = config.models
    assert model.spec.spec_string() == "openai:Qwen2-VL-7B-Instruct" and model.concurrency == 16
    assert model.spec.base_urls == ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1")
    assert model.spec.api_key_env == "OPENAI_API_KEY" and model.generation.max_tokens == 32
    assert model.spec.options == {"image_size": "448x448"}
    assert model.spec.capabilities is not None and model.spec.capabilities.max_images == 40
    (bench,) = config.benchmarks
    assert bench.dataset == Path("data/mmniah-val") and bench.media_roots == (Path("data/mmniah-images"),)
    assert not (tmp_path / "out").exists()  # reading a file writes nothing


# ------------------------------------------------------------------ resume and exit 3, counted at the server


def _served_config(tmp_path: Path, url: str) -> Path:
    write_text_prompts(tmp_path / "ds-a", [f"Prompt {i}. The oak is old." for i in range(4)])
    write_text_prompts(tmp_path / "ds-b", [f"Other {i}. The elm is young." for i in range(3)])
    path = tmp_path / "served.toml"
    path.write_text(f"""
out = "{tmp_path / 'out'}"
audit = false

[models.echo]
model = "openai:echo"
base_url = "{url}"
max_attempts = 1
retry_delay = 0.01

[models.echo-hot]
model = "openai:echo"
base_url = "{url}"
temperature = 0.7
max_attempts = 1

[benchmarks.a]
dataset = "{tmp_path / 'ds-a'}"

[benchmarks.b]
dataset = "{tmp_path / 'ds-b'}"
""")
    return path


def test_failed_requests_exit_3_with_reasons_per_run_and_a_rerun_asks_only_those(tmp_path: Path) -> None:
    with OpenAIServer(faults=FaultPlan(permanent=0.5)) as flaky:
        config = _served_config(tmp_path, flaky.base_url)
        first = _niah("eval", "--config", config, "--no-progress")
        failed = sorted(r.prompt_hash for r in flaky.log if r.fault is not None)
        answered = {r.prompt_hash for r in flaky.log if r.fault is None}
    assert len(flaky.log) == 2 * (4 + 3)  # every sample asked once per model
    assert failed and answered  # the plan fails some prompts forever and answers the others
    assert first.exit_code == EXIT_INCOMPLETE, first.output
    assert re.search(r"^echo on a: \d+ failed: HTTP 500 x \d+$", first.stderr, re.M) or \
        re.search(r"^echo on b: \d+ failed: HTTP 500 x \d+$", first.stderr, re.M)
    assert f"exit {EXIT_INCOMPLETE}: not every request was answered" in first.stderr
    assert (tmp_path / "out" / "report" / "index.html").is_file()  # the report is written before exit 3
    # two datasets of one family: each model's report inputs carry the benchmark's name
    report = json.loads((tmp_path / "out" / "report" / "report.json").read_text())
    assert [i["name"] for i in report["inputs"]] == ["echo (a)", "echo (b)", "echo-hot (a)", "echo-hot (b)"]

    with OpenAIServer() as healthy:
        config = _served_config(tmp_path, healthy.base_url)
        second = _niah("eval", "--config", config, "--no-progress")
        asked = [r.prompt_hash for r in healthy.log]
    assert second.exit_code == 0, second.output
    assert sorted(asked) == failed  # each failed request asked once more, no answered one again

    with OpenAIServer() as idle:
        config = _served_config(tmp_path, idle.base_url)
        third = _niah("eval", "--config", config, "--no-progress")
    assert third.exit_code == 0 and idle.log == []
    runs = json.loads((tmp_path / "out" / "eval.json").read_text())["runs"]
    assert sum(r["resumed"] for r in runs) == 2 * (4 + 3) and sum(r["requests"] for r in runs) == 0


# ----------------------------------------------------------------------- bad files: one line, nothing written

GOOD_MODEL = '[models.m]\nmodel = "baseline:oracle"\n'
GOOD_BENCH = '[benchmarks.b]\nfamily = "mm-niah"\nlengths = ["1k-2k"]\n'


@pytest.mark.parametrize(("text", "expected"), [
    ('out = "OUT"\n' + GOOD_MODEL + 'concurrancy = 4\n' + GOOD_BENCH,
     "bad.toml:4: [models.m] concurrancy: unknown key"),
    ('out = "OUT"\n' + GOOD_MODEL + 'api_key = "sk-live-123"\n' + GOOD_BENCH,
     "bad.toml:4: [models.m] api_key: an API key is never read from the config file"),
    ('out = "OUT"\n' + GOOD_MODEL + 'model_options = { token = "abc" }\n' + GOOD_BENCH,
     "bad.toml:4: [models.m.model_options] token: an API key is never read"),
    ('out = "OUT"\n' + GOOD_MODEL + '[benchmarks.b]\nfamily = "mm-niahh"\n',
     "bad.toml:5: [benchmarks.b] family: unknown family 'mm-niahh' (known: mm-niah,"),
    ('out = "OUT"\n' + GOOD_MODEL + GOOD_BENCH + 'per_cell = "2"\n',
     "bad.toml:7: [benchmarks.b] per_cell: must be an integer, not a text"),
    ('out = "OUT"\n' + GOOD_MODEL + GOOD_BENCH + 'lenghts = ["2k"]\n',
     "bad.toml:7: [benchmarks.b] lenghts: unknown key (known: family, builder, or an option of the builder"),
    ('out = "OUT"\n' + GOOD_MODEL + 'concurrency = 0\n' + GOOD_BENCH,
     "bad.toml:4: [models.m] concurrency: must be at least 1, not 0"),
    ('out = "OUT"\nmodels.m.model = "baseline:oracle"\nmodels.m.temperature = nan\n' + GOOD_BENCH,
     "bad.toml:3: [models.m] temperature: must be a finite number, not nan"),
    ('out = "OUT"\n' + GOOD_MODEL + 'api_key_env = "NIAH_TEST_UNSET_KEY"\n' + GOOD_BENCH,
     "bad.toml:4: [models.m] api_key_env: the environment variable NIAH_TEST_UNSET_KEY is not set or empty"),
    ('out = "OUT"\n[models.m]\nmodel = "opnai:gpt"\n' + GOOD_BENCH,
     "bad.toml:3: [models.m] model: unknown model provider 'opnai'"),
    ('out = "OUT"\n' + GOOD_MODEL + '[benchmarks.b]\nfamily = "mm-niah"\ndataset = "x"\n',
     "bad.toml:4: [benchmarks.b]: give either family"),
    ('out = "OUT"\n' + GOOD_MODEL + '[benchmarks."../up"]\nfamily = "mm-niah"\n',
     "bad.toml:4: [benchmarks.../up]: the name '../up' names a folder"),
    ('out = "OUT"\n' + GOOD_BENCH, "bad.toml: missing 'models'"),
    ('out = 3\n' + GOOD_MODEL + GOOD_BENCH, "bad.toml:1: out: must be a text (a path), not an integer"),
    ('out = "OUT"\nout = "again"\n', "bad.toml: not valid TOML: Cannot overwrite a value (at line 2,"),
])
def test_a_bad_file_is_one_line_naming_file_line_and_key_and_nothing_is_written(tmp_path: Path, text: str,
                                                                                 expected: str) -> None:
    os.environ.pop("NIAH_TEST_UNSET_KEY", None)
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("OUT", str(tmp_path / "out")))
    before = sorted(p.name for p in tmp_path.iterdir())
    result = _niah("eval", "--config", bad)
    assert result.exit_code == EXIT_ERROR
    assert "Traceback" not in result.output
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {bad.parent}/") and expected in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_value_only_the_builder_refuses_names_the_benchmark_and_leaves_no_out(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(f'out = "{tmp_path / "out"}"\n' + GOOD_MODEL + '[benchmarks.b]\nfamily = "mm-niah"\nlengths = ["0"]\n')
    result = _niah("eval", "--config", bad, "--no-progress")
    assert result.exit_code == EXIT_ERROR
    assert result.stderr.count("\n") == 1 and "bad.toml: [benchmarks.b]: --lengths '0'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_options_given_beside_config_are_refused_by_name(tmp_path: Path) -> None:
    config = tmp_path / "eval.toml"
    config.write_text(f'out = "{tmp_path / "out"}"\n' + GOOD_MODEL + GOOD_BENCH)
    result = _niah("eval", "--config", config, "--model", "baseline:rag", "--lengths", "2k", "--no-progress")
    assert result.exit_code == EXIT_ERROR and result.stderr.count("\n") == 1
    assert "--config takes every setting from its file; --model, --lengths given too" in result.stderr
    result = _niah("eval", tmp_path, "--config", config)
    assert result.exit_code == EXIT_ERROR and "dataset given too" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.toml"]


def test_each_builder_declares_exactly_the_options_its_build_function_takes() -> None:
    """The declarations the file is checked against follow the build functions: an option added to a builder
    and not declared (or declared and since removed) fails here rather than in a user's eval file."""
    import dataclasses
    import inspect

    from niah.benchmarks.milebench.build import build_milebench_niah
    from niah.benchmarks.mm_niah.build import BuildConfig
    from niah.benchmarks.mmlongbench.build import build_vh
    from niah.benchmarks.registry import get_family

    def kinds(family: str) -> set[str]:
        return set(get_family(family).builders()[0].option_kinds)

    def keywords(function: object) -> set[str]:
        names = set(inspect.signature(function).parameters) - {"out", "progress"}  # type: ignore[arg-type]
        return (names - {"per_length"}) | {"per_cell"}  # the shared spelling, translated by build_from_options

    # depth_cells: the cells as every builder takes them, read into BuildConfig's depths (lower edges)
    assert kinds("mm-niah") == {f.name for f in dataclasses.fields(BuildConfig)} | {"depth_cells"}
    assert kinds("milebench") == keywords(build_milebench_niah)
    assert kinds("mmlongbench") == keywords(build_vh) | {"source"}  # source: the images folder, as --source
    assert get_family("infinibench").builders is None or not get_family("infinibench").builders()
