"""Issue 44, item 11: `niah import hf` refuses hostile shards and media before writing anything: a FIFO (which
would block forever), a 0-byte or truncated Parquet file (one-line error), a row over the line cap, media paths
naming the dataset's own files, and media that `niah run` would refuse (a script named as an image, a
decompression bomb)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from niah.interop.hf import export_hf, import_hf
from niah.util.errors import DataError
from support.datasets import write_mm_niah_like
from support.processes import niah_env

pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("datasets")


@pytest.fixture()
def exported(tmp_path: Path) -> Path:
    source = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "retrieval-image"))
    folder = tmp_path / "hf"
    export_hf(source, folder)
    return folder


def _shard(folder: Path) -> Path:
    return next((folder / "data").glob("*.parquet"))


def _rewrite(folder: Path, change: Callable[[list[dict[str, Any]]], None]) -> None:
    import pyarrow as pa

    shard = _shard(folder)
    table = pq.read_table(shard)
    rows = table.to_pylist()
    change(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), shard)


def _import_cli(folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah", "import", "hf", str(folder), "--out", str(out)],
                          capture_output=True, text=True, env=niah_env(), timeout=120)


def test_a_fifo_shard_is_refused_not_waited_on(exported: Path, tmp_path: Path) -> None:
    os.mkfifo(exported / "data" / "zz-extra.parquet")
    proc = _import_cli(exported, tmp_path / "out")  # the timeout fails the test if the import blocks
    assert proc.returncode != 0 and "not a regular file" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("damage", ["empty", "truncated"])
def test_a_damaged_shard_is_a_one_line_error(exported: Path, tmp_path: Path, damage: str) -> None:
    shard = _shard(exported)
    data = shard.read_bytes()
    shard.write_bytes(b"" if damage == "empty" else data[: len(data) // 2])
    proc = _import_cli(exported, tmp_path / "out")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("error:") == 1 and shard.name in proc.stderr and "Parquet" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_row_over_the_line_cap_is_refused(exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import niah.interop.hf

    monkeypatch.setattr(niah.interop.hf, "MAX_LINE_BYTES", 4096)  # the cap is 64 MiB; a smaller one keeps the test light
    _rewrite(exported, lambda rows: rows[0].update(context='[{"type": "text", "text": "' + "x" * 5000 + '"}]'))
    with pytest.raises(DataError, match="context") as err:
        import_hf(exported, tmp_path / "out")
    assert err.value.line == 1
    assert not (tmp_path / "out").exists()


def _retarget_image(rows: list[dict[str, Any]], new_path: str, data: bytes | None = None) -> None:
    row = next(r for r in rows if r["images"])
    old = row["images"][0]["path"]
    row["context"] = row["context"].replace(old, new_path)
    row["question"] = row["question"].replace(old, new_path)
    row["choices"] = row["choices"].replace(old, new_path) if row["choices"] else row["choices"]
    for image in row["images"]:
        if image["path"] == old:
            image["path"] = new_path
            if data is not None:
                image["bytes"] = data


@pytest.mark.parametrize("own", ["samples.jsonl", "manifest.json", "media/../samples.jsonl"])
def test_an_image_path_naming_the_datasets_own_file_is_refused(exported: Path, tmp_path: Path, own: str) -> None:
    _rewrite(exported, lambda rows: _retarget_image(rows, own))
    with pytest.raises(DataError, match="own file|decodable|escapes"):
        import_hf(exported, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _bomb_png(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels (the pixel data is never reached)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + \
        chunk(b"IEND", b"")


@pytest.mark.parametrize(("data", "why"), [(b"#!/bin/sh\nrm -rf ~\n", "not a decodable image"),
                                           (_bomb_png(40000, 40000), "too large")], ids=["script", "bomb"])
def test_media_niah_run_would_refuse_is_refused_at_import(exported: Path, tmp_path: Path, data: bytes,
                                                          why: str) -> None:
    _rewrite(exported, lambda rows: _retarget_image(rows, "media/evil.png", data))
    with pytest.raises(DataError, match=why) as err:
        import_hf(exported, tmp_path / "out")
    assert err.value.field is not None and err.value.field.startswith("media[")
    assert not (tmp_path / "out").exists()
