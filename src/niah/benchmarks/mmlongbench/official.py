"""MMLongBench's official test files in: records -> niah samples, the per-data-set sampling, the importer.

Layout (as the official ``--test_file_root`` / ``--image_file_root``): a data root holding ``vrag/``, ``NIAH/``,
``ICL/``, ``summ/``, ``documentQA/`` with files named as the official configs list them
(:mod:`niah.benchmarks.mmlongbench.datasets`), and an image root the records' relative image paths point into.
Images are read in place (never copied): the dataset written by :func:`write_mmlongbench_dataset` names the
image root as its media root, so ``niah run``/``report`` need ``--media-root IMAGE_ROOT``.

Record shapes are the ones the official loader reads (``data.py``); no data file was available to confirm them,
so readers require only the fields the official code uses and report every other field as *unknown* (returned
by the importer and written to the manifest) instead of refusing it:

* ``vrag``: ``id``, ``question``, ``image`` (one path), ``ctxs`` ([{``title``, ``text``}]), ``answer``. As in the
  official loader, records whose image path holds a ``"`` are dropped (counted in the import summary).
* ``vh_*``: ``id``, ``question``, ``ctxs`` (image paths), ``answer`` (``yes``/``no``).
* MM-NIAH: ``id``, ``ctxs`` ([{``text``}]; a ``type`` key is tolerated), ``image_list``, ``question``,
  ``answer``; counting-image adds ``needle_image_list``, retrieval/reasoning-image ``choices_image``.
* ICL (``.json``): ``{domain: {exemplar_list: [[round: [{image, id}]]], test_example: [{image, answer}]}}``.
* summarization: ``id``, ``image_list`` (page images ``.../<doc>/page<N>.<ext>``), ``summary`` (gov-report: a
  list of {``section_title``, ``paragraphs``}; multi-lexsum: a string); key points for the judge come from
  ``summ/gov_claims.jsonl`` / ``summ/lexsum_claims.jsonl`` (``{id, claims}``) when present.
* documentQA: ``id``, ``doc_name``, ``question``, ``answer``, ``answer_format``, ``page_list``.

Sampling (config ``max_test_samples``): 100 ids per data set and length (50 for the MM-NIAH sets), every row of
a chosen id kept (the ``dep<n>`` files hold one row per needle depth); files without ids (summarization,
documentQA) and the ICL test examples are sampled by row. The official code draws with Python's global
``random`` after its own seeding; niah draws with ``random.Random("<seed>:<data set>:K<k>")``, so the chosen
ids are deterministic per seed but not the official run's ids.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.benchmarks.mmlongbench.datasets import DATASETS, DatasetInfo, OfficialFile, parse_official_file
from niah.sample import (
    Dataset,
    DatasetWriter,
    ImagePart,
    MediaChecker,
    Part,
    Sample,
    TextPart,
    check_sample_values,
)
from niah.util.errors import DataError
from niah.util.iox import iter_jsonl, read_json_file, resolve_under

BENCHMARK = "mmlongbench"
IMAGE_TAG = "<image>"
PASSAGE_TEMPLATE = "Document (Title: {title}): {text}"
ICL_ITEM_TEMPLATE = "<image>\nlabel: {label}"

#: Fields each reader uses; anything else in a record is reported as unknown.
KNOWN_FIELDS: dict[str, frozenset[str]] = {
    "vrag": frozenset({"id", "question", "image", "ctxs", "answer", "positive_ctxs"}),
    "vh": frozenset({"id", "question", "ctxs", "answer"}),
    "mm_niah_text": frozenset({"id", "ctxs", "image_list", "question", "answer"}),
    "mm_niah_image_count": frozenset({"id", "ctxs", "image_list", "needle_image_list", "question", "answer"}),
    "mm_niah_image_mc": frozenset({"id", "ctxs", "image_list", "choices_image", "question", "answer"}),
    "gov_report": frozenset({"id", "image_list", "summary"}),
    "multi_lexsum": frozenset({"id", "image_list", "summary"}),
    "docqa": frozenset({"id", "doc_name", "question", "answer", "answer_format", "page_list"}),
}
DOCQA_ANSWER_FORMATS = frozenset({"String", "Integer", "Float", "List", "None"})
CLAIMS_FILES = {"gov-report": "gov_claims.jsonl", "multi-lexsum": "lexsum_claims.jsonl"}


@dataclass
class Record:
    """One official row made ready for a sample: formatted context and question text (``<image>`` marks)
    and the image list in the official order."""

    record_id: Any
    context: str
    question: str
    images: list[str]
    answer: Any
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class FileReport:
    """What importing one file found: rows read, rows kept, rows dropped (and why), unknown fields."""

    path: Path
    rows: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    unknown_fields: set[str] = field(default_factory=set)


def _need(record: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    if name not in record:
        raise DataError("missing", field=name)
    value = record[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise DataError(f"must be {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}", field=name)
    return value


def _strings(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError("must be a list of strings (image paths)", field=name)
    return list(value)


def _texts(ctxs: Any) -> list[str]:
    if not isinstance(ctxs, list):
        raise DataError("must be a list of {text} items", field="ctxs")
    out: list[str] = []
    for index, item in enumerate(ctxs):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise DataError("must be an object with a string 'text'", field=f"ctxs[{index}].text")
        out.append(item["text"])
    return out


def _id(record: dict[str, Any]) -> Any:
    value = _need(record, "id", (int, str))
    return value


def read_vrag(record: dict[str, Any]) -> Record | str:
    image = _need(record, "image", str)
    if '"' in image:
        return 'image path holds a double quote (dropped as in the official loader)'
    ctxs = _need(record, "ctxs", list)
    passages: list[str] = []
    for index, ctx in enumerate(ctxs):
        if not isinstance(ctx, dict) or not isinstance(ctx.get("title"), str) or not isinstance(ctx.get("text"), str):
            raise DataError("must be an object with string 'title' and 'text'", field=f"ctxs[{index}]")
        passages.append(PASSAGE_TEMPLATE.format(title=ctx["title"], text=ctx["text"]))
    question = _need(record, "question", str)
    return Record(_id(record), "\n\n".join(passages), IMAGE_TAG + question, [image], _need(record, "answer",
                  (str, list)))


def read_vh(record: dict[str, Any]) -> Record:
    images = _strings(_need(record, "ctxs", list), "ctxs")
    return Record(_id(record), "\n".join([IMAGE_TAG] * len(images)), _need(record, "question", str), images,
                  _need(record, "answer", str))


def read_mm_niah_text(record: dict[str, Any]) -> Record:
    return Record(_id(record), "\n\n".join(_texts(_need(record, "ctxs", list))),
                  _need(record, "question", str), _strings(_need(record, "image_list", list), "image_list"),
                  record.get("answer"))


def read_mm_niah_image_count(record: dict[str, Any]) -> Record:
    images = _strings(_need(record, "image_list", list), "image_list")
    images += _strings(_need(record, "needle_image_list", list), "needle_image_list")
    return Record(_id(record), "\n\n".join(_texts(_need(record, "ctxs", list))),
                  _need(record, "question", str), images, record.get("answer"))


def read_mm_niah_image_mc(record: dict[str, Any]) -> Record:
    choices = _strings(_need(record, "choices_image", list), "choices_image")
    question = _need(record, "question", str)
    question += "".join(f"\n{chr(index + ord('A'))}. {IMAGE_TAG}" for index in range(len(choices)))
    images = _strings(_need(record, "image_list", list), "image_list") + choices
    return Record(_id(record), "\n\n".join(_texts(_need(record, "ctxs", list))), question, images,
                  record.get("answer"))


def _page_parts(path: str, *, with_page: bool) -> tuple[str, str | None]:
    pieces = path.split("/")
    if len(pieces) < 2:
        raise DataError(f"page image path {path!r} has no document folder (<doc>/<page file>)", field="image_list")
    doc_id = pieces[-2][:15]
    if not with_page:
        return doc_id, None
    if "page" not in path:
        raise DataError(f"page image path {path!r} holds no 'page<N>'", field="image_list")
    return doc_id, path.split("page")[1].split(".")[0]


def _summ_context(images: list[str]) -> str:
    items = []
    for path in images:
        doc_id, page = _page_parts(path, with_page=True)
        items.append(f"Document {doc_id} (page {page}): {IMAGE_TAG}")
    return "\n\n".join(items)


def read_gov_report(record: dict[str, Any]) -> Record:
    images = _strings(_need(record, "image_list", list), "image_list")
    summary = _need(record, "summary", list)
    sections: list[str] = []
    for index, aspect in enumerate(summary):
        if (not isinstance(aspect, dict) or not isinstance(aspect.get("section_title"), str)
                or not isinstance(aspect.get("paragraphs"), list)
                or not all(isinstance(p, str) for p in aspect["paragraphs"])):
            raise DataError("must be {section_title: str, paragraphs: [str]}", field=f"summary[{index}]")
        sections.append(aspect["section_title"] + ":\n" + "\n".join(aspect["paragraphs"]))
    return Record(_id(record), _summ_context(images), "", images, "\n\n".join(sections))


def read_multi_lexsum(record: dict[str, Any]) -> Record:
    images = _strings(_need(record, "image_list", list), "image_list")
    return Record(_id(record), _summ_context(images), "", images, _need(record, "summary", str))


def read_docqa(record: dict[str, Any]) -> Record:
    pages = _strings(_need(record, "page_list", list), "page_list")
    context = "\n\n".join(f"Document {_page_parts(p, with_page=False)[0]}: {IMAGE_TAG}" for p in pages)
    doc_name = _need(record, "doc_name", str)
    question = (f"Based on Document {doc_name[:15]}, answer the following question. "
                + _need(record, "question", str))
    answer_format = _need(record, "answer_format", str)
    if answer_format not in DOCQA_ANSWER_FORMATS:
        raise DataError(f"must be one of {', '.join(sorted(DOCQA_ANSWER_FORMATS))}", field="answer_format")
    if "answer" not in record:
        raise DataError("missing", field="answer")
    return Record(_id(record), context, question, pages, record["answer"], {"answer_format": answer_format})


READERS = {
    "vrag": read_vrag, "vh": read_vh, "mm_niah_text": read_mm_niah_text,
    "mm_niah_image_count": read_mm_niah_image_count, "mm_niah_image_mc": read_mm_niah_image_mc,
    "gov_report": read_gov_report, "multi_lexsum": read_multi_lexsum, "docqa": read_docqa,
}


def interleave(text: str, images: list[str], start: int) -> tuple[list[Part], int]:
    """Split ``text`` at ``<image>`` and put the next image of ``images`` (from ``start``) at each mark."""
    pieces = text.split(IMAGE_TAG)
    parts: list[Part] = []
    used = start
    for index, piece in enumerate(pieces):
        if piece:
            parts.append(TextPart(piece))
        if index < len(pieces) - 1:
            if used >= len(images):
                raise DataError(f"more {IMAGE_TAG} marks than images ({len(images)})", field="image_list")
            parts.append(ImagePart(images[used]))
            used += 1
    return parts, used


def record_to_sample(record: Record, info: DatasetInfo, official: OfficialFile, *, occurrence: int, position: int,
                     image_root: Path | None, keypoints: list[str] | None = None,
                  media: MediaChecker | None = None) -> Sample:
    """A prepared record as a niah sample. ``occurrence`` counts the rows of the same id seen before (the depth
    row); ``position`` is the row's place among the kept rows of its file (the visual-haystack default answer
    cycles over it, as the official scorer does). With ``media`` every image must be a decodable image."""
    if media is not None:
        for index, rel in enumerate(record.images):
            media.check(rel, "image", field=f"images[{index}]")
    elif image_root is not None:
        for index, rel in enumerate(record.images):
            resolve_under(image_root, rel, field=f"images[{index}]")
    context, used = interleave(record.context, record.images, 0)
    question, used = interleave(record.question, record.images, used)
    if used != len(record.images):
        raise DataError(f"{len(record.images)} images but {used} {IMAGE_TAG} marks (the official chat formatting "
                        "asserts they match)", field="image_list")
    meta: dict[str, Any] = {
        "dataset": info.name, "category": info.category, "length_k": official.length_k,
        "input_max_length": official.length_k * 1024, "record_id": record.record_id, "metric": info.metric,
        "prompt": info.prompt, "max_new_tokens": info.max_new_tokens, "num_images": len(record.images),
        "position": position, "source_file": official.relative_path,
    }
    if official.depths is not None:
        meta["depth_index"] = occurrence
    meta.update(record.extra)
    if keypoints is not None:
        meta["keypoints"] = keypoints
    suffix = f"/{occurrence}" if official.depths is not None else ""
    return Sample(id=f"{info.name}/K{official.length_k}/{record.record_id}{suffix}", benchmark=BENCHMARK,
                  task=info.name, context=context, question=question, answer=record.answer, meta=meta)


def _choose(keys: Sequence[Any], limit: int | None, rng: random.Random) -> set[Any]:
    if limit is None or limit >= len(keys):
        return set(keys)
    return set(rng.sample(list(keys), limit))


def _rng(seed: int, info: DatasetInfo, length_k: int) -> random.Random:
    return random.Random(f"{seed}:{info.name}:K{length_k}")


def _read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    for lineno, row in iter_jsonl(path, what="official file"):
        if not isinstance(row, dict):
            raise DataError("each line must be a JSON object", file=path, line=lineno)
        rows.append((lineno, row))
    return rows


def read_claims(path: Path) -> dict[Any, list[str]]:
    """``{id, claims: [str]}`` lines -> id -> key points."""
    out: dict[Any, list[str]] = {}
    for lineno, row in iter_jsonl(path, what="claims file"):
        if not isinstance(row, dict) or "id" not in row:
            raise DataError("must be an object with 'id'", file=path, line=lineno)
        claims = row.get("claims")
        if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
            raise DataError("must be a list of strings", file=path, line=lineno, field="claims")
        out[row["id"]] = claims
    return out


def load_file(path: str | Path, *, relative: str | None = None, image_root: str | Path | None = None,
              max_samples: int | None | str = "official", seed: int = 0,
              claims: dict[Any, list[str]] | None = None, media: MediaChecker | None = None,
              ) -> tuple[list[Sample], FileReport]:
    """Read one official file into samples, sampled as the official config does (``max_samples="official"``;
    None keeps every row; an int overrides the count). ``relative`` is the name used to recognise the data
    set (default: the last two path components). Images are checked to be decodable images under
    ``image_root`` (``media``, shared across files, remembers what it checked); every sample's gold must be
    one its official rule can score; a file without rows is an error."""
    path = Path(path)
    official = parse_official_file(relative or "/".join(path.parts[-2:]))
    info = official.dataset
    limit = info.max_samples if max_samples == "official" else max_samples
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise DataError(f"sample count must be a positive integer, got {limit!r}")
    root = Path(image_root) if image_root is not None else None
    if media is None and root is not None:
        media = MediaChecker(root)
    report = FileReport(path)
    rng = _rng(seed, info, official.length_k)
    if info.loader == "icl":
        return _load_icl(path, official, root, limit, rng, report, media), report
    rows = _read_rows(path)
    if not rows:
        raise DataError("the official file holds no records", file=path)
    report.rows = len(rows)
    known = KNOWN_FIELDS[info.loader]
    prepared: list[tuple[int, Record]] = []
    for lineno, row in rows:
        report.unknown_fields.update(k for k in row if k not in known)
        try:
            record = READERS[info.loader](row)
        except DataError as exc:
            raise DataError(exc.message, file=path, line=lineno, field=exc.field) from None
        if isinstance(record, str):
            report.dropped[record] = report.dropped.get(record, 0) + 1
            continue
        prepared.append((lineno, record))
    if info.loader in ("gov_report", "multi_lexsum", "docqa"):
        chosen_rows = _choose(range(len(prepared)), limit, rng)
        kept = [item for index, item in enumerate(prepared) if index in chosen_rows]
    else:
        ids = sorted({_key(record.record_id) for _, record in prepared})
        chosen = _choose(ids, limit, rng)
        kept = [item for item in prepared if _key(item[1].record_id) in chosen]
    samples: list[Sample] = []
    sample_ids: set[str] = set()
    seen: dict[Any, int] = {}
    for position, (lineno, record) in enumerate(kept):
        occurrence = seen.get(_key(record.record_id), 0)
        seen[_key(record.record_id)] = occurrence + 1
        keypoints = None
        if claims is not None:
            keypoints = claims.get(record.record_id)
            if keypoints is None:
                raise DataError(f"no key points for id {record.record_id!r} in the claims file", file=path,
                                line=lineno, field="id")
        try:
            sample = record_to_sample(record, info, official, occurrence=occurrence, position=position,
                                      image_root=root, keypoints=keypoints, media=media)
            _check_gold(sample)
            check_sample_values(sample)
        except DataError as exc:
            raise DataError(exc.message, file=path, line=lineno, field=exc.field) from None
        if sample.id in sample_ids:
            raise DataError(f"id {record.record_id!r} appears twice (sample {sample.id!r})", file=path, line=lineno,
                            field="id")
        sample_ids.add(sample.id)
        samples.append(sample)
    report.kept = len(samples)
    return samples, report


def _check_gold(sample: Sample) -> None:
    """Refuse a gold its official rule cannot score (e.g. a DocVQA ``List`` answer that is not a JSON list):
    the rule is run on a failed request, which checks the gold without any model output."""
    from niah.benchmarks.mmlongbench.score import score_sample
    from niah.scoring.metrics.base import MetricInputError

    try:
        score_sample(sample, None)
    except MetricInputError as exc:
        raise DataError(exc.message, field=exc.field) from None


def _key(value: Any) -> tuple[str, str]:
    """Ids may be ints or strings; sort and compare them without mixing types."""
    return (type(value).__name__, str(value))


def _load_icl(path: Path, official: OfficialFile, root: Path | None, limit: int | None, rng: random.Random,
              report: FileReport, media: MediaChecker | None = None) -> list[Sample]:
    doc = read_json_file(path, what="ICL file")
    if not isinstance(doc, dict):
        raise DataError("an ICL file is an object keyed by domain", file=path)
    tests: list[tuple[str, int, dict[str, Any]]] = []
    exemplars: dict[str, list[list[list[dict[str, Any]]]]] = {}
    for domain, entry in doc.items():
        where = f"{domain}"
        if not isinstance(entry, dict):
            raise DataError("must be {exemplar_list, test_example}", file=path, field=where)
        report.unknown_fields.update(f"{domain}.{k}" for k in entry if k not in ("exemplar_list", "test_example"))
        sets = entry.get("exemplar_list")
        if not isinstance(sets, list) or not sets:
            raise DataError("must be a non-empty list of demonstration sets", file=path, field=f"{where}.exemplar_list")
        for s_index, rounds in enumerate(sets):
            if not isinstance(rounds, list):
                raise DataError("must be a list of rounds", file=path, field=f"{where}.exemplar_list[{s_index}]")
            for r_index, items in enumerate(rounds):
                if not isinstance(items, list):
                    raise DataError("must be a list of {image, id}", file=path,
                                    field=f"{where}.exemplar_list[{s_index}][{r_index}]")
                for i_index, item in enumerate(items):
                    if not isinstance(item, dict) or not isinstance(item.get("image"), str) or "id" not in item:
                        raise DataError("must be {image: str, id}", file=path,
                                        field=f"{where}.exemplar_list[{s_index}][{r_index}][{i_index}]")
        exemplars[domain] = sets
        examples = entry.get("test_example")
        if not isinstance(examples, list):
            raise DataError("must be a list of {image, answer}", file=path, field=f"{where}.test_example")
        for index, example in enumerate(examples):
            if not isinstance(example, dict) or not isinstance(example.get("image"), str) or "answer" not in example:
                raise DataError("must be {image: str, answer}", file=path, field=f"{where}.test_example[{index}]")
            tests.append((domain, index, example))
    report.rows = len(tests)
    chosen = _choose(range(len(tests)), limit, rng)
    samples: list[Sample] = []
    for position, (domain, index, example) in enumerate(t for i, t in enumerate(tests) if i in chosen):
        demo_set = [list(items) for items in rng.choice(exemplars[domain])]
        for items in demo_set:
            rng.shuffle(items)
        flat = [item for items in demo_set for item in items]
        record = Record(f"{domain}/{index}", "\n\n".join(ICL_ITEM_TEMPLATE.format(label=item["id"]) for item in flat),
                        IMAGE_TAG, [item["image"] for item in flat] + [example["image"]], example["answer"],
                        {"domain": domain})
        try:
            sample = record_to_sample(record, official.dataset, official, occurrence=0, position=position,
                                      image_root=root, media=media)
            check_sample_values(sample)
            samples.append(sample)
        except DataError as exc:
            raise DataError(exc.message, file=path, field=f"{domain}.test_example[{index}].{exc.field}") from None
    report.kept = len(samples)
    return samples


def find_official_files(data_root: Path, datasets: Sequence[str] | None = None,
                        lengths: Sequence[int] | None = None) -> list[tuple[str, Path]]:
    """The official files present under ``data_root`` (relative name, path), in data-set then length order.

    Every ``.jsonl``/``.json`` file of the data folders must be an official file (or a summarization key-point
    file): any other is a :class:`DataError` naming it and listing the official names, so that a misnamed file
    (``vh_single_K8.jsonl``, a ``K9``) is never skipped in silence. Official files outside ``datasets`` or
    ``lengths`` are left out."""
    from niah.benchmarks.mmlongbench.datasets import LENGTHS_K, official_file_name

    names = list(datasets) if datasets else list(DATASETS)
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        raise DataError(f"unknown MMLongBench data set(s) {', '.join(unknown)}; known: {', '.join(DATASETS)}")
    aside = {f"summ/{name}" for name in CLAIMS_FILES.values()}
    for folder in sorted({d.folder for d in DATASETS.values()}):
        if not (data_root / folder).is_dir():
            continue
        for path in sorted((data_root / folder).iterdir()):
            relative = f"{folder}/{path.name}"
            if path.suffix not in (".jsonl", ".json") or not path.is_file() or relative in aside:
                continue
            try:
                parse_official_file(relative)
            except DataError as exc:
                raise DataError(f"{exc.message}; the import reads every .jsonl and .json of the data folders (the "
                                f"key-point files {', '.join(sorted(aside))} aside): move this one out or give it "
                                f"its official name", file=path) from None
    found: list[tuple[str, Path]] = []
    for name in names:
        for k in lengths or LENGTHS_K:
            relative = official_file_name(name, k)
            if (data_root / relative).is_file():
                found.append((relative, data_root / relative))
    return found


def iter_import(data_root: str | Path, image_root: str | Path, *, datasets: Sequence[str] | None = None,
                lengths: Sequence[int] | None = None, max_samples: int | None | str = "official", seed: int = 0,
                ) -> Iterator[tuple[list[Sample], FileReport]]:
    root = Path(data_root)
    files = find_official_files(root, datasets, lengths)
    if not files:
        raise DataError("no official MMLongBench file found (expected e.g. NIAH/vh_single_test_1000_K8_dep6.jsonl)",
                        file=root)
    claims_cache: dict[str, dict[Any, list[str]]] = {}
    media = MediaChecker(image_root)
    for relative, path in files:
        info = parse_official_file(relative).dataset
        claims = None
        if info.name in CLAIMS_FILES and (root / "summ" / CLAIMS_FILES[info.name]).is_file():
            if info.name not in claims_cache:
                claims_cache[info.name] = read_claims(root / "summ" / CLAIMS_FILES[info.name])
            claims = claims_cache[info.name]
        yield load_file(path, relative=relative, image_root=image_root, max_samples=max_samples, seed=seed,
                        claims=claims, media=media)


def write_mmlongbench_dataset(data_root: str | Path, image_root: str | Path, out_dir: str | Path, *,
                              datasets: Sequence[str] | None = None, lengths: Sequence[int] | None = None,
                              max_samples: int | None | str = "official", seed: int = 0,
                              ) -> tuple[Dataset, list[FileReport]]:
    """Import the official files under ``data_root`` into a niah dataset (atomic). Images stay in
    ``image_root``; the returned Dataset may read them (the caller named that folder)."""
    image_root = Path(image_root)
    if not image_root.is_dir():
        raise DataError("image root is not a directory", file=image_root)
    reports: list[FileReport] = []
    tasks: list[str] = []
    with DatasetWriter(out_dir) as writer:
        for samples, report in iter_import(data_root, image_root, datasets=datasets, lengths=lengths,
                                           max_samples=max_samples, seed=seed):
            for sample in samples:
                writer.write(sample)
                if sample.task not in tasks:
                    tasks.append(sample.task)
            reports.append(report)
        writer.finish({
            "benchmark": BENCHMARK, "source": "mmlongbench-official", "tasks": tasks, "seed": seed,
            "max_samples": max_samples, "media_root": str(image_root.resolve()),
            "files": {str(r.path.relative_to(Path(data_root))): {"rows": r.rows, "kept": r.kept, "dropped": r.dropped,
                                                                 "unknown_fields": sorted(r.unknown_fields)}
                      for r in reports},
        })
    return Dataset(out_dir, media_roots=(image_root,)), reports
