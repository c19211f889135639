"""Small I/O helpers: atomic writes and safe path resolution."""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from niah.errors import DataError


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write a file so that readers see either the old or the complete new content, never a torn one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; outputs (reports, datasets) are meant to be shared
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, obj: Any, *, indent: int | None = 2) -> None:
    write_atomic(path, json.dumps(obj, ensure_ascii=False, indent=indent) + "\n")


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps_line(obj: Any) -> str:
    """One JSONL line; stable formatting so equal inputs give byte-identical files. UTF-8 is kept, except
    that a line holding a lone surrogate (valid JSON from a hostile source, not encodable) is written with
    escapes instead, so writing it can never fail."""
    text = json.dumps(obj, ensure_ascii=False)
    if _SURROGATE.search(text):
        text = json.dumps(obj, ensure_ascii=True)
    return text + "\n"


@functools.lru_cache(maxsize=1 << 17)
def _resolve_pair(root: str, rel: str) -> tuple[Path, Path]:
    root_resolved = Path(root).resolve()
    return root_resolved, (root_resolved / rel).resolve()


def resolve_under(root: str | Path, rel: str, *, file: str | Path | None = None,
                  line: int | None = None, field: str | None = None) -> Path:
    """Resolve `rel` against `root`, refusing anything (absolute paths, `..`, symlinks) that leaves `root`.

    Resolutions are remembered per process (a video sample lists thousands of frames, each resolved by
    validation, reading and fingerprinting); only paths that stayed inside their root are remembered, so a
    refusal is always decided afresh."""
    if not isinstance(rel, str) or not rel:
        raise DataError("media path must be a non-empty string", file=file, line=line, field=field)
    if "\x00" in rel:
        raise DataError("media path contains a NUL byte", file=file, line=line, field=field)
    root_resolved, candidate = _resolve_pair(str(root), rel)
    if not candidate.is_relative_to(root_resolved):
        _resolve_pair.cache_clear()  # never keep what led outside: a fixed link is seen on the next call
        raise DataError(
            f"media path {rel!r} escapes the media root {str(root_resolved)!r}",
            file=file, line=line, field=field,
        )
    return candidate


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line_number, object) for each non-blank line; a bad line (invalid UTF-8 or JSON) raises
    DataError naming it. Reads bytes and decodes per line, so an encoding error names its line too."""
    path = Path(path)
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"invalid UTF-8 at byte {exc.start} of the line", file=path, line=lineno) from None
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=path, line=lineno) from None
            yield lineno, obj


def read_json_file(path: str | Path, *, what: str = "file") -> Any:
    """Parse a whole JSON file; invalid UTF-8 or JSON raises DataError naming the file (and line)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{what} is not valid UTF-8 (byte {exc.start})", file=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=path, line=exc.lineno) from None


def remove_stale_temp_files(directory: str | Path, names: tuple[str, ...]) -> int:
    """Remove ``.<name>.*.tmp`` files that :func:`write_atomic` left behind in ``directory`` when its process
    was killed mid-write. Only call this while holding the directory's lock (no live writer). Returns the
    number removed."""
    directory = Path(directory)
    removed = 0
    for name in names:
        for tmp in directory.glob(f".{glob.escape(name)}.*.tmp"):
            try:
                tmp.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def replace_dir(tmp: str | Path, out: str | Path) -> None:
    """Move a finished temporary directory into place, replacing ``out`` if it exists (old one removed last)."""
    import shutil

    tmp, out = Path(tmp), Path(out)
    if out.exists():
        trash = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, trash)
        os.replace(tmp, out)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(tmp, out)
