"""The build record: what a dataset verb (``niah build``, ``niah import``, ``niah derive``) notes in the folder it
wrote, the command and the options it was given, so that the same command again resumes it (nothing to do),
another one is refused naming what differs, and ``niah audit`` can build more samples the same way."""

from __future__ import annotations

import json
import re
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


def write_build_record(out: Path, command: str, options: dict[str, Any],
                       inputs: dict[str, str] | None = None) -> None:
    """Note the command, its options and (``inputs``) the content digest of each input it read
    (:func:`input_digests`)."""
    record: dict[str, Any] = {"command": command, "options": jsonable(options)}
    if inputs:
        record["inputs"] = dict(inputs)
    write_json_atomic(out / BUILD_RECORD, record)


#: The files of an input folder whose content makes a dataset (data, not media: a folder of images or videos
#: is read in place and named by path).
DATA_SUFFIXES = (".json", ".jsonl")


def input_digests(inputs: dict[str, Any]) -> dict[str, str]:
    """SHA-256 of what each named input holds (a path or a list of them): a file's bytes; a folder's data files
    (:data:`DATA_SUFFIXES`), each by relative name and content. So the same command over changed files is not
    taken for the build already there."""
    from niah.build.buildkey import file_digest, text_digest

    digests: dict[str, str] = {}
    for name, value in inputs.items():
        parts: list[str] = []
        for path in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(path, Path):
                continue
            if path.is_file():
                parts.append(f"{path}:{file_digest(path)}")
            elif path.is_dir():
                parts += [f"{path}/{f.relative_to(path).as_posix()}:{file_digest(f)}" for f in sorted(path.rglob("*"))
                          if f.suffix.lower() in DATA_SUFFIXES and f.is_file()]
        if parts:
            digests[name] = text_digest(parts)
    return digests


def named_path(value: Any) -> Path | None:
    """The file or folder an option value names: a path, or the PATH of a ``KIND:PATH`` spec (``--corpus
    textdir:DIR``); None when it names nothing that exists (``default``, a tokenizer's name, a length)."""
    if isinstance(value, Path):
        candidates = [value]
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        kind, sep, rest = text.partition(":")
        candidates = [Path(text).expanduser()]
        if sep and rest and re.fullmatch(r"[a-z][a-z0-9-]*", kind):
            candidates.append(Path(rest).expanduser())
    else:
        return None
    return next((path for path in candidates if path.exists()), None)


def option_digests(options: dict[str, Any]) -> dict[str, str]:
    """SHA-256 of what each option naming a file or folder (:func:`named_path`) holds, keyed ``--name``: every
    file of a folder by relative name and content (a corpus's texts, a folder of images), hashed, never
    tokenized or decoded. A generator copies what it reads into the dataset, so the same options over changed
    files are another build, not the one already there."""
    from niah.build.buildkey import path_digest, text_digest
    from niah.util.errors import DataError

    digests: dict[str, str] = {}
    for name, value in options.items():
        parts: list[str] = []
        for item in value if isinstance(value, (list, tuple)) else [value]:
            path = named_path(item)
            if path is None:
                continue
            try:
                parts.append(path_digest(path))
            except (OSError, DataError):  # unreadable: the generator says so itself, naming the file
                parts.append("unreadable")
        if parts:
            digests["--" + name.replace("_", "-")] = text_digest(parts)
    return digests


def differing_options(record: dict[str, Any] | None, command: str, options: dict[str, Any],
                      inputs: dict[str, str] | None = None) -> list[str]:
    """What differs between a folder's build record and the build now asked (``--name was X, now Y``, or an
    input whose content changed, where the record holds its digest); one entry naming the record's absence
    when the folder has none."""
    if record is None:
        return ["the folder has no build record (written by an older niah or by hand)"]
    if record.get("command") != command:
        return [f"it was written by `niah {record.get('command')}`, not `niah {command}`"]
    recorded = record.get("options")
    before: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    now: dict[str, Any] = jsonable(options)
    differs = [f"--{key.replace('_', '-')} was {before.get(key)!r}, now {now.get(key)!r}"
               for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key)]
    digests = record.get("inputs")
    if not differs and isinstance(digests, dict):  # a record written before digests were kept: options only
        differs = [f"the files of {name.replace('_', '-')} changed since it was written"
                   for name in sorted(set(digests) | set(inputs or {})) if digests.get(name) != (inputs or {}).get(name)]
    return differs
