"""Hugging Face datasets: a niah dataset as Parquet shards with a dataset card, and back.

``export_hf(DATASET, DIR)`` writes::

    DIR/
      README.md                          # dataset card: YAML front matter (configs, features, splits, niah block)
      data/<split>-00000-of-0000N.parquet

which ``datasets.load_dataset("parquet", data_dir=DIR)`` and ``datasets.load_dataset(DIR)`` load (and
``huggingface-cli upload`` publishes as is). One row per sample, in samples.jsonl order:

* ``id``, ``benchmark``, ``task``: strings;
* ``context``, ``question``, ``choices``, ``answer``, ``meta``: the sample's fields as JSON text, exactly as
  samples.jsonl holds them (parts refer to media by their path);
* ``images``: ``List(Image)``: the image of every image part, context then question then choices, in order
  (``images[k]`` is the k-th image part; each keeps its path);
* ``video_frames``: one list per video part, its frame images (``List(List(Image))``; empty for a video file);
  with ``embed=False`` (``--no-embed``) the frame paths only (``List(List(string))``);
* ``video_files``: the video parts' files (a video file, a subtitles file) as ``{path, bytes}``, in part order;
  with ``embed=False`` a video file's bytes are null (subtitles stay embedded).

The dataset's manifest, the niah version and the export settings travel in the card and in every shard's
Parquet schema metadata (key ``niah``), which is what ``import_hf(DIR, OUT)`` reads to write the dataset
directory back: samples.jsonl and every media file byte for byte, and the manifest (a manifest that read media
in place from a ``media_root`` outside the dataset loses that key: the media then live in the dataset).

Both directions stream: rows go to the Parquet writer in row groups (``row_group_rows`` rows, or fewer when
their media pass ``ROW_GROUP_BYTES``) and shards close at ``max_shard_bytes``; imports read one row group at a
time. Same dataset and settings give byte-identical files (nothing time-dependent is written). Exporting needs
the ``datasets`` package (``pip install 'niah-bench[hf]'``) for the feature schema it writes; importing only pyarrow.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah import __version__, pip_install
from niah.sample import (
    MANIFEST_FILE,
    SAMPLES_FILE,
    Dataset,
    DatasetWriter,
    ImagePart,
    Part,
    Sample,
    VideoPart,
    media_problem,
    refuse_output_over_input,
)
from niah.util.errors import ConfigError, DataError
from niah.util.iox import (
    MAX_LINE_BYTES,
    check_export_out,
    dumps_line,
    loads_json,
    resolve_under,
    staged_dir,
    write_atomic,
)

#: Names at a dataset's top that are the dataset itself: no media path may name them.
_OWN_FILES = frozenset({SAMPLES_FILE, MANIFEST_FILE})

#: The schema metadata key of every shard holding what the import needs (manifest, niah version, settings).
METADATA_KEY = b"niah"
EXPORT_FORMAT = 1
DATA_DIR = "data"
CARD = "README.md"
#: A row group closes at this many bytes of row data even before ``row_group_rows`` rows (long videos).
ROW_GROUP_BYTES = 64 << 20
DEFAULT_SHARD_BYTES = 500 << 20
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 1 << 10, "m": 10**6, "mb": 10**6, "mib": 1 << 20,
          "g": 10**9, "gb": 10**9, "gib": 1 << 30, "t": 10**12, "tb": 10**12, "tib": 1 << 40}
_JSON_FIELDS = ("context", "question", "choices", "answer", "meta")
#: The largest media file ``niah import hf`` writes (a row's images and videos arrive whole in memory; the video
#: readers cap what they decode anyway). Larger ones are refused naming the row, before anything is written.
MAX_IMPORT_MEDIA_BYTES = 1 << 30


def parse_size(text: str) -> int:
    """``500MB``, ``2GiB``, ``1000000`` -> bytes."""
    match = _SIZE.fullmatch(text)
    unit = (match.group(2) or "").lower() if match else ""
    if match is None or unit not in _UNITS:
        raise ConfigError(f"{text!r} is not a size (e.g. 500MB, 2GB, 1GiB)")
    size = int(float(match.group(1)) * _UNITS[unit])
    if size < 1:
        raise ConfigError(f"size {text!r} must be positive")
    return size


@dataclass
class ExportSummary:
    out_dir: Path
    samples: int = 0
    shards: list[str] = field(default_factory=list)
    media_files: int = 0
    media_bytes: int = 0
    parquet_bytes: int = 0


def _features(embed: bool) -> Any:
    try:
        from datasets import Features, Image, List, Value
    except ImportError:
        raise ConfigError(f"niah export hf needs the datasets package: {pip_install('hf')} "
                          "(or pip install datasets)") from None

    frame = Image() if embed else Value("string")
    return Features({
        "id": Value("string"), "benchmark": Value("string"), "task": Value("string"),
        **{name: Value("string") for name in _JSON_FIELDS},
        "images": List(Image()),
        "video_frames": List(List(frame)),
        "video_files": List({"path": Value("string"), "bytes": Value("binary")}),
    })


def _parts(sample: Sample) -> list[Part]:
    return [*sample.context, *sample.question, *(p for c in sample.choices or [] for p in c)]


class _MediaReader:
    """Media bytes by path, read from the dataset's media root; counts what it read."""

    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.files = 0
        self.bytes = 0
        self._seen: set[str] = set()

    def check(self, rel: str, lineno: int, where: str) -> None:
        """A media file stored by path only must still be there (the import reads it from the dataset)."""
        path = resolve_under(self.ds.media_root, rel, file=self.ds.samples_path, line=lineno, field=where)
        if not path.is_file():
            raise DataError(f"media file {rel!r} not found", file=self.ds.samples_path, line=lineno, field=where)

    def read(self, rel: str, lineno: int, where: str) -> bytes:
        path = resolve_under(self.ds.media_root, rel, file=self.ds.samples_path, line=lineno, field=where)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise DataError(f"media file {rel!r} cannot be read ({exc.strerror or exc})", file=self.ds.samples_path,
                            line=lineno, field=where) from None
        if rel not in self._seen:
            self._seen.add(rel)
            self.files += 1
            self.bytes += len(data)
        return data


def _row(sample: Sample, lineno: int, media: _MediaReader, embed: bool) -> tuple[dict[str, Any], int]:
    """The Parquet row of one sample and its size in bytes (text and media)."""
    obj = sample.to_json()
    row: dict[str, Any] = {"id": sample.id, "benchmark": sample.benchmark, "task": sample.task}
    size = 0
    for name in _JSON_FIELDS:
        row[name] = json.dumps(obj[name], ensure_ascii=False)
        size += len(row[name])
    images: list[dict[str, Any]] = []
    frames: list[list[Any]] = []
    files: list[dict[str, Any]] = []
    for index, part in enumerate(_parts(sample)):
        where = f"part[{index}]"
        if isinstance(part, ImagePart):
            data = media.read(part.path, lineno, where)
            images.append({"bytes": data, "path": part.path})
            size += len(data)
        elif isinstance(part, VideoPart):
            if embed:
                shown = [{"bytes": media.read(f, lineno, f"{where}.frames"), "path": f} for f in part.frames or ()]
                size += sum(len(f["bytes"]) for f in shown)
                frames.append(shown)
            else:
                for f in part.frames or ():
                    media.check(f, lineno, f"{where}.frames")
                frames.append(list(part.frames or ()))
            if part.path is not None:
                video: bytes | None = None
                if embed:
                    video = media.read(part.path, lineno, f"{where}.path")
                    size += len(video)
                else:
                    media.check(part.path, lineno, f"{where}.path")
                files.append({"path": part.path, "bytes": video})
            if part.subtitles is not None:
                data = media.read(part.subtitles, lineno, f"{where}.subtitles")
                files.append({"path": part.subtitles, "bytes": data})
                size += len(data)
    row.update(images=images, video_frames=frames, video_files=files)
    return row, size


def _replaceable_export(out: Path) -> bool:
    if out.is_symlink() or not out.is_dir():
        return False
    return not any(out.iterdir()) or ((out / CARD).is_file() and (out / DATA_DIR).is_dir())


def _seed(manifest: dict[str, Any]) -> Any:
    build = manifest.get("build")
    if "seed" in manifest:
        return manifest["seed"]
    return build.get("seed") if isinstance(build, dict) else None


def export_hf(dataset: str | Path, out_dir: str | Path, *, split: str = "test", embed: bool = True,
              max_shard_bytes: int = DEFAULT_SHARD_BYTES, row_group_rows: int = 100, overwrite: bool = False,
              progress: bool = False, media_roots: tuple[str | Path, ...] = ()) -> ExportSummary:
    """Write ``dataset`` as a Hugging Face dataset folder (see the module docstring)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from niah.util.console import progress_bar

    if not re.fullmatch(r"[A-Za-z0-9_]+", split):
        raise ConfigError(f"--split {split!r} must be letters, digits and underscores (e.g. test, validation)")
    if row_group_rows < 1:
        raise ConfigError("the row group size must be at least 1 row")
    features = _features(embed)
    ds = Dataset(dataset, media_roots=media_roots)
    out = Path(out_dir)
    # --overwrite replaces OUT whole: an OUT holding the dataset would delete it, and an export inside the
    # dataset would go with the dataset's next rebuild
    refuse_output_over_input(ds.root, out)
    check_export_out(out, overwrite=overwrite, is_ours=_replaceable_export,
                     foreign="is not a niah export (no README.md and data/)")
    manifest = dict(ds.manifest)
    niah_block = {"format": EXPORT_FORMAT, "niah_version": __version__, "split": split, "embed": embed,
                  "manifest": manifest if ds.manifest_path.is_file() else None}
    schema = features.arrow_schema
    schema = schema.with_metadata({**(schema.metadata or {}),
                                   METADATA_KEY: json.dumps(niah_block, ensure_ascii=False).encode("utf-8")})
    summary = ExportSummary(out_dir=out)
    media = _MediaReader(ds)
    tasks: dict[str, int] = {}
    data_bytes = 0
    with staged_dir(out, suffix=".exporting") as tmp:
        (tmp / DATA_DIR).mkdir()
        parts: list[Path] = []
        writer: Any = None
        batch: list[dict[str, Any]] = []
        batch_bytes = 0

        def flush() -> None:
            nonlocal writer, batch, batch_bytes
            if not batch:
                return
            if writer is None:
                parts.append(tmp / DATA_DIR / f".part-{len(parts):05d}.parquet")
                writer = pq.ParquetWriter(parts[-1], schema, compression="zstd")
            table = pa.Table.from_pylist(batch, schema=schema)
            writer.write_table(table, row_group_size=len(batch))
            batch, batch_bytes = [], 0
            if parts[-1].stat().st_size >= max_shard_bytes:  # the row groups written so far
                writer.close()
                writer = None
                print(f"wrote shard {len(parts)} ({summary.samples} samples so far)", file=sys.stderr)

        with progress_bar(progress, len(ds), f"export {ds.root.name}") as advance:
            for lineno, sample in ds.iter_numbered():
                row, size = _row(sample, lineno, media, embed)
                batch.append(row)
                batch_bytes += size
                data_bytes += size
                summary.samples += 1
                tasks[sample.task] = tasks.get(sample.task, 0) + 1
                if len(batch) >= row_group_rows or batch_bytes >= ROW_GROUP_BYTES:
                    flush()
                advance()
            flush()
            if writer is not None:
                writer.close()
        if not parts:  # an empty dataset is still a loadable (empty) split
            parts.append(tmp / DATA_DIR / ".part-00000.parquet")
            pq.write_table(pa.Table.from_pylist([], schema=schema), parts[-1], compression="zstd")
        for index, part in enumerate(parts):
            final = part.with_name(f"{split}-{index:05d}-of-{len(parts):05d}.parquet")
            os.replace(part, final)
            summary.shards.append(f"{DATA_DIR}/{final.name}")
            summary.parquet_bytes += final.stat().st_size
        summary.media_files, summary.media_bytes = media.files, media.bytes
        write_atomic(tmp / CARD, _card(ds, features, niah_block, summary, tasks, data_bytes))
    return summary


def _inline(value: Any) -> str:
    """A value from the dataset (its folder's name, the manifest's source) as one line of card text: no line
    break, control character or backtick, so that it cannot end its code span or start a Markdown block of its
    own (a link, an image fetched from elsewhere when the card is shown); the JSON block below keeps it whole."""
    import re

    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029`]+", " ", str(value)).strip()


def _card(ds: Dataset, features: Any, niah_block: dict[str, Any], summary: ExportSummary, tasks: dict[str, int],
          data_bytes: int) -> str:
    """The dataset card: YAML front matter the hub and ``load_dataset(DIR)`` read, then how it was built."""
    from datasets.info import DatasetInfo, DatasetInfosDict
    from datasets.splits import SplitDict, SplitInfo
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    split = niah_block["split"]
    manifest = niah_block["manifest"] or {}
    benchmarks = sorted({str(manifest.get("benchmark"))} if manifest.get("benchmark") else set())
    card = DatasetCardData(
        pretty_name=f"niah {manifest.get('benchmark') or 'dataset'} ({ds.root.name})",
        tags=["niah", "long-context", "needle-in-a-haystack", *benchmarks],
        niah={"version": __version__, "export_format": EXPORT_FORMAT, "seed": _seed(manifest),
              "benchmark": manifest.get("benchmark"), "source": manifest.get("source"),
              "num_samples": summary.samples, "tasks": tasks, "embed": niah_block["embed"]},
    )
    info = DatasetInfo(features=features,
                       splits=SplitDict({split: SplitInfo(split, num_bytes=data_bytes, num_examples=summary.samples)}),
                       download_size=summary.parquet_bytes, dataset_size=data_bytes)
    MetadataConfigs({"default": {"data_files": [{"split": split, "path": f"{DATA_DIR}/{split}-*"}]}}
                    ).to_dataset_card_data(card)
    DatasetInfosDict({"default": info}).to_dataset_card_data(card)
    build = {k: v for k, v in manifest.items() if k not in ("warnings",)}
    video_note = ("the frame images of each video part" if niah_block["embed"] else
                  "the frame paths of each video part (exported with --no-embed: frames and video files are not "
                  "embedded; `niah import hf DIR --media-root DATASET` reads them from the original dataset)")
    lines = [
        "---", card.to_yaml(), "---", "",
        f"# {_inline(card.pretty_name)}", "",
        f"A long-context needle-in-a-haystack dataset made with niah {__version__} and exported with "
        f"`niah export hf`: {summary.samples} samples in one split, `{split}`"
        + (f", tasks: {', '.join(f'{t} ({n})' for t, n in tasks.items())}." if tasks else "."), "",
        "## How it was built", "",
        f"- source: `{_inline(manifest.get('source') or 'unknown')}`; seed: `{_inline(_seed(manifest))}`; "
        f"niah version: {__version__}",
        "- the dataset's manifest (build parameters, tokenizer, image token rule, counts):", "",
        "```json", json.dumps(build, ensure_ascii=False, indent=2), "```", "",
        "## Columns", "",
        "| column | what |", "| --- | --- |",
        "| `id`, `benchmark`, `task` | the sample's id, benchmark family and task |",
        "| `context`, `question`, `choices` | JSON lists of parts (`{\"type\": \"text\", \"text\"}`, "
        "`{\"type\": \"image\", \"path\"}`, `{\"type\": \"video\", \"path\" or \"frames\", \"fps\", \"subtitles\"}`); "
        "`choices` is `null` or a list of part lists |",
        "| `answer` | the gold answer, as JSON |",
        "| `meta` | the sample's metadata as JSON (`context_length`, `depth`, `needles`, ...) |",
        "| `images` | the image of every image part (context, question, choices), in order: `images[k]` is the "
        "k-th image part |",
        f"| `video_frames` | one list per video part: {video_note} |",
        "| `video_files` | the video parts' files (a video file, a subtitles file) as `{path, bytes}` |", "",
        "## Use", "",
        "```python", "import datasets, json", "",
        f"ds = datasets.load_dataset(\"parquet\", data_dir=\"DIR\")[\"{split}\"]",
        "sample = ds[0]", "context = json.loads(sample[\"context\"])  # parts; images are sample[\"images\"]",
        "```", "",
        "Back to a niah dataset directory (samples.jsonl and media byte for byte), to run, score and report it "
        "with niah's official rules:", "",
        "```", "niah import hf DIR --out DATASET", "```", "",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- import


@dataclass
class ImportSummary:
    out_dir: Path
    samples: int = 0
    media_files: int = 0


def _shard_files(root: Path) -> list[Path]:
    if not root.is_dir():
        raise DataError("is not a directory (niah import hf reads the folder niah export hf wrote)", file=root)
    files = sorted(p for p in root.rglob("*.parquet") if not any(part.startswith(".") for part in
                                                                  p.relative_to(root).parts))
    if not files:
        raise DataError("holds no .parquet files (niah import hf reads the folder niah export hf wrote)", file=root)
    for file in files:  # a FIFO would block the read forever, a device or a link reads what the folder does not hold
        if not stat.S_ISREG(os.lstat(file).st_mode):
            raise DataError("is not a regular file (a FIFO, a device or a link); a shard is a Parquet file",
                            file=file)
    return files


def _parquet_call(path: Path, call: Any) -> Any:
    """``call()`` reading ``path`` with pyarrow, its errors (a 0-byte or truncated shard) as one DataError."""
    import pyarrow as pa

    try:
        return call()
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"not a readable Parquet shard ({type(exc).__name__}: {str(exc)[:160]})", file=path) from None


def _niah_block(path: Path, metadata: dict[bytes, bytes] | None) -> dict[str, Any]:
    raw = (metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise DataError("not a niah export: its Parquet schema has no niah metadata (niah import hf reads what "
                        "niah export hf wrote)", file=path)
    try:
        block = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise DataError("the niah schema metadata is not valid JSON", file=path) from None
    if not isinstance(block, dict) or block.get("format") != EXPORT_FORMAT:
        raise DataError(f"niah export format {block.get('format') if isinstance(block, dict) else block!r} is not "
                        f"the one this niah reads ({EXPORT_FORMAT})", file=path)
    manifest = block.get("manifest")
    if manifest is not None and not isinstance(manifest, dict):
        raise DataError("the niah schema metadata's manifest must be an object", file=path, field="manifest")
    return block


def _rows(path: Path, batch_rows: int) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    number = 0
    with _parquet_call(path, lambda: pq.ParquetFile(path)) as pf:
        batches = pf.iter_batches(batch_size=batch_rows)
        while True:
            batch = _parquet_call(path, lambda: next(batches, None))
            if batch is None:
                return
            for row in batch.to_pylist():
                number += 1
                yield number, row


def _sample_of(row: dict[str, Any], path: Path, number: int) -> Sample:
    obj: dict[str, Any] = {}
    for name in ("id", "benchmark", "task"):
        obj[name] = row.get(name)
    for name in _JSON_FIELDS:
        text = row.get(name)
        if not isinstance(text, str):
            raise DataError("missing or not a JSON string", file=path, line=number, field=name)
        if len(text) > MAX_LINE_BYTES:  # the sample's line would be longer than niah run reads
            raise DataError(f"is {len(text)} characters long; a sample line holds at most {MAX_LINE_BYTES} bytes",
                            file=path, line=number, field=name)
        try:
            obj[name] = loads_json(text)
        except (ValueError, RecursionError):
            raise DataError("is not valid JSON", file=path, line=number, field=name) from None
    try:
        return Sample.from_json(obj)
    except DataError as exc:
        raise DataError(exc.message, file=path, line=number, field=exc.field) from None


def _media_of(row: dict[str, Any], path: Path, number: int) -> dict[str, bytes | None]:
    """Media bytes by path from the row's media columns (None: a path exported without its bytes)."""
    found: dict[str, bytes | None] = {}

    def add(item: Any, where: str) -> None:
        if isinstance(item, str):
            found.setdefault(item, None)
            return
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise DataError("a media item must be {path, bytes}", file=path, line=number, field=where)
        data = item.get("bytes")
        if data is not None and not isinstance(data, bytes):
            raise DataError("media bytes must be binary", file=path, line=number, field=where)
        old = found.get(item["path"])
        if old is not None and data is not None and old != data:
            raise DataError(f"two different files for media path {item['path']!r}", file=path, line=number,
                            field=where)
        if data is not None or item["path"] not in found:
            found[item["path"]] = data

    for image in row.get("images") or []:
        add(image, "images")
    for frames in row.get("video_frames") or []:
        for frame in frames or []:
            add(frame, "video_frames")
    for item in row.get("video_files") or []:
        add(item, "video_files")
    return found


def import_hf(in_dir: str | Path, out_dir: str | Path, *, overwrite: bool = False, progress: bool = False,
              media_root: str | Path | None = None, batch_rows: int = 16) -> ImportSummary:
    """Write the niah dataset directory held in a ``niah export hf`` folder (see the module docstring).

    ``media_root``: where to read media that were exported by path only (``--no-embed``), e.g. the original
    dataset directory; every media path is resolved under it and under the new dataset, never outside."""
    import pyarrow.parquet as pq

    from niah.util.console import progress_bar

    root = Path(in_dir)
    refuse_output_over_input(root, out_dir, source_kind="export folder")
    files = _shard_files(root)
    blocks = [_niah_block(f, _parquet_call(f, lambda f=f: pq.read_schema(f)).metadata) for f in files]
    manifests = {json.dumps(b.get("manifest"), sort_keys=True) for b in blocks}
    if len(manifests) > 1:
        raise DataError("shards of different niah exports are mixed in this folder (their manifests differ)",
                        file=root)
    manifest = dict(blocks[0].get("manifest") or {})
    manifest.pop("media_root", None)  # media read in place before now live in the dataset itself
    total = sum(_parquet_call(f, lambda f=f: pq.ParquetFile(f).metadata.num_rows) for f in files)
    summary = ImportSummary(out_dir=Path(out_dir))
    written: dict[str, str] = {}  # media path -> sha256 of what was written
    with DatasetWriter(out_dir, overwrite=overwrite) as writer, \
            progress_bar(progress, total, f"import {root.name}") as advance:
        for file in files:
            for number, row in _rows(file, batch_rows):
                sample = _sample_of(row, file, number)
                if len(dumps_line(sample.to_json())) > MAX_LINE_BYTES:
                    raise DataError(f"sample {sample.id!r} would be a line over {MAX_LINE_BYTES} bytes, which niah "
                                    "run refuses", file=file, line=number)
                media = _media_of(row, file, number)
                for index, (rel, kind) in enumerate(sample.media_kinds()):
                    where = f"media[{index}]"
                    data = media.get(rel)
                    if data is None and rel not in media:
                        raise DataError(f"media path {rel!r} of sample {sample.id!r} is in no media column",
                                        file=file, line=number, field=where)
                    if data is None:
                        if media_root is None:
                            raise DataError(f"media {rel!r} was exported without its bytes (--no-embed): pass "
                                            "--media-root DIR, the dataset it was exported from", file=file,
                                            line=number, field=where)
                        source = resolve_under(media_root, rel, file=file, line=number, field=where)
                        if not source.is_file() or source.stat().st_size > MAX_IMPORT_MEDIA_BYTES:
                            raise DataError(f"media {rel!r} under --media-root is not a regular file of at most "
                                            f"{MAX_IMPORT_MEDIA_BYTES} bytes", file=file, line=number, field=where)
                        data = source.read_bytes()
                    if len(data) > MAX_IMPORT_MEDIA_BYTES:
                        raise DataError(f"media {rel!r} is {len(data)} bytes; at most {MAX_IMPORT_MEDIA_BYTES}",
                                        file=file, line=number, field=where)
                    digest = hashlib.sha256(data).hexdigest()
                    if rel in written:
                        if written[rel] != digest:
                            raise DataError(f"media path {rel!r} holds different bytes in two rows", file=file,
                                            line=number, field=where)
                        continue
                    target = resolve_under(writer.tmp_root, rel, file=file, line=number, field=where)
                    if target.relative_to(writer.tmp_root.resolve()).parts[0] in _OWN_FILES:
                        raise DataError(f"media path {rel!r} names the dataset's own file, not a media file",
                                        file=file, line=number, field=where)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)  # into the build's temporary folder: nothing is final yet
                    why = media_problem(target, kind)  # what niah run checks first, checked now
                    if why is not None:
                        raise DataError(f"media {rel!r}: {why}", file=file, line=number, field=where)
                    written[rel] = digest
                try:
                    writer.write(sample)
                except DataError as exc:
                    raise DataError(exc.message, file=file, line=number, field=exc.field) from None
                summary.samples += 1
                advance()
        writer.finish(manifest)
    summary.media_files = len(written)
    return summary


def read_card_niah(in_dir: str | Path) -> dict[str, Any] | None:
    """The ``niah`` block of a card's YAML front matter (None without one); for messages and tests."""
    path = Path(in_dir) / CARD
    if not path.is_file():
        return None
    import yaml

    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return None
    front = yaml.safe_load(text[4:text.index("\n---", 4)])
    value = front.get("niah") if isinstance(front, dict) else None
    return value if isinstance(value, dict) else None


__all__ = ["export_hf", "import_hf", "parse_size", "read_card_niah"]
