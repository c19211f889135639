"""MM-NIAH official files: annotations in, response files in and out, and the official score aggregation.

* :func:`load_annotations` / :func:`import_annotations` read the released ``mm_niah_{val,test}/annotations/
  <task>.jsonl`` files into niah samples (images are read in place through the manifest's ``media_root``).
* :func:`read_response_file` / :func:`score_response_files` reproduce ``calculate_scores.py`` on official
  response files ``{model}_{task}-{val|test|rag-val|rag-test}.jsonl``.
* :func:`bin_scores` / :func:`aggregate_task_scores` are the aggregation itself, reusable for niah runs.
* :func:`write_official_responses` writes a niah run as official response files.

Aggregation, exactly as the official script (quirks listed):

* Context bins: ``numpy.digitize(context_length, [1000, 2000, 4000, 8000, 12000, 16000, 24000, 32000, 40000,
  48000, 64000])``; bin 0 (under 1000 tokens) is dropped, everything at or over 64000 is the ``64k`` bin.
* Depth: the mean of a list of depths (``sum / len``, in floating point); exactly ``1.0`` becomes ``0.99``;
  the depth cell is ``int(depth / 0.2)``, so floating point puts ``0.6`` in cell 2 (``0.6 / 0.2`` is
  ``2.9999999999999996``) and a mean such as ``(0.2 + 0.4) / 2`` lands in cell 1.
* Cell accuracy = sum of scores / count; an empty cell counts as 0 (not skipped).
* A bin's score = the mean of its 5 depth cells (empty ones included), rounded to 6 decimals.
* ``overall`` = per-bin mean over the tasks' already rounded scores, rounded to 6 decimals, written only when all
  6 tasks are present. ``context_ranges`` = ``["1k", ..., "64k"]``.

Deliberate differences from the script, all for inputs it cannot handle: a ``null`` response scores 0 (the script
crashes on it); a depth outside [0, 1] is an error (the script indexes out of range or wraps around); whether a
file is a counting file is decided from its task name, not from ``'counting' in <whole path>``; tasks enter
``overall`` in the canonical task order rather than directory-listing order (this can only move the last bit
before rounding).
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.benchmarks.mm_niah import bins
from niah.benchmarks.mm_niah.metrics import score_mm_niah_official
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
from niah.util.errors import ConfigError, DataError
from niah.util.iox import claim_output_dir, dumps_line, iter_jsonl, resolve_under, write_atomic

BENCHMARK = "mm-niah"
#: The six tasks, in the order the paper and leaderboard list them.
TASKS: tuple[str, ...] = (
    "retrieval-text", "retrieval-image", "counting-text", "counting-image", "reasoning-text", "reasoning-image",
)
#: Split suffixes of response files, in the order the official script tests them ("rag-val" before "val").
SPLITS: tuple[str, ...] = ("rag-val", "val", "rag-test", "test")
CONTEXT_BIN_EDGES: tuple[int, ...] = bins.CONTEXT_EDGES
CONTEXT_RANGES: list[str] = list(bins.CONTEXT_LABELS)
DEPTH_INTERVAL = bins.DEPTH_STEP
DEPTH_CELLS = bins.NUM_DEPTH_CELLS
IMAGE_PLACEHOLDER = "<image>"
MC_INSTRUCTION = "Answer with the option's letter from the given choices directly."
OPEN_INSTRUCTION = "Answer the question using a single word or phrase."
#: What the official evaluation scripts write as the response of a failed generation (a string, not null).
FAILED_RESPONSE = "None"
CATEGORIES = frozenset({"find-text", "find-image", "count-text", "count-image", "infer-choose", "visual-reasoning"})


# ------------------------------------------------------------------------------------------- aggregation


def mean_depth(placed_depth: Any, *, field: str = "placed_depth") -> float:
    """The official depth of a sample: the mean of a list (``sum / len``) or the number itself; 1.0 -> 0.99."""
    if isinstance(placed_depth, list):
        if not placed_depth or not all(_is_number(d) for d in placed_depth):
            raise DataError("must be a number or a non-empty list of numbers", field=field)
        depth = sum(placed_depth) / len(placed_depth)
    elif _is_number(placed_depth):
        depth = placed_depth
    else:
        raise DataError("must be a number or a non-empty list of numbers", field=field)
    if not 0.0 <= depth <= 1.0:
        raise DataError(f"depth {depth} is outside [0, 1]", field=field)
    if depth == 1.0:
        depth = 0.99
    return float(depth)


def depth_cell(depth: float) -> int:
    """``int(depth / 0.2)`` for a depth already passed through :func:`mean_depth` (0.6 -> 2, not 3)."""
    return bins.depth_cell(depth)


def context_bin(context_length: float) -> int:
    """``numpy.digitize`` against the official edges: 0 below 1000 (dropped), 1..11 for 1k..64k."""
    b = bins.context_bin(context_length)
    return 0 if b is None else b + 1


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class ScoredSample:
    """One scored sample as the aggregation needs it (``depth`` may be a list, as ``placed_depth``)."""

    context_length: float
    depth: float | list[float]
    score: float


def checked_length(context_length: Any) -> float:
    """A sample's context length as the official aggregation reads it: a finite number."""
    if not _is_number(context_length):
        raise DataError("must be a number", field="context_length")
    return float(context_length)


def sample_cell(context_length: Any, depth: Any) -> tuple[int | None, int]:
    """The official (context bin, None under 1000 tokens; depth cell) of one sample, its fields checked."""
    return bins.context_bin(checked_length(context_length)), bins.depth_cell(mean_depth(depth))


def bin_scores(rows: Iterable[ScoredSample | tuple[float, Any, float]]) -> list[float]:
    """The 11 official bin scores of one task from (context_length, depth, score) rows."""
    checked: list[tuple[float, float, float]] = []
    for row in rows:
        length, depth, score = (
            (row.context_length, row.depth, row.score) if isinstance(row, ScoredSample) else row
        )
        checked.append((checked_length(length), mean_depth(depth), score))
    # the one binning implementation (niah.benchmarks.mm_niah.bins), shared with reports
    acc, _counts = bins.cell_table(checked)
    return bins.bin_scores(acc)


def base_task(task_name: str) -> str:
    """The canonical task a score key stands for: ``retrieval-text-val`` -> ``retrieval-text``."""
    for task in TASKS:
        if task_name == task or task_name.startswith(task + "-"):
            return task
    raise ConfigError(f"{task_name!r} is not an MM-NIAH task (expected one of {', '.join(TASKS)})")


def is_official_task(task_name: str) -> bool:
    """Whether a task is one of the six (``image-count``, a probe niah adds, is not)."""
    return any(task_name == task or task_name.startswith(task + "-") for task in TASKS)


def aggregate_task_scores(task_scores: dict[str, list[float]]) -> dict[str, Any]:
    """The official score structure from per-task bin scores: tasks (canonical order), ``overall`` when all
    6 tasks are present, ``context_ranges``."""
    import numpy as np

    ordered = sorted(task_scores, key=lambda name: (TASKS.index(base_task(name)), name))
    out: dict[str, Any] = {name: list(task_scores[name]) for name in ordered}
    if len(ordered) != len(set(map(base_task, ordered))):
        raise ConfigError(f"a task appears more than once: {ordered}")
    if {base_task(name) for name in ordered} == set(TASKS):
        overall = np.array([task_scores[name] for name in ordered]).mean(axis=0).tolist()
        out["overall"] = [round(value, 6) for value in overall]
    out["context_ranges"] = list(CONTEXT_RANGES)
    return out


# ------------------------------------------------------------------------------------------- response files


@dataclass(frozen=True)
class ResponseFileName:
    model: str
    task: str
    split: str

    @property
    def task_name(self) -> str:
        """The official score key, e.g. ``retrieval-text-val``."""
        return f"{self.task}-{self.split}"


def parse_response_filename(path: str | Path) -> ResponseFileName:
    """Split ``{model}_{task}-{split}.jsonl`` the official way (``rsplit('_', 1)``, split suffix tested in the
    order rag-val, val, rag-test, test)."""
    name = Path(path).name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    if "_" not in stem:
        raise DataError("response file name must be {model}_{task}-{split}.jsonl", file=path)
    model, task_name = stem.rsplit("_", 1)
    for split in SPLITS:
        if task_name.endswith(split):
            task = task_name[: -len(split)].rstrip("-")
            if task not in TASKS:
                break
            return ResponseFileName(model=model, task=task, split=split)
    raise DataError(
        f"response file name must be {{model}}_{{task}}-{{split}}.jsonl with task in {', '.join(TASKS)} and "
        f"split in {', '.join(SPLITS)}; got {name!r}",
        file=path,
    )


def read_response_file(path: str | Path, *, task: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, row)`` of an official response file with ``answer`` decoded as the scorer does.

    A counting task's answer that arrives as a JSON string is parsed into its list. ``response`` must be a
    string or null (null scores 0); ``context_length`` a number; ``placed_depth`` a number or list of numbers.
    """
    if task is None:
        task = parse_response_filename(path).task
    for lineno, obj in iter_jsonl(path, what="response file"):
        try:
            yield lineno, _check_response_row(obj, task)
        except DataError as exc:
            raise exc.located(file=path, line=lineno) from None


def _check_response_row(obj: Any, task: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise DataError("a response line must be a JSON object")
    for name in ("answer", "response", "context_length", "placed_depth"):
        if name not in obj:
            raise DataError("missing", field=name)
    response = obj["response"]
    if response is not None and not isinstance(response, str):
        raise DataError("must be a string or null", field="response")
    if not _is_number(obj["context_length"]):
        raise DataError("must be a number", field="context_length")
    mean_depth(obj["placed_depth"])  # validates
    answer = obj["answer"]
    if task.startswith("counting") and not isinstance(answer, list):
        if not isinstance(answer, str):
            raise DataError("a counting answer must be a list or a JSON string of a list", field="answer")
        try:
            answer = json.loads(answer)
        except json.JSONDecodeError as exc:
            raise DataError(f"counting answer is not JSON: {exc.msg}", field="answer") from None
        if not isinstance(answer, list):
            raise DataError("a counting answer must decode to a list", field="answer")
    row = dict(obj)
    row["answer"] = answer
    return row


def score_response_file(path: str | Path) -> list[float]:
    """The 11 official bin scores of one response file."""
    parsed = parse_response_filename(path)
    rows = []
    for lineno, row in read_response_file(path, task=parsed.task):
        try:
            score = score_mm_niah_official(row["answer"], row["response"])
        except ValueError as exc:
            raise DataError(str(exc), file=path, line=lineno, field=getattr(exc, "field", None)) from None
        rows.append(ScoredSample(row["context_length"], row["placed_depth"], score))
    return bin_scores(rows)


def score_response_files(paths: Sequence[str | Path]) -> dict[str, Any]:
    """Score official response files of ONE model and ONE split into the official ``scores_{split}.json``
    structure (keys like ``retrieval-text-val``)."""
    if not paths:
        raise ConfigError("no response files given")
    names = [parse_response_filename(p) for p in paths]
    groups = {(n.model, n.split) for n in names}
    if len(groups) != 1:
        listed = ", ".join(f"{m} / {s}" for m, s in sorted(groups))
        raise ConfigError(f"response files must share one model and one split; got {listed}")
    seen: dict[str, Path] = {}
    for name, path in zip(names, paths, strict=True):
        if name.task_name in seen:
            raise ConfigError(f"two files for {name.task_name}: {seen[name.task_name]} and {path}")
        seen[name.task_name] = Path(path)
    return aggregate_task_scores({name.task_name: score_response_file(path) for name, path in zip(names, paths,
                                                                                                   strict=True)})


# ------------------------------------------------------------------------------------------- writing responses


def official_question_id(sample: Sample, index_in_task: int) -> int:
    """The ``question_id`` of a sample: ``meta.official_id`` when imported, else the trailing number of the
    sample id (``retrieval-text/000123`` -> 123), else its 0-based position within its task."""
    official_id = sample.meta.get("official_id")
    if isinstance(official_id, int) and not isinstance(official_id, bool):
        return official_id
    match = re.search(r"(\d+)$", sample.id)
    return int(match.group(1)) if match else index_in_task


def official_question_text(sample: Sample) -> str:
    """The question as the official evaluation builds it: images as ``<image>``, then each option on its own
    line as ``X. text`` (``X. <image>`` for image options), then the instruction line."""
    question = "".join(p.text if isinstance(p, TextPart) else IMAGE_PLACEHOLDER for p in sample.question)
    if sample.choices:
        for index, choice in enumerate(sample.choices):
            text = "".join(p.text if isinstance(p, TextPart) else IMAGE_PLACEHOLDER for p in choice)
            question = f"{question}\n{chr(65 + index)}. {text}"
        return question + "\n" + MC_INSTRUCTION
    return question + "\n" + OPEN_INSTRUCTION


def _latest_responses(responses_path: Path) -> dict[str, dict[str, Any]]:
    """Response rows by sample id; when a resumed run recorded an id twice, the later row wins."""
    rows: dict[str, dict[str, Any]] = {}
    for lineno, obj in iter_jsonl(responses_path):
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            raise DataError("a response row must be an object with a string 'id'", file=responses_path,
                            line=lineno, field="id")
        response = obj.get("response")
        if response is not None and not isinstance(response, str):
            raise DataError("must be a string or null", file=responses_path, line=lineno, field="response")
        rows[obj["id"]] = obj
    return rows


def write_official_responses(
    run_dir: str | Path,
    dataset: str | Path | Dataset,
    out_dir: str | Path,
    model_name: str,
    split: str,
    *,
    allow_missing: bool = False,
) -> list[Path]:
    """Write a niah run's MM-NIAH responses as official files ``{model_name}_{task}-{split}.jsonl``.

    Each line is ``{"question_id", "question", "answer", "response", "context_length", "placed_depth"}`` with
    the gold answer's JSON type preserved and ``placed_depth`` the sample's depth list. A failed request (no
    response text) is written as the string ``"None"``, which is what the official evaluation scripts write and
    what ``calculate_scores.py`` can read (it crashes on JSON null); it scores 0 in every branch unless the gold
    is literally "none". A sample without any response row is an error unless ``allow_missing``.
    Returns the written paths (one per task present), each written atomically.
    """
    if split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)}; got {split!r}")
    if not model_name or "/" in model_name or "\\" in model_name or model_name in (".", ".."):
        raise ConfigError(f"model name {model_name!r} cannot be used in a file name")
    run_dir = Path(run_dir)
    ds = dataset if isinstance(dataset, Dataset) else Dataset(dataset)
    responses = _latest_responses(run_dir / "responses.jsonl")
    lines: dict[str, list[str]] = defaultdict(list)
    index_in_task: dict[str, int] = defaultdict(int)
    missing: list[str] = []
    for sample in ds:
        if sample.benchmark != BENCHMARK or not is_official_task(sample.task):
            continue  # other benchmarks, and probes outside the six tasks (no leaderboard file exists for them)
        task = base_task(sample.task)
        position = index_in_task[task]
        index_in_task[task] += 1
        row = responses.get(sample.id)
        if row is None:
            missing.append(sample.id)
            continue
        depth = sample.meta.get("depth")
        placed_depth = depth if isinstance(depth, list) else [depth]
        context_length = sample.meta.get("context_length")
        try:
            mean_depth(placed_depth, field="meta.depth")
            if not _is_number(context_length):
                raise DataError("must be a number", field="meta.context_length")
        except DataError as exc:
            raise DataError(f"sample {sample.id!r}: {exc.message}", file=ds.samples_path, field=exc.field) from None
        response = row.get("response")
        lines[task].append(dumps_line({
            "question_id": official_question_id(sample, position),
            "question": official_question_text(sample),
            "answer": sample.answer,
            "response": response if response is not None else FAILED_RESPONSE,
            "context_length": context_length,
            "placed_depth": placed_depth,
        }))
    if missing and not allow_missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise DataError(f"{len(missing)} sample(s) have no response: {shown}", file=run_dir / "responses.jsonl")
    out_dir = Path(out_dir)
    # a folder niah made for response files (or one holding only such files), or a new or empty one: never
    # the user's own folder (the current one, a home folder), where a file of the same name would be replaced
    claim_output_dir(out_dir, kind="mm-niah responses", ours=_holds_only_response_files)
    written = []
    for task in TASKS:
        if task in lines:
            path = out_dir / f"{model_name}_{task}-{split}.jsonl"
            write_atomic(path, "".join(lines[task]))
            written.append(path)
    return written


# ------------------------------------------------------------------------------------------- annotations


def _holds_only_response_files(folder: Path) -> bool:
    """Whether ``folder`` holds nothing but official response files (what this export wrote before its folders
    were marked)."""
    try:
        entries = list(folder.iterdir())
        for entry in entries:
            if not entry.is_file() or entry.is_symlink():
                return False
            parse_response_filename(entry)
    except (OSError, DataError):
        return False
    return bool(entries)


def _task_of_file(path: Path) -> str:
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.stem
    for task in TASKS:
        if stem == task or stem.startswith(task + "-"):
            return task
    raise DataError(f"file name must start with an MM-NIAH task ({', '.join(TASKS)})", file=path)


def _split_placeholders(text: str, images: list[str], start: int) -> tuple[list[Part], int]:
    """Text with ``<image>`` placeholders -> interleaved parts, taking images from ``start`` on."""
    parts: list[Part] = []
    pieces = text.split(IMAGE_PLACEHOLDER)
    index = start
    for k, piece in enumerate(pieces):
        if piece:
            parts.append(TextPart(piece))
        if k < len(pieces) - 1:
            parts.append(ImagePart(images[index]))
            index += 1
    return parts, index


def _require(obj: dict[str, Any], name: str, types: type | tuple[type, ...], what: str) -> Any:
    if name not in obj:
        raise DataError("missing", field=name)
    value = obj[name]
    if not isinstance(value, types) or isinstance(value, bool):
        raise DataError(f"must be {what}", field=name)
    return value


def annotation_to_sample(obj: Any, task: str, images_root: Path, media: MediaChecker | None = None) -> Sample:
    """Convert one annotation record (already JSON-decoded) into a :class:`Sample`.

    Images follow placeholder order over ``context + "\\n" + question`` (context images first, then question
    images); image options become image choices (appended after ``images_list`` in the official prompt).
    ``meta`` keeps: ``depth`` (``placed_depth`` as a list), ``context_length``, ``text_tokens``
    (``context_length_text``), ``image_tokens`` (``context_length_image``), ``num_images``, ``needles``,
    ``category``, ``official_id``, and the token rule names ``mm-niah-official`` (lengths as released).
    With ``media``, every image must also be a decodable image file under its root.
    """
    if not isinstance(obj, dict):
        raise DataError("an annotation line must be a JSON object")
    record_id = _require(obj, "id", int, "an integer")
    images = _require(obj, "images_list", list, "a list of image paths")
    for i, rel in enumerate(images):
        if not isinstance(rel, str) or not rel:
            raise DataError("must be a non-empty string", field=f"images_list[{i}]")
        _check_image(rel, images_root, media, f"images_list[{i}]")
    context = _require(obj, "context", str, "a string")
    question = _require(obj, "question", str, "a string")
    # the test split's ground truth is private: its records have no answer (or null); such samples run and
    # export like any other, and scoring says that gold is missing
    answer = obj.get("answer")
    meta = _require(obj, "meta", dict, "an object")
    placeholders = context.count(IMAGE_PLACEHOLDER) + question.count(IMAGE_PLACEHOLDER)
    if placeholders != len(images):
        raise DataError(f"{placeholders} <image> placeholders in context+question but {len(images)} images",
                        field="images_list")
    kept = _official_meta(meta)
    choices = _choices(meta, images_root, media)
    answer = _checked_answer(answer, task, choices)
    context_parts, next_image = _split_placeholders(context, images, 0)
    question_parts, _ = _split_placeholders(question, images, next_image)
    return Sample(
        id=f"{task}/{record_id:06d}" if record_id >= 0 else f"{task}/{record_id}",
        benchmark=BENCHMARK,
        task=task,
        context=context_parts,
        question=question_parts,
        answer=answer,
        choices=choices,
        meta={"official_id": record_id, **kept,
              "tokenizer": "mm-niah-official", "image_tokens_rule": "mm-niah-official"},
    )


def _check_image(rel: str, images_root: Path, media: MediaChecker | None, field: str) -> None:
    """An image path of the record: a decodable image file under its root with ``media``, else a path that
    stays under ``images_root``."""
    if media is not None:
        media.check(rel, "image", field=field)
    else:
        resolve_under(images_root, rel, field=field)


def _official_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """What a sample's meta keeps of the record's (checked): context_length, text_tokens, image_tokens,
    num_images, depth, needles, category, in that order."""
    if "placed_depth" not in meta:
        raise DataError("missing", field="meta.placed_depth")
    placed_depth = meta["placed_depth"]
    mean_depth(placed_depth, field="meta.placed_depth")
    depth = [float(d) for d in placed_depth] if isinstance(placed_depth, list) else [float(placed_depth)]
    numbers = {}
    for source in ("context_length", "context_length_text", "context_length_image", "num_images"):
        value = meta.get(source)
        if not isinstance(value, int) or isinstance(value, bool):
            raise DataError("must be an integer", field=f"meta.{source}")
        numbers[source] = value
    needles = meta.get("needles", [])
    if not isinstance(needles, list) or not all(isinstance(n, str) for n in needles):
        raise DataError("must be a list of strings (text needles, or image paths for image needles)",
                        field="meta.needles")
    category = meta.get("category")
    if category is not None and category not in CATEGORIES:
        raise DataError(f"unknown category {category!r}", field="meta.category")
    return {"context_length": numbers["context_length"], "text_tokens": numbers["context_length_text"],
            "image_tokens": numbers["context_length_image"], "num_images": numbers["num_images"],
            "depth": depth, "needles": needles, "category": category}


def _choices(meta: dict[str, Any], images_root: Path, media: MediaChecker | None) -> list[list[Part]] | None:
    """The record's options: text (``meta.choices``) or images (``meta.choices_image_path``), never both."""
    text_choices = meta.get("choices")
    image_choices = meta.get("choices_image_path")
    if text_choices is not None and image_choices is not None:
        raise DataError("only one of choices / choices_image_path may be set", field="meta.choices")
    if text_choices is not None:
        if not isinstance(text_choices, list) or not all(isinstance(c, str) for c in text_choices):
            raise DataError("must be a list of strings", field="meta.choices")
        return [[TextPart(c)] for c in text_choices]
    if image_choices is not None:
        if not isinstance(image_choices, list) or not all(isinstance(c, str) and c for c in image_choices):
            raise DataError("must be a list of image paths", field="meta.choices_image_path")
        for i, rel in enumerate(image_choices):
            _check_image(rel, images_root, media, f"meta.choices_image_path[{i}]")
        return [[ImagePart(c)] for c in image_choices]
    return None


def _checked_answer(answer: Any, task: str, choices: list[list[Part]] | None) -> Any:
    """The record's answer, checked against its task and options (a counting answer decoded from its JSON
    string); None stays None (no gold: the test split)."""
    if answer is not None and task.startswith("counting") and isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except json.JSONDecodeError as exc:
            raise DataError(f"counting answer is not JSON: {exc.msg}", field="answer") from None
    if answer is not None and (isinstance(answer, bool) or not isinstance(answer, (int, str, list))):
        raise DataError("must be a string, an integer option index, a list of counts, or null (no gold: the "
                        "test split)", field="answer")
    if answer is not None and task.startswith("counting") and not isinstance(answer, list):
        raise DataError("a counting answer must be a list", field="answer")
    if isinstance(answer, int):
        if choices is None:
            raise DataError("an integer (option index) answer needs choices", field="answer")
        if not 0 <= answer < len(choices):
            raise DataError(f"option index {answer} out of range for {len(choices)} choices", field="answer")
    return answer


def load_annotations(annotation_jsonl: str | Path, images_root: str | Path, *,
                     media: MediaChecker | None = None) -> Iterator[Sample]:
    """Stream the samples of one official annotation file; the task is the file name's task prefix
    (``retrieval-text.jsonl``, ``retrieval-text-300subset.jsonl``). Bad lines raise :class:`DataError` naming
    file, line and field; with ``media`` (a checker over ``images_root``) so do missing or undecodable images.
    A file without any record is an error too."""
    path = Path(annotation_jsonl)
    task = _task_of_file(path)
    root = Path(images_root)
    seen: set[str] = set()
    for lineno, obj in iter_jsonl(path, what="annotation file"):
        try:
            sample = annotation_to_sample(obj, task, root, media)
            check_sample_values(sample)
        except DataError as exc:
            raise exc.located(file=path, line=lineno) from None
        if sample.id in seen:
            raise DataError(f"duplicate id {obj['id']}", file=path, line=lineno, field="id")
        seen.add(sample.id)
        yield sample
    if not seen:
        raise DataError("the annotation file holds no records", file=path)


def _official_split(task_files: Sequence[str | Path], images_root: Path) -> str | None:
    """``val`` or ``test`` when the official folder names say so (``mm_niah_val/...``), else None (unknown)."""
    found = set()
    for path in [*map(Path, task_files), images_root]:
        for part in Path(path).resolve().parts:
            m = re.fullmatch(r"mm_niah_(val|test)", part)
            if m:
                found.add(m.group(1))
    return found.pop() if len(found) == 1 else None


def import_annotations(task_files: Sequence[str | Path], images_root: str | Path, out_dir: str | Path) -> Dataset:
    """Write official annotation files as one niah dataset directory (written atomically).

    Images are not copied: the manifest's ``media_root`` is the absolute ``images_root`` and image parts keep
    their official relative paths. Returns the written :class:`Dataset`.
    """
    if not task_files:
        raise ConfigError("no annotation files given")
    root = Path(images_root).resolve()
    if not root.is_dir():
        raise DataError("images root is not a directory", file=root)
    tasks: list[str] = []
    counts: dict[str, int] = {}
    no_gold = 0
    media = MediaChecker(root)  # every image is checked before the dataset is moved into place
    with DatasetWriter(out_dir) as writer:
        for file in task_files:
            task = _task_of_file(Path(file))
            if task in counts:
                raise ConfigError(f"two annotation files for task {task}")
            tasks.append(task)
            counts[task] = 0
            for sample in load_annotations(file, root, media=media):
                writer.write(sample)
                counts[task] += 1
                no_gold += sample.answer is None
        writer.finish({
            "benchmark": BENCHMARK,
            "split": _official_split(task_files, root),
            "source": "mm-niah-official-annotations",
            "tasks": tasks,
            "counts": counts,
            "media_root": str(root),
            "annotation_files": [str(Path(f).resolve()) for f in task_files],
            "tokenizer": "mm-niah-official",
            "image_tokens_rule": "mm-niah-official",
            # samples whose record has no answer (the test split: its ground truth is private)
            "no_gold": no_gold,
        })
    return Dataset(out_dir, media_roots=(root,))  # the caller named the images folder: reading it is allowed
