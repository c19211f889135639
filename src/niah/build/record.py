"""The build record: what a dataset verb (``niah build``, ``niah import``, ``niah derive``) notes in the folder it
wrote, the command and the options it was given, so that the same command again resumes it (nothing to do),
another one is refused naming what differs, and ``niah audit`` can build more samples the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from niah.util.iox import jsonable, write_json_atomic

#: What a dataset verb records in the folder it wrote: the command and the options it was given, so that the
#: same command again resumes (nothing to do) and another one is refused naming what differs.
BUILD_RECORD = ".niah-build.json"


def is_dataset_folder(path: Path) -> bool:
    """A folder a dataset verb wrote: a niah dataset (``samples.jsonl``), or one holding its build record."""
    return (path / "samples.jsonl").is_file() or (path / BUILD_RECORD).is_file()


def read_build_record(out: Path) -> dict[str, Any] | None:
    """The build record of a dataset folder, or None (a folder written before records, or a damaged one)."""
    try:
        record = json.loads((out / BUILD_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def write_build_record(out: Path, command: str, options: dict[str, Any]) -> None:
    write_json_atomic(out / BUILD_RECORD, {"command": command, "options": jsonable(options)})


def differing_options(record: dict[str, Any] | None, command: str, options: dict[str, Any]) -> list[str]:
    """What differs between a folder's build record and the build now asked (``--name was X, now Y``); one
    entry naming the record's absence when the folder has none."""
    if record is None:
        return ["the folder has no build record (written by an older niah or by hand)"]
    if record.get("command") != command:
        return [f"it was written by `niah {record.get('command')}`, not `niah {command}`"]
    recorded = record.get("options")
    before: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    now: dict[str, Any] = jsonable(options)
    return [f"--{key.replace('_', '-')} was {before.get(key)!r}, now {now.get(key)!r}"
            for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key)]
