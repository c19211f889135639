"""Small I/O helpers: atomic writes and safe path resolution."""

from __future__ import annotations

import json
import os
import tempfile
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


def dumps_line(obj: Any) -> str:
    """One JSONL line; stable formatting so equal inputs give byte-identical files."""
    return json.dumps(obj, ensure_ascii=False) + "\n"


def resolve_under(root: str | Path, rel: str, *, file: str | Path | None = None,
                  line: int | None = None, field: str | None = None) -> Path:
    """Resolve `rel` against `root`, refusing anything (absolute paths, `..`, symlinks) that leaves `root`."""
    root_resolved = Path(root).resolve()
    if not isinstance(rel, str) or not rel:
        raise DataError("media path must be a non-empty string", file=file, line=line, field=field)
    if "\x00" in rel:
        raise DataError("media path contains a NUL byte", file=file, line=line, field=field)
    candidate = (root_resolved / rel).resolve()
    if not candidate.is_relative_to(root_resolved):
        raise DataError(
            f"media path {rel!r} escapes the media root {str(root_resolved)!r}",
            file=file, line=line, field=field,
        )
    return candidate


def iter_jsonl(path: str | Path):
    """Yield (line_number, object) for each non-blank line; a bad line raises DataError naming it."""
    path = Path(path)
    with path.open("r", encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=path, line=lineno) from None
            yield lineno, obj


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
