"""Where `niah audit`'s delivery probe keeps the frames it samples from video files: with the run it audits
(RUN_DIR/cache/frames, found in the run folder, never in a folder its run.json names), or in the user's cache
folder; never in the shared temp folder, and never in audit.json."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from niah.audit.dataset import AuditOptions, audit_dataset, options_from_run
from support.cli import invoke_ok
from support.run_pins import build_datasets, media_roots


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_datasets(tmp_path_factory.mktemp("ib"), ["infinibench"])["infinibench"]


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(the user's cache folder, the temp folder), both empty and watched."""
    monkeypatch.delenv("NIAH_FRAME_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return tmp_path / "xdg", tmp_path / "tmp"


def _entries(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def test_an_audit_of_a_run_samples_into_the_runs_own_frame_cache(
        imported: Path, folders: tuple[Path, Path], tmp_path: Path) -> None:
    user_cache, temp = folders
    roots = [a for root in media_roots(imported) for a in ("--media-root", str(root))]
    run = tmp_path / "run"
    invoke_ok(["run", str(imported), "--model", "baseline:oracle", "--out", str(run), "--no-progress",
               "--max-frames", "4", "--limit", "1", *roots])
    run_frames = run / "cache" / "frames"
    before = _entries(run_frames)
    assert before, "the run sampled a video into its own cache"
    settings, dataset = options_from_run(run)
    assert settings["frame_cache"] == run_frames and dataset == imported
    report = audit_dataset(imported, AuditOptions(media_roots=tuple(str(r) for r in media_roots(imported)),
                                                  **settings), progress=False)  # type: ignore[arg-type]
    assert before < _entries(run_frames)  # the samples the run left out, sampled there too
    assert not _entries(user_cache) and not _entries(temp)
    assert "frame_cache" not in report.to_json()["options"]  # audit.json says nothing of where frames were


def test_a_run_json_naming_another_cache_folder_is_not_followed(
        imported: Path, folders: tuple[Path, Path], tmp_path: Path) -> None:
    roots = [a for root in media_roots(imported) for a in ("--media-root", str(root))]
    run = tmp_path / "run"
    invoke_ok(["run", str(imported), "--model", "baseline:oracle", "--out", str(run), "--no-progress",
               "--max-frames", "4", "--limit", "1", "--cache-dir", str(tmp_path / "shared"), *roots])
    doc = json.loads((run / "run.json").read_text())
    assert not (run / "cache" / "frames").exists()
    doc["cache_dir"] = str(tmp_path / "theirs")
    (run / "run.json").write_text(json.dumps(doc))
    settings, _ = options_from_run(run)
    assert "frame_cache" not in settings  # the audit falls back to the user's own cache folder


def test_an_audit_of_a_build_samples_into_the_users_cache_folder(
        imported: Path, folders: tuple[Path, Path]) -> None:
    user_cache, temp = folders
    audit_dataset(imported, AuditOptions(max_frames=4, media_roots=tuple(str(r) for r in media_roots(imported))),
                  progress=False)
    assert _entries(user_cache / "niah" / "frames") and not _entries(temp)
    assert (user_cache / "niah" / "frames").stat().st_mode & 0o777 == 0o700
