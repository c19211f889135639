"""MileBench official files: the data set JSON in, official-format scoring out.

Data set folder (one per sub-dataset): ``{Dataset}/{Dataset}.json`` plus ``{Dataset}/images/``. The JSON is
``{"meta_data": {"dataset", "split", "num_sample", "task_instruction": [str], "question_type":
"multi-choice"|"open-ended"}, "data": [item]}``; an item is ``{"sample_id", "task_instruction_id",
"task_instance": {"context", "images_path": [paths under images/], "choice_list"?}, "response" (gold),
"image_quantity_level"}``. Images sit in the context as ``{image#i}`` / ``{table#i}`` (1-based).

Prediction file (``PRED_JSON``): MileBench's own ``generate.py`` output ``pred.json``, a JSON array with one object
per sample: ``sample_id`` (required), ``pred_response`` (required; the model's text, or null for a failed request,
which scores 0), and optionally ``gt_response``, ``gen_model_id``, ``question``, ``gen_kwargs`` (ignored, except
that a ``gt_response`` must equal the data set's gold, so a prediction file of another data set is caught).
Every data-set sample must have exactly one prediction, else it is an error (as in ``evaluate.py``).

Scoring follows ``evaluate.py``: data sets whose name contains ``NeedleInAHaystack`` use the token rule,
``MMCoQA`` the substring rule, then ``open-ended`` uses ROUGE-L and ``multi-choice`` the option matcher
(rules in :mod:`niah.benchmarks.milebench.metrics`). Results per image-quantity bucket (``Few`` < 6 images, ``Medium``,
``Many`` > 31) come from each item's image count (``len(images_path)``, as the current ``evaluate.py`` computes
them; a stored ``image_quantity_level`` is checked but not used), with ``[sum, count]`` per bucket under
``image_quantity_level-Result``. (The first release filed every open-ended score under the last item's stored
level; the current code does not, and neither do we.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from niah.scoring.metrics.base import MetricInputError
from niah.scoring.metrics.registry import get_rule
from niah.util.errors import ConfigError, DataError
from niah.util.iox import read_json_file, resolve_under

BENCHMARK = "milebench"
IMAGE_QUANTITY_LEVELS: tuple[str, ...] = ("Few", "Medium", "Many")
FEW_BELOW = 6
MANY_ABOVE = 31
#: Data set whose options are listed without letters (more than 26 options).
NO_LETTER_DATASETS = frozenset({"GPR1200"})
IMAGES_DIR = "images"


@dataclass(frozen=True)
class MileBenchDataset:
    """A parsed ``{Dataset}.json``."""

    name: str
    path: Path
    meta_data: dict[str, Any]
    items: list[dict[str, Any]]
    #: k of a combined-image variant (``{Dataset}_combined_<k>.json``, images in ``combined_<k>_images/``).
    combined: int | None = None

    @property
    def question_type(self) -> str:
        return self.meta_data["question_type"]

    @property
    def images_dir(self) -> Path:
        return self.path.parent / (combined_images_key(self.combined) if self.combined else IMAGES_DIR)

    @property
    def task(self) -> str:
        return f"{self.name}_combined_{self.combined}" if self.combined else self.name


def combined_images_key(k: int) -> str:
    """The item field (and sibling folder) of the combined images: ``combined_<k>_images``."""
    return f"combined_{k}_images"


def combined_context(context: str, count: int) -> str:
    """The official combined-image context: each ``{image#i}`` / ``{table#i}`` (i = 1..count) becomes the text
    ``<Image i> `` (the combined image itself is put before the instruction)."""
    for i in range(count):
        context = context.replace(f"{{image#{i + 1}}}", f"<Image {i + 1}> ")
        context = context.replace(f"{{table#{i + 1}}}", f"<Image {i + 1}> ")
    return context


def metric_rule_name(dataset_name: str, question_type: str) -> str:
    """The rule ``evaluate.py`` applies to a data set (name tests come before the question type)."""
    if "NeedleInAHaystack" in dataset_name:
        return "milebench/needle"
    if "MMCoQA" in dataset_name:
        return "milebench/substring"
    if question_type == "open-ended":
        return "milebench/rouge-l"
    if question_type == "multi-choice":
        return "milebench/multi-choice"
    raise ConfigError(f"data set {dataset_name!r}: question_type {question_type!r} is not supported")


def image_quantity_level(item: dict[str, Any]) -> str:
    """The official bucket of an item from its image count: Few < 6, Many > 31, else Medium."""
    return image_count_bucket(len(item["task_instance"]["images_path"]))


def image_count_bucket(count: int) -> str:
    """Few (< 6 images), Medium (6-31) or Many (> 31), as the official ``get_image_quantity_level``."""
    if count < FEW_BELOW:
        return "Few"
    if count > MANY_ABOVE:
        return "Many"
    return "Medium"


def render_choice_suffix(choice_list: Sequence[str], dataset_name: str) -> str:
    """The text the official loader appends to the context for multiple choice: ``\\nChoice list: \\n``, one
    ``A. option`` line per option (no letters for GPR1200), then ``\\nYour answer is: ``."""
    lines = [
        (f"{chr(65 + index)}. " if dataset_name not in NO_LETTER_DATASETS else "") + f"{option}"
        for index, option in enumerate(choice_list)
    ]
    return "\nChoice list: \n" + "\n".join(lines) + "\nYour answer is: "


def read_dataset(dataset_dir: str | Path, combined: int | None = None) -> MileBenchDataset:
    """Read and validate ``{dataset_dir}/{name}.json`` (``name`` is the folder's name), or with ``combined=k``
    the combined-image variant ``{name}_combined_<k>.json`` (official ``generate.py --combine_image k``; k = 1
    reads ``{name}.json`` in combined mode, as the official code does)."""
    folder = Path(dataset_dir)
    if not folder.is_dir():
        raise DataError("MileBench data set folder does not exist", file=folder)
    if combined is not None and (isinstance(combined, bool) or not isinstance(combined, int) or combined < 1):
        raise ConfigError(f"combined must be a positive integer, got {combined!r}")
    name = folder.resolve().name
    file_name = f"{name}_combined_{combined}.json" if combined and combined != 1 else f"{name}.json"
    path = folder / file_name
    if not path.is_file():
        raise DataError(f"no {file_name} in the data set folder", file=folder)
    obj = read_json_file(path, what="MileBench data set file")
    try:
        meta, items = _validate(obj, combined)
    except DataError as exc:
        raise exc.located(file=path) from None
    return MileBenchDataset(name=name, path=path, meta_data=meta, items=items, combined=combined)


def _validate(obj: Any, combined: int | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if not isinstance(obj, dict):
        raise DataError("top level must be an object with meta_data and data")
    meta = obj.get("meta_data")
    if not isinstance(meta, dict):
        raise DataError("must be an object", field="meta_data")
    instructions = meta.get("task_instruction")
    if not isinstance(instructions, list) or not all(isinstance(t, str) for t in instructions):
        raise DataError("must be a list of strings", field="meta_data.task_instruction")
    if meta.get("question_type") not in ("multi-choice", "open-ended"):
        raise DataError("must be 'multi-choice' or 'open-ended'", field="meta_data.question_type")
    items = obj.get("data")
    if not isinstance(items, list):
        raise DataError("must be a list", field="data")
    if not items:
        raise DataError("holds no items", field="data")
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"data[{index}]"
        if not isinstance(item, dict):
            raise DataError("must be an object", field=where)
        sample_id = item.get("sample_id")
        if isinstance(sample_id, bool) or not isinstance(sample_id, (int, str)):
            raise DataError("must be an integer or a string", field=f"{where}.sample_id")
        if str(sample_id) in seen:
            raise DataError(f"duplicate sample_id {sample_id!r}", field=f"{where}.sample_id")
        seen.add(str(sample_id))
        instruction_id = item.get("task_instruction_id")
        if isinstance(instruction_id, bool) or not isinstance(instruction_id, int) \
                or not 0 <= instruction_id < len(instructions):
            raise DataError("must index meta_data.task_instruction", field=f"{where}.task_instruction_id")
        instance = item.get("task_instance")
        if not isinstance(instance, dict):
            raise DataError("must be an object", field=f"{where}.task_instance")
        if not isinstance(instance.get("context"), str):
            raise DataError("must be a string", field=f"{where}.task_instance.context")
        images = instance.get("images_path")
        if not isinstance(images, list) or not all(isinstance(p, str) and p for p in images):
            raise DataError("must be a list of image paths", field=f"{where}.task_instance.images_path")
        if combined:
            key = combined_images_key(combined)
            paths = instance.get(key)
            if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
                raise DataError("must be a non-empty list of image paths", field=f"{where}.task_instance.{key}")
        choices = instance.get("choice_list")
        if choices is not None and (not isinstance(choices, list) or not all(isinstance(c, str) for c in choices)):
            raise DataError("must be a list of strings", field=f"{where}.task_instance.choice_list")
        if "response" not in item or item["response"] is None:
            raise DataError("missing gold answer", field=f"{where}.response")
        level = item.get("image_quantity_level")
        if level is not None and level not in IMAGE_QUANTITY_LEVELS:
            raise DataError(f"must be one of {', '.join(IMAGE_QUANTITY_LEVELS)}", field=f"{where}.image_quantity_level")
    return meta, items


def _placeholder_pattern(count: int) -> re.Pattern[str] | None:
    """Placeholders the official loader replaces: ``{image#i}`` and ``{table#i}`` for i in 1..count only."""
    if count == 0:
        return None
    numbers = "|".join(str(i) for i in range(count, 0, -1))
    return re.compile(r"\{(?:image|table)#(?:" + numbers + r")\}")


def context_parts(context: str, images: list[str]) -> tuple[list[Part], list[str]]:
    """Interleave a MileBench context with its images the way the official loader feeds them to the model.

    All recognized placeholders become one image marker, and images are attached from the END: the last
    placeholder gets the last image, and so on backwards (for well-formed items this is simply placeholder
    order). If there are more images than placeholders, the official loader puts one more image at the very
    start of the context and drops the rest; those dropped paths are returned. More placeholders than images
    cannot be represented and is a :class:`DataError`.
    """
    pattern = _placeholder_pattern(len(images))
    fragments = pattern.split(context) if pattern else [context]
    placeholders = len(fragments) - 1
    if placeholders > len(images):
        raise DataError(f"{placeholders} image placeholders but only {len(images)} images",
                        field="task_instance.images_path")
    spare = len(images) - placeholders
    parts: list[Part] = []
    dropped: list[str] = []
    if spare > 0:
        parts.append(ImagePart(images[spare - 1]))
        dropped = images[: spare - 1]
    for index, fragment in enumerate(fragments):
        if fragment:
            parts.append(TextPart(fragment))
        if index < placeholders:
            parts.append(ImagePart(images[spare + index]))
    return parts, dropped


def item_to_sample(item: dict[str, Any], data: MileBenchDataset, media: MediaChecker | None = None) -> Sample:
    """One MileBench item as a niah :class:`Sample` (question empty: the question is the end of the context).

    ``meta`` holds what the official prompt needs: ``instruction`` (the item's task instruction, which the
    official prompt puts first, then a newline, then the context), ``choice_labels`` (``letters`` or ``none``
    for GPR1200; see :func:`render_choice_suffix`), ``question_type``, ``metric``, ``image_quantity_level``,
    ``num_images``, ``dataset``, ``sample_id``, and ``dropped_images`` when the official loader would drop some.
    """
    instance = item["task_instance"]
    images = list(instance["images_path"])
    dropped: list[str] = []
    if data.combined:
        key = combined_images_key(data.combined)
        combined_paths = list(instance[key])
        for i, rel in enumerate(combined_paths):
            _check_image(data, media, rel, f"task_instance.{key}[{i}]")
        parts: list[Part] = [ImagePart(rel) for rel in combined_paths]
        text = combined_context(instance["context"], len(images))
        if text:
            parts.append(TextPart(text))
    else:
        for i, rel in enumerate(images):
            _check_image(data, media, rel, f"task_instance.images_path[{i}]")
        parts, dropped = context_parts(instance["context"], images)
    choice_list = instance.get("choice_list")
    meta: dict[str, Any] = {
        "dataset": data.name,
        "sample_id": item["sample_id"],
        "instruction": data.meta_data["task_instruction"][item["task_instruction_id"]],
        "task_instruction_id": item["task_instruction_id"],
        "question_type": data.question_type,
        "metric": metric_rule_name(data.name, data.question_type),
        "image_quantity_level": image_quantity_level(item),
        "num_images": len(images),
        "choice_labels": None if choice_list is None else ("none" if data.name in NO_LETTER_DATASETS else "letters"),
    }
    if dropped:
        meta["dropped_images"] = dropped
    if data.combined:
        meta["combined"] = data.combined
        meta["num_combined_images"] = len(parts) - (1 if isinstance(parts[-1], TextPart) else 0)
    return Sample(
        id=f"{data.task}/{item['sample_id']}",
        benchmark=BENCHMARK,
        task=data.task,
        context=parts,
        question=[],
        answer=str(item["response"]),
        choices=None if choice_list is None else [[TextPart(c)] for c in choice_list],
        meta=meta,
    )


def _check_image(data: MileBenchDataset, media: MediaChecker | None, rel: str, field: str) -> None:
    if media is not None:
        media.check(rel, "image", field=field)
    else:
        resolve_under(data.images_dir, rel, field=field)


def load_milebench(dataset_dir: str | Path, combined: int | None = None, *,
                   check_media: bool = True) -> Iterator[Sample]:
    """Stream the samples of one MileBench data set folder (``{Dataset}/{Dataset}.json`` + ``images/``, or the
    combined-image variant with ``combined=k``). With ``check_media`` every image must be a decodable image
    inside the images folder."""
    data = read_dataset(dataset_dir, combined)
    media = MediaChecker(data.images_dir) if check_media else None
    for index, item in enumerate(data.items):
        try:
            sample = item_to_sample(item, data, media)
            check_sample_values(sample)
            yield sample
        except DataError as exc:
            field = f"data[{index}].{exc.field}" if exc.field else f"data[{index}]"
            raise DataError(exc.message, file=data.path, field=field) from None


def write_milebench_dataset(dataset_dir: str | Path, out_dir: str | Path, combined: int | None = None) -> Dataset:
    """Write a MileBench data set folder as a niah dataset directory (atomic; images are not copied: the
    manifest's ``media_root`` is the absolute path of the original ``images/`` folder, or of
    ``combined_<k>_images/`` for a combined-image variant)."""
    data = read_dataset(dataset_dir, combined)
    with DatasetWriter(out_dir) as writer:
        for sample in load_milebench(dataset_dir, combined):
            writer.write(sample)
        writer.finish({
            "benchmark": BENCHMARK,
            "source": "milebench-official",
            "tasks": [data.task],
            "dataset": data.name,
            "combined": data.combined,
            "split": data.meta_data.get("split"),
            "question_type": data.question_type,
            "metric": metric_rule_name(data.name, data.question_type),
            "task_instruction": data.meta_data["task_instruction"],
            "media_root": str(data.images_dir.resolve()),
            "source_file": str(data.path.resolve()),
        })
    return Dataset(out_dir, media_roots=(data.images_dir,))  # the caller named this folder: reading it is allowed


# ------------------------------------------------------------------------------------------- scoring


def read_predictions(pred_json: str | Path) -> list[dict[str, Any]]:
    """Read a ``pred.json`` (JSON array of ``{sample_id, pred_response, ...}``), checking each entry."""
    path = Path(pred_json)
    obj = read_json_file(path, what="prediction file")
    if not isinstance(obj, list):
        raise DataError("a prediction file is a JSON array of {sample_id, pred_response} objects", file=path)
    for index, entry in enumerate(obj):
        if not isinstance(entry, dict):
            raise DataError("must be an object", file=path, field=f"[{index}]")
        sample_id = entry.get("sample_id")
        if isinstance(sample_id, bool) or not isinstance(sample_id, (int, str)):
            raise DataError("must be an integer or a string", file=path, field=f"[{index}].sample_id")
        if "pred_response" not in entry:
            raise DataError("missing", file=path, field=f"[{index}].pred_response")
        if entry["pred_response"] is not None and not isinstance(entry["pred_response"], str):
            raise DataError("must be a string or null", file=path, field=f"[{index}].pred_response")
    return obj


def aggregate_official(rule_name: str, scores: Sequence[float], levels: Sequence[str]) -> dict[str, Any]:
    """The official ``eval.json`` of one data set from per-sample scores and image-quantity levels (both in
    data-set order)."""
    if not scores:
        raise ConfigError("no samples to score")
    buckets = _by_level(scores, levels)
    result: dict[str, Any] = (
        {"Rouge-L f": _mean(scores)} if rule_name == "milebench/rouge-l" else {"Accuracy": sum(scores) / len(scores)}
    )
    result["image_quantity_level-Accuracy"] = _bucket_means(buckets)
    result["image_quantity_level-Result"] = {level: [sum(values), len(values)] for level, values in buckets.items()}
    return result


def _by_level(scores: Sequence[float], levels: Sequence[str]) -> dict[str, list[float]]:
    buckets: dict[str, list[float]] = {level: [] for level in IMAGE_QUANTITY_LEVELS}
    for score, level in zip(scores, levels, strict=True):
        buckets[level].append(score)
    return buckets


def _mean(values: Sequence[float]) -> float:
    import numpy as np

    return float(np.mean(values))


def _bucket_means(buckets: dict[str, list[float]]) -> dict[str, float]:
    return {level: _mean(values) if values else 0.0 for level, values in buckets.items()}


def score_milebench_official(dataset_dir: str | Path, pred_json: str | Path) -> dict[str, Any]:
    """Score a ``pred.json`` against a MileBench data set folder as ``evaluate.py`` does.

    Returns ``{"dataset", "question_type", "metric", "num_samples", "result": <official eval.json>,
    "eval_score": <official eval_score.json list>}``.
    """
    data = read_dataset(dataset_dir)
    predictions = read_predictions(pred_json)
    rule_name = metric_rule_name(data.name, data.question_type)
    rule = get_rule(rule_name)
    by_id: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(predictions):
        key = str(entry["sample_id"])
        if key in by_id:
            raise DataError(f"duplicate prediction for sample_id {entry['sample_id']!r}", file=pred_json,
                            field=f"[{index}].sample_id")
        by_id[key] = entry
    known = {str(item["sample_id"]) for item in data.items}
    unknown = sorted(set(by_id) - known)
    if unknown:
        raise DataError(f"predictions for sample ids not in {data.name}: {', '.join(unknown[:5])}", file=pred_json)
    missing = [str(item["sample_id"]) for item in data.items if str(item["sample_id"]) not in by_id]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise DataError(f"{len(missing)} sample(s) of {data.name} have no prediction: {shown}", file=pred_json)

    scores: list[float] = []
    levels: list[str] = []
    eval_score: list[dict[str, str]] = []
    for index, item in enumerate(data.items):
        entry = by_id[str(item["sample_id"])]
        gold = str(item["response"])
        if "gt_response" in entry and entry["gt_response"] != gold:
            raise DataError(f"gt_response {entry['gt_response']!r} differs from the data set's gold {gold!r}",
                            file=pred_json, field=f"sample_id {item['sample_id']}")
        row: dict[str, Any] = {"answer": gold, "response": entry["pred_response"]}
        if rule_name == "milebench/multi-choice":
            row["choices"] = item["task_instance"].get("choice_list")
        try:
            score = rule.score(row)
        except MetricInputError as exc:
            raise DataError(exc.message, file=data.path, field=f"data[{index}].{exc.field}") from None
        scores.append(score)
        levels.append(image_quantity_level(item))
        shown_score = str(round(score, 3)) if rule_name == "milebench/rouge-l" else str(int(score))
        eval_score.append({"id": str(item["sample_id"]), "score": shown_score})
    return {
        "dataset": data.name,
        "question_type": data.question_type,
        "metric": rule_name,
        "num_samples": len(scores),
        "result": aggregate_official(rule_name, scores, levels),
        "eval_score": eval_score,
    }
