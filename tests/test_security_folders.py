"""Issue 44, items 4, 7, 8 and 9: caches, run folders and output folders are not trusted blindly.

Real runs against a stand-in OpenAI server on loopback, real symbolic links planted where niah writes, real
folders of the user's own named as outputs."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.run import RESPONSES_JSONL, RUN_JSON, run_dataset_sync
from niah.run.cache import CACHE_JSONL, CACHE_SQLITE
from niah.run.rundir import CACHE_SUBDIR, REQUESTS_LOG
from niah.sample import SAMPLES_FILE
from niah.util.errors import ConfigError
from niah.util.iox import LinkRefused, claim_output_dir, open_append, output_dir_problem, write_atomic
from support.datasets import write_mm_niah_like
from support.openai_server import OpenAIServer

runner = CliRunner()


def _gold_replies(dataset: Path) -> dict[str, str]:
    return {obj["id"]: json.dumps(obj["answer"]) for obj in map(json.loads, (dataset / SAMPLES_FILE).read_text()
                                                                 .splitlines())}


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    return write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "counting-text"))


def _run(dataset: Path, server: OpenAIServer, out: Path, **options: object) -> object:
    return run_dataset_sync(dataset, "openai:echo", out, base_urls=[server.base_url], progress=False, **options)


# ------------------------------------------------------------------------------------------ item 4: response cache


def test_a_shared_cache_others_can_write_is_refused_before_any_reply_is_read(dataset: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    with OpenAIServer() as server:
        _run(dataset, server, tmp_path / "first", cache_dir=shared)
        shared.chmod(0o777)  # world-writable: anyone could have planted the gold as every reply
        with pytest.raises(ConfigError, match="response cache .* open to other users"):
            _run(dataset, server, tmp_path / "second", cache_dir=shared)
    assert not (tmp_path / "second" / RESPONSES_JSONL).exists()


@pytest.mark.skipif(os.getuid() != 0, reason="making a folder of another user needs root")
def test_a_shared_cache_of_another_user_is_refused(dataset: Path, tmp_path: Path) -> None:
    shared = tmp_path / "theirs"
    shared.mkdir(mode=0o700)
    os.chown(shared, 65534, 65534)
    with OpenAIServer() as server, pytest.raises(ConfigError, match="owned by uid 65534, not by you"):
        _run(dataset, server, tmp_path / "run", cache_dir=shared)


def test_a_cached_row_filed_under_another_request_is_not_used(dataset: Path, tmp_path: Path) -> None:
    """Every index row swapped for another request's record (a gold planted under the wrong key): each request
    is sent again, none is taken from the cache."""
    shared = tmp_path / "shared"
    with OpenAIServer() as server:
        first = _run(dataset, server, tmp_path / "first", cache_dir=shared)
        sent_first = len(server.log)
        db = sqlite3.connect(shared / CACHE_SQLITE)
        rows = db.execute("SELECT key, record FROM entries ORDER BY key").fetchall()
        assert len(rows) == first.total >= 2  # type: ignore[attr-defined]
        rotated = [(rows[(i + 1) % len(rows)][1], key) for i, (key, _) in enumerate(rows)]
        db.executemany("UPDATE entries SET record=? WHERE key=?", rotated)
        db.commit()
        db.close()
        second = _run(dataset, server, tmp_path / "second", cache_dir=shared)
        assert len(server.log) == 2 * sent_first and second.cached == 0  # type: ignore[attr-defined]


def test_a_cached_reply_of_another_model_is_not_used(dataset: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    with OpenAIServer() as server:
        _run(dataset, server, tmp_path / "first", cache_dir=shared)
        lines = [json.loads(line) for line in (shared / CACHE_JSONL).read_text().splitlines()]
        (shared / CACHE_JSONL).write_text("".join(json.dumps({**row, "model": {"name": "planted"}}) + "\n"
                                                  for row in lines))
        (shared / CACHE_SQLITE).unlink()  # the index is rebuilt from the log
        sent = len(server.log)
        second = _run(dataset, server, tmp_path / "second", cache_dir=shared)
        assert len(server.log) == 2 * sent and second.cached == 0  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------ item 7: links


@pytest.mark.parametrize("planted", [REQUESTS_LOG, f"{CACHE_SUBDIR}/{CACHE_JSONL}", RESPONSES_JSONL,
                                     f"{CACHE_SUBDIR}/{CACHE_SQLITE}", CACHE_SUBDIR])
def test_a_link_planted_in_a_run_folder_is_refused_and_the_outside_file_untouched(dataset: Path, tmp_path: Path,
                                                                                  planted: str) -> None:
    with OpenAIServer() as server:
        run = tmp_path / "run"
        _run(dataset, server, run)
        outside = tmp_path / "outside"
        if planted == CACHE_SUBDIR:
            outside.mkdir()
            (outside / "keep").write_text("mine\n")
        else:
            outside.write_text("mine\n")
        target = run / planted
        if target.is_dir():
            import shutil

            shutil.rmtree(target)
        else:
            target.unlink()
        target.symlink_to(outside)
        result = runner.invoke(app, ["run", str(dataset), "--model", "openai:echo", "--base-url", server.base_url,
                                     "--out", str(run), "--no-progress"])
        assert result.exit_code != 0 and "symbolic link" in result.output, result.output
    if planted == CACHE_SUBDIR:
        assert sorted(p.name for p in outside.iterdir()) == ["keep"]
    else:
        assert outside.read_text() == "mine\n"


def test_score_refuses_a_link_where_it_writes(dataset: Path, tmp_path: Path) -> None:
    with OpenAIServer(responder=lambda body: "x") as server:
        run = tmp_path / "run"
        _run(dataset, server, run)
    outside = tmp_path / "outside"
    outside.write_text("mine\n")
    (run / "scored.jsonl").symlink_to(outside)
    result = runner.invoke(app, ["score", str(run)])
    assert result.exit_code != 0 and "symbolic link" in result.output
    assert outside.read_text() == "mine\n"


def test_the_write_helpers_refuse_links_and_fifos(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("mine\n")
    link = tmp_path / "link"
    link.symlink_to(outside)
    with pytest.raises(LinkRefused):
        open_append(link)
    with pytest.raises(LinkRefused):
        write_atomic(link, "theirs")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        open_append(fifo)  # would block forever waiting for a reader
    assert outside.read_text() == "mine\n" and link.is_symlink()


# ------------------------------------------------------------------------------------------ item 8: output folders


def test_run_out_a_folder_of_the_users_own_is_refused(dataset: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    result = runner.invoke(app, ["run", str(dataset), "--model", "baseline:oracle", "--out", str(mine),
                                 "--no-progress"])
    assert result.exit_code != 0 and "not empty and was not made by niah" in result.output
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_run_out_root_is_refused_before_anything_is_written(dataset: Path) -> None:
    assert output_dir_problem(Path("/"), kind="run") is not None
    if os.getuid() == 0 or os.access("/", os.W_OK):
        pytest.skip("never point a writable / at a run, even to see it refused")
    result = runner.invoke(app, ["run", str(dataset), "--model", "baseline:oracle", "--out", "/", "--no-progress"])
    assert result.exit_code != 0


def test_the_ownership_helper(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    assert claim_output_dir(fresh, kind="eval") is True
    assert claim_output_dir(fresh, kind="eval") is False  # its own marker: ours again
    (fresh / "result.txt").write_text("niah's")
    assert output_dir_problem(fresh, kind="eval") is None
    assert "another output" in (output_dir_problem(fresh, kind="run") or "")
    with pytest.raises(ConfigError, match="--out .* not empty"):
        claim_output_dir(tmp_path, kind="eval")


def _eval_config(tmp_path: Path, out: Path, extra_model: str = "") -> Path:
    config = tmp_path / "eval.toml"
    config.write_text(f'out = "{out}"\n[models.m]\nmodel = "baseline:oracle"\n{extra_model}'
                      '[benchmarks.b]\nfamily = "mm-niah"\nlengths = ["1k-2k"]\n')
    return config


@pytest.mark.parametrize("what", ["dataset", "run", "user"])
def test_eval_out_of_something_else_is_refused_and_left_alone(dataset: Path, tmp_path: Path, what: str) -> None:
    if what == "dataset":
        out = dataset
    elif what == "run":
        out = tmp_path / "run"
        run_dataset_sync(dataset, "baseline:oracle", out, progress=False)
    else:
        out = tmp_path / "mine"
        out.mkdir()
        (out / "leaderboard.md").write_text("my own table\n")
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    result = runner.invoke(app, ["eval", "--config", str(_eval_config(tmp_path, out)), "--no-progress"])
    assert result.exit_code != 0 and "not empty and was not made by niah" in result.output, result.output
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    if what == "user":
        assert (out / "leaderboard.md").read_text() == "my own table\n"


def test_a_cache_dir_in_the_dataset_is_refused(dataset: Path, tmp_path: Path) -> None:
    before = sorted(p.name for p in dataset.iterdir())
    for cache in (dataset, dataset / "cache"):
        with pytest.raises(ConfigError, match="--cache-dir"):
            run_dataset_sync(dataset, "baseline:oracle", tmp_path / "run", progress=False, cache_dir=cache)
    other = write_mm_niah_like(tmp_path / "other", per_task=1, tasks=("retrieval-text",))
    with pytest.raises(ConfigError, match="--cache-dir"):
        run_dataset_sync(dataset, "baseline:oracle", tmp_path / "run", progress=False, cache_dir=other)
    assert sorted(p.name for p in dataset.iterdir()) == before
    assert not (other / CACHE_JSONL).exists()


@pytest.mark.parametrize("where", ["open to others", "inside out", "the dataset"])
def test_eval_checks_a_cache_dir_when_the_config_is_read(dataset: Path, tmp_path: Path, where: str) -> None:
    """The leftover of item 4/8: ``cache_dir`` of ``niah eval --config`` was checked only when its run started,
    after the datasets were built; now the config is refused before anything is made."""
    out = tmp_path / "out"
    if where == "open to others":
        cache = tmp_path / "shared"
        cache.mkdir()
        cache.chmod(0o777)
    else:
        cache = out / "cache" if where == "inside out" else dataset
    config = tmp_path / "eval.toml"
    config.write_text(f'out = "{out}"\n[models.m]\nmodel = "baseline:oracle"\ncache_dir = "{cache}"\n'
                      f'[benchmarks.b]\nfamily = "mm-niah"\nlengths = ["1k-2k"]\n'
                      f'[benchmarks.given]\ndataset = "{dataset}"\n')
    before = sorted(p.name for p in dataset.iterdir())
    result = runner.invoke(app, ["eval", "--config", str(config), "--no-progress"])
    assert result.exit_code == 2 and "[models.m] cache_dir" in result.output, result.output
    # (not "other users": a test before this one in the process may have registered "user" as a URL's secret)
    assert {"open to others": "is open to other", "inside out": "is out",
            "the dataset": "is the dataset of [benchmarks.given]"}[where] in result.output
    assert not out.exists() and sorted(p.name for p in dataset.iterdir()) == before


# ------------------------------------------------------------------------------------------ item 9: report folder


def test_a_report_into_its_own_earlier_folder_keeps_the_users_files(dataset: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    assert runner.invoke(app, ["score", str(run)]).exit_code == 0
    out = tmp_path / "report"
    first = runner.invoke(app, ["report", str(run), "--out", str(out)])
    assert first.exit_code == 0, first.output
    (out / "NOTES.txt").write_text("my notes\n")
    (out / "mydata").mkdir()
    (out / "mydata" / "table.csv").write_text("a,b\n")
    (out / "empty-dir").mkdir()
    again = runner.invoke(app, ["report", str(run), "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert (out / "NOTES.txt").read_text() == "my notes\n"
    assert (out / "mydata" / "table.csv").read_text() == "a,b\n" and (out / "empty-dir").is_dir()
    assert (out / "index.html").is_file()
    written = json.loads((out / ".niah-report.json").read_text())["files"]
    assert "index.html" in written and "NOTES.txt" not in written
    (out / "index.html").unlink()
    (out / "index.html").write_text("edited")  # a file the marker lists is niah's: replaced, not refused
    third = runner.invoke(app, ["report", str(run), "--out", str(out)])
    assert third.exit_code == 0 and (out / "NOTES.txt").is_file()


def test_a_report_again_keeps_the_users_files_in_its_media_folders_and_replaces_its_own(tmp_path: Path) -> None:
    """Leftover of item 9: the thumbnail folder was copied over whole, so a file the user put there was listed as
    niah's in the marker and a thumbnail changed since was reused as niah's; now the user's files there are kept
    as the user's, and niah's own thumbnails are reused only while unchanged (else drawn again)."""
    images = write_mm_niah_like(tmp_path / "images", per_task=1, tasks=("retrieval-image", "counting-image"))
    run = tmp_path / "run"
    run_dataset_sync(images, "baseline:oracle", run, progress=False)
    assert runner.invoke(app, ["score", str(run)]).exit_code == 0
    out = tmp_path / "report"
    assert runner.invoke(app, ["report", str(run), "--out", str(out)]).exit_code == 0
    thumbs = sorted((out / "assets" / "thumbs").glob("*.jpg"))
    assert thumbs
    drawn = {p.name: p.read_bytes() for p in thumbs}
    thumbs[0].unlink()
    thumbs[0].write_bytes(b"planted, not a thumbnail")  # changed since niah drew it
    users = {"assets/thumbs/mine.txt": "mine\n", "assets/thumbs/sub/deep.txt": "deep\n",
             "assets/thumbs/0123456789abcdef01234567.jpg": "a name like niah's, not niah's\n"}
    users.update({f"{p.parent.relative_to(out).as_posix()}/notes.txt": "samples\n"
                  for p in (out / "assets" / "samples").glob("*/index.js")})
    for rel, text in users.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    again = runner.invoke(app, ["report", str(run), "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert {rel: (out / rel).read_text() for rel in users} == users
    assert {p.name: p.read_bytes() for p in (out / "assets" / "thumbs").glob("*.jpg")
            if p.name in drawn} == drawn  # the planted one drawn again, the others reused as they were
    marker = json.loads((out / ".niah-report.json").read_text())
    assert not set(users) & set(marker["files"]) and not set(users) & set(marker["thumbs"])
    third = runner.invoke(app, ["report", str(run), "--out", str(out)])  # the user's files stay the user's
    assert third.exit_code == 0 and {rel: (out / rel).read_text() for rel in users} == users


def test_run_json_is_not_written_through_a_link(dataset: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (run / RUN_JSON).unlink()
    (run / RUN_JSON).symlink_to(outside)
    with pytest.raises(LinkRefused):
        run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    assert outside.read_text() == "{}"
