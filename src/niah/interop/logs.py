"""Readers of other harnesses' per-sample logs: what each sample answered, and where it was written.

Two formats are read, from their documented layouts (never with the harness installed):

- **inspect_ai** eval logs: a ``.json`` log is one object whose ``samples`` list holds ``EvalSample`` objects; an
  ``.eval`` log is a zip holding ``header.json`` and one ``samples/<id>_epoch_<n>.json`` per sample (members
  deflated or, as recent inspect_ai writes them, Zstandard-compressed, which Python's zipfile cannot read: those are
  decompressed here with the ``zstandard`` package inspect_ai depends on). A sample's
  reply is ``output.completion``, else the text of ``output.choices[0].message.content``, else the last assistant
  message in ``messages``; a sample with ``error`` set failed. Its niah id is ``metadata.niah_id`` when present,
  else its ``id``.
- **lmms-eval** ``--log_samples`` output (``<date>_samples_<task>.jsonl``): one object per line with ``doc_id``,
  ``doc`` (some versions leave it out), ``resps`` (the raw replies, ``[[text]]``), ``filtered_resps`` (after the
  task's filters) and each metric's per-sample item under the metric's name. The reply is the raw ``resps`` text
  (niah's official rules do their own answer extraction), ``filtered_resps`` when asked or when ``resps`` is
  absent; lmms-eval's failure placeholder (``[LMMS_EVAL_REQUEST_FAILED ...]``) is a failed request, not a reply.
  Its niah id is ``doc.niah_id``, else the ``niah_id`` of a niah export's metric item; a line naming neither is
  refused (``doc_id`` is lmms-eval's own position, which no dataset order need follow). The model is the
  ``model_name`` of the ``<date>_results.json`` lmms-eval writes beside the samples file.

Every problem raises one :class:`~niah.util.errors.DataError` naming the file, line (or zip member) and field.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.util.errors import DataError
from niah.util.iox import MAX_JSON_FILE_BYTES, iter_jsonl, loads_json, read_json_file

HARNESSES = ("inspect", "lmms-eval")
#: Largest zip member of an ``.eval`` log read (uncompressed): a sample with a long transcript stays well under.
MAX_MEMBER_BYTES = 256 << 20
#: The zip compression method number of Zstandard (APPNOTE 4.4.5), which ``zipfile`` does not know before 3.14.
ZIP_ZSTANDARD = 93


@dataclass(frozen=True, slots=True)
class HarnessReply:
    """One sample's outcome in a harness log. ``sample_id`` is the niah id the log names, or None when only a
    position (``index``, 0-based into samples.jsonl) is known. ``where`` is ``(file, line)`` for messages."""

    sample_id: str | None
    index: int | None
    text: str | None
    error: str | None
    file: str
    line: int | None
    #: What the log says the sample was (its target, input, metadata or doc), checked against the dataset by
    #: :func:`niah.interop.content.check_log_content`; None where the reader kept nothing.
    evidence: dict[str, Any] | None = None

    def located(self, message: str, field: str | None = None) -> DataError:
        return DataError(message, file=self.file, line=self.line, field=field)


@dataclass(slots=True)
class HarnessLog:
    harness: str
    path: Path
    model: str | None
    replies: list[HarnessReply]


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _content_text(content: Any, *, file: str, line: int | None, field: str) -> str:
    """A chat message's content: a string, or a list of content parts whose ``text`` parts are joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for k, part in enumerate(content):
            if not isinstance(part, dict):
                raise DataError(f"must be an object, not {_type_name(part)}", file=file, line=line,
                                field=f"{field}[{k}]")
            if part.get("type") == "text":
                text = part.get("text")
                if not isinstance(text, str):
                    raise DataError(f"must be a string, not {_type_name(text)}", file=file, line=line,
                                    field=f"{field}[{k}].text")
                texts.append(text)
        return "".join(texts)
    raise DataError(f"must be a string or a list of content parts, not {_type_name(content)}", file=file,
                    line=line, field=field)


def _inspect_reply(sample: Any, *, file: str, line: int | None, prefix: str) -> HarnessReply:
    def where(name: str) -> str:
        return f"{prefix}{name}"

    if not isinstance(sample, dict):
        raise DataError(f"must be an object, not {_type_name(sample)}", file=file, line=line,
                        field=prefix.rstrip(".") or None)
    metadata = sample.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise DataError(f"must be an object, not {_type_name(metadata)}", file=file, line=line,
                        field=where("metadata"))
    niah_id = (metadata or {}).get("niah_id")
    raw_id = sample.get("id")
    if niah_id is not None:
        if not isinstance(niah_id, str):
            raise DataError(f"must be a string, not {_type_name(niah_id)}", file=file, line=line,
                            field=where("metadata.niah_id"))
        sample_id = niah_id
    elif isinstance(raw_id, str) or (isinstance(raw_id, int) and not isinstance(raw_id, bool)):
        sample_id = str(raw_id)
    else:
        raise DataError(f"must be a string or an integer, not {_type_name(raw_id)}", file=file, line=line,
                        field=where("id"))
    error = sample.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        return HarnessReply(sample_id, None, None, f"harness error: {str(message)[:2000]}", file, line)
    text: str | None = None
    output = sample.get("output")
    if output is not None and not isinstance(output, dict):
        raise DataError(f"must be an object, not {_type_name(output)}", file=file, line=line, field=where("output"))
    if output:
        completion = output.get("completion")
        if completion is not None and not isinstance(completion, str):
            raise DataError(f"must be a string, not {_type_name(completion)}", file=file, line=line,
                            field=where("output.completion"))
        text = completion or None
        choices = output.get("choices")
        if text is None and choices is not None:
            if not isinstance(choices, list):
                raise DataError(f"must be a list, not {_type_name(choices)}", file=file, line=line,
                                field=where("output.choices"))
            if choices:
                message = choices[0].get("message") if isinstance(choices[0], dict) else None
                if not isinstance(message, dict):
                    raise DataError("must be an object with a message", file=file, line=line,
                                    field=where("output.choices[0]"))
                text = _content_text(message.get("content"), file=file, line=line,
                                     field=where("output.choices[0].message.content")) or None
    if text is None:
        messages = sample.get("messages")
        if messages is not None and not isinstance(messages, list):
            raise DataError(f"must be a list, not {_type_name(messages)}", file=file, line=line,
                            field=where("messages"))
        for k in range(len(messages or []) - 1, -1, -1):
            message = (messages or [])[k]
            if isinstance(message, dict) and message.get("role") == "assistant":
                text = _content_text(message.get("content"), file=file, line=line,
                                     field=where(f"messages[{k}].content"))
                break
    if text is None and output is None and not sample.get("messages"):
        raise DataError("has no output and no messages: nothing was answered", file=file, line=line,
                        field=prefix.rstrip(".") or None)
    return HarnessReply(sample_id, None, text if text is not None else "", None, file, line,
                        evidence={k: sample[k] for k in ("target", "input", "metadata") if k in sample})


def _epoch_of(sample: Any) -> int:
    epoch = sample.get("epoch", 1) if isinstance(sample, dict) else 1
    return epoch if isinstance(epoch, int) and not isinstance(epoch, bool) else 1


def _model_of(header: Any) -> str | None:
    spec = header.get("eval") if isinstance(header, dict) else None
    model = spec.get("model") if isinstance(spec, dict) else None
    return model if isinstance(model, str) else None


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> Any:
    if info.file_size > MAX_MEMBER_BYTES:
        raise DataError(f"is larger than {MAX_MEMBER_BYTES} bytes uncompressed; refused", file=label)
    try:
        data = _zstd_member(archive, info, label) if info.compress_type == ZIP_ZSTANDARD else archive.read(info)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
        raise DataError(f"cannot be read from the zip: {exc}", file=label) from None
    try:
        return loads_json(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(f"is not valid UTF-8 (byte {exc.start})", file=label) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=label, line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise DataError(f"invalid JSON: {str(exc)[:120]}", file=label) from None


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> bytes:
    """A Zstandard-compressed member: its raw bytes located through the local header, decompressed with a bound
    (the size the central directory states, so a member that inflates beyond it is refused) and CRC-checked."""
    try:
        import zstandard
    except ImportError:
        raise DataError("is Zstandard-compressed (as inspect_ai writes .eval logs); install the zstandard package "
                        "(inspect_ai depends on it) or re-save the log as .json with `inspect log convert`",
                        file=label) from None
    handle = archive.fp
    if handle is None:
        raise ValueError("the zip file is closed")
    handle.seek(info.header_offset)
    header = handle.read(30)
    if len(header) != 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local file header")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    handle.seek(info.header_offset + 30 + name_len + extra_len)
    raw = handle.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise zipfile.BadZipFile("truncated member")
    try:
        chunks: list[bytes] = []
        got = 0
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)) as reader:
            while got <= info.file_size:  # one byte past the stated size is enough to refuse it
                chunk = reader.read(info.file_size + 1 - got)
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
        data = b"".join(chunks)
    except zstandard.ZstdError as exc:
        raise DataError(f"cannot be read from the zip: Zstandard: {exc}", file=label) from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise DataError("cannot be read from the zip: the Zstandard member does not match its stated size and CRC",
                        file=label)
    return data


def _inspect_eval_zip(path: Path, epoch: int) -> HarnessLog:
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise DataError("inspect log does not exist", file=path) from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"not an inspect .eval log (a zip file): {exc}", file=path) from None
    with archive:
        members = {info.filename: info for info in archive.infolist()}
        # header.json is written when the eval ends; a log still running (or killed) has only the journal's start
        name = "header.json" if "header.json" in members else "_journal/start.json"
        header = _read_member(archive, members[name], f"{path}:{name}") if name in members else None
        replies: list[HarnessReply] = []
        names = sorted(n for n in members if n.startswith("samples/") and n.endswith(".json"))
        if not names:
            raise DataError("holds no samples/*.json: was the eval run with samples logged?", file=path)
        for name in names:
            label = f"{path}:{name}"
            sample = _read_member(archive, members[name], label)
            if _epoch_of(sample) != epoch:
                continue
            replies.append(_inspect_reply(sample, file=label, line=None, prefix=""))
    return HarnessLog("inspect", path, _model_of(header), replies)


def _inspect_json(path: Path, epoch: int) -> HarnessLog:
    log = read_json_file(path, what="inspect log", strict=True)
    if not isinstance(log, dict):
        raise DataError(f"an inspect log must be a JSON object, not {_type_name(log)}", file=path)
    samples = log.get("samples")
    if not isinstance(samples, list):
        raise DataError(f"must be a list of samples, not {_type_name(samples)} (was the eval run with samples "
                        "logged?)", file=path, field="samples")
    replies = [_inspect_reply(sample, file=str(path), line=None, prefix=f"samples[{k}].")
               for k, sample in enumerate(samples) if _epoch_of(sample) == epoch]
    return HarnessLog("inspect", path, _model_of(log), replies)


def read_inspect_log(path: str | Path, *, epoch: int = 1) -> HarnessLog:
    """The replies of one epoch of an inspect_ai log (``.eval`` zip or ``.json``)."""
    path = Path(path)
    if path.suffix == ".json":
        return _inspect_json(path, epoch)
    if path.is_file() and path.stat().st_size > MAX_JSON_FILE_BYTES and not zipfile.is_zipfile(path):
        raise DataError("inspect log is neither an .eval zip nor a .json log", file=path)
    return _inspect_eval_zip(path, epoch)


def _first_text(value: Any, *, file: str, line: int, field: str) -> str:
    """The reply in ``resps`` (``[[text]]``) or ``filtered_resps`` (``[text]`` or ``[[text]]``)."""
    current = value
    path = field
    while isinstance(current, list):
        if not current:
            raise DataError("is an empty list: no reply", file=file, line=line, field=path)
        current = current[0]
        path += "[0]"
    if not isinstance(current, str):
        raise DataError(f"must hold a string reply, not {_type_name(current)}", file=file, line=line, field=path)
    return current


def _lmms_lines(path: Path) -> Iterator[tuple[int, Any]]:
    yield from iter_jsonl(path, strict=True, what="lmms-eval samples file")


#: The per-sample metric items a niah lmms-eval export logs on every line, each holding ``niah_id`` (the current
#: names, then those of exports before the names were made distinct).
LMMS_ID_METRICS = ("niah_score", "niah_aggregate", "niah_official", "niah_official_scores")
#: The key of a niah export's metric item holding the sample's content key (:meth:`Sample.content_key`).
SAMPLE_KEY_ITEM = "niah_sample_key"
#: How lmms-eval's API models write a request that failed after their retries, in place of a reply.
LMMS_FAILED_PREFIX = "[LMMS_EVAL_REQUEST_FAILED"


def _lmms_sample_id(row: dict[str, Any], *, file: str, line: int) -> str:
    """The niah id of an lmms-eval line: ``doc.niah_id``, else a niah export's metric item's ``niah_id``."""
    doc = row.get("doc")
    if doc is not None and not isinstance(doc, dict):
        raise DataError(f"must be an object, not {_type_name(doc)}", file=file, line=line, field="doc")
    places = [("doc.niah_id", (doc or {}).get("niah_id"))]
    places += [(f"{name}.niah_id", row[name].get("niah_id")) for name in LMMS_ID_METRICS
               if isinstance(row.get(name), dict)]
    for field, value in places:
        if value is None:
            continue
        if not isinstance(value, str) or not value:
            raise DataError(f"must be a non-empty string, not {_type_name(value)}", file=file, line=line, field=field)
        return value
    raise DataError("names no niah sample id (doc.niah_id, or niah_id in a niah export's metric item "
                    f"{' / '.join(LMMS_ID_METRICS[:2])}); doc_id is only lmms-eval's own position, so the sample "
                    "cannot be known: run a task that `niah export lmms-eval` wrote", file=file, line=line,
                    field="doc.niah_id")


def lmms_model_name(samples_path: Path) -> str | None:
    """The model lmms-eval names in the ``<date>_results.json`` it wrote beside ``<date>_samples_<task>.jsonl``
    (its ``model_name``), or None when there is none."""
    name = samples_path.name
    if "_samples_" not in name:
        return None
    results = samples_path.with_name(name.split("_samples_", 1)[0] + "_results.json")
    if not results.is_file():
        return None
    doc = read_json_file(results, what="lmms-eval results file")
    model = doc.get("model_name") if isinstance(doc, dict) else None
    if not isinstance(model, str) or not model.strip():
        return None
    return "_".join(model.split())  # a run's model label has no spaces


def read_lmms_eval_samples(path: str | Path, *, filtered: bool = False) -> HarnessLog:
    """The replies in an lmms-eval ``<date>_samples_<task>.jsonl`` (``--log_samples``)."""
    path = Path(path)
    file = str(path)
    replies: list[HarnessReply] = []
    for lineno, row in _lmms_lines(path):
        if not isinstance(row, dict):
            raise DataError(f"must be a JSON object, not {_type_name(row)}", file=file, line=lineno)
        sample_id = _lmms_sample_id(row, file=file, line=lineno)
        field = "filtered_resps" if filtered or "resps" not in row else "resps"
        if field not in row:
            raise DataError("missing: the line holds no reply (resps or filtered_resps)", file=file, line=lineno,
                            field="resps")
        text = _first_text(row[field], file=file, line=lineno, field=field)
        doc = row.get("doc")  # checked by _lmms_sample_id: an object or absent
        evidence = {k: row[k] for k in ("target", "arguments") if k in row} | {"doc": doc}
        # a niah export's metric items carry the sample's content key (lmms-eval 0.7.3 logs no doc)
        keys = [row[m].get(SAMPLE_KEY_ITEM) for m in LMMS_ID_METRICS if isinstance(row.get(m), dict)]
        evidence["sample_key"] = next((k for k in keys if k is not None), None)
        if text.startswith(LMMS_FAILED_PREFIX):  # lmms-eval's placeholder for a request that failed
            replies.append(HarnessReply(sample_id, None, None, text[:2000], file, lineno, evidence=evidence))
        else:
            replies.append(HarnessReply(sample_id, None, text, None, file, lineno, evidence=evidence))
    if not replies:
        raise DataError("holds no samples", file=path)
    return HarnessLog("lmms-eval", path, lmms_model_name(path), replies)


def read_harness_log(harness: str, path: str | Path, *, epoch: int = 1, filtered: bool = False) -> HarnessLog:
    if harness == "inspect":
        return read_inspect_log(path, epoch=epoch)
    if harness == "lmms-eval":
        return read_lmms_eval_samples(path, filtered=filtered)
    raise DataError(f"unknown harness {harness!r} (known: {', '.join(HARNESSES)})")
