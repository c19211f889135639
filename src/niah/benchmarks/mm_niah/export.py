"""Write niah MM-NIAH samples in the official annotation format (so the official evaluation code can read them).

Layout written: ``OUT/annotations/<task>.jsonl`` and ``OUT/images/...`` (paths in ``images_list`` are relative
to ``OUT/images``, as with the official ``mm_niah_{val,test}`` folders). Each record follows the official schema
(../specs/mm-niah.md, "Record schema"): ``context`` with the literal ``<image>`` placeholder, ``images_list`` over
context + question images in placeholder order (choice images are NOT in it), ``answer`` (str | list | int),
and ``meta`` with ``placed_depth``, ``context_length``, ``context_length_text``, ``context_length_image``,
``num_images``, ``needles``, ``choices``, ``choices_image_path``, ``category``.
Invariant checked on every record: placeholders in context + question == len(images_list).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from niah.sample import Dataset, ImagePart, Part, Sample, TextPart
from niah.util.errors import DataError
from niah.util.iox import dumps_line, export_dir, path_inside

PLACEHOLDER = "<image>"
#: Marks a folder written by :func:`export_dataset`, so that a later export may replace it (nothing else).
EXPORT_MARKER = ".niah-export"


def _flatten(parts: list[Part], images: list[str]) -> str:
    out = []
    for p in parts:
        if isinstance(p, TextPart):
            out.append(p.text)
        elif isinstance(p, ImagePart):
            out.append(PLACEHOLDER)
            images.append(p.path)
        else:
            raise DataError("video parts have no MM-NIAH official form")
    return "".join(out)


def _image_rel(path: str) -> str:
    """Dataset path ``media/x/y.jpg`` -> images-folder path ``x/y.jpg``."""
    return path[len("media/"):] if path.startswith("media/") else path


def official_record(sample: Sample, index: int) -> dict[str, Any]:
    images: list[str] = []
    context = _flatten(sample.context, images)
    question = _flatten(sample.question, images)
    choices = choices_image = None
    if sample.choices is not None:
        if all(len(c) == 1 and isinstance(c[0], ImagePart) for c in sample.choices):
            choices_image = [_image_rel(c[0].path) for c in sample.choices]  # type: ignore[union-attr,arg-type]
        else:
            choices = [_flatten(c, []) for c in sample.choices]
    meta = sample.meta
    n_placeholders = context.count(PLACEHOLDER) + question.count(PLACEHOLDER)
    if n_placeholders != len(images):
        raise DataError(f"sample {sample.id}: {n_placeholders} placeholders but {len(images)} images "
                        "(a text part contains the literal '<image>')")
    depth = meta.get("depth")
    return {
        "id": index,
        "images_list": [_image_rel(p) for p in images],
        "context": context,
        "question": question,
        "answer": sample.answer,
        "meta": {
            "placed_depth": depth,
            "context_length": meta.get("context_length"),
            "context_length_text": meta.get("text_tokens"),
            "context_length_image": meta.get("image_tokens"),
            "num_images": meta.get("num_images"),
            "needles": [_image_rel(n) if isinstance(n, str) and n.startswith("media/") else n
                        for n in meta.get("needles", [])],
            "choices": choices,
            "choices_image_path": choices_image,
            "category": meta.get("category"),
        },
    }


def export_official(dataset_dir: str | Path, out: str | Path, *, skipped: dict[str, int] | None = None,
                    media_roots: tuple[str | Path, ...] = ()) -> dict[str, int]:
    """Convert a niah MM-NIAH dataset directory to the official layout at ``out`` (atomically). Samples of
    tasks outside the official six (the image-count probe) have no official file and are left out, counted
    per task in ``skipped`` when given. ``media_roots``: folders outside the dataset its images may be read from
    (an imported official set reads its images in place), as ``niah run --media-root``."""
    from niah.benchmarks.mm_niah.official import is_official_task

    ds = Dataset(dataset_dir, media_roots=media_roots)
    # replacing removes the old folder: only an earlier export holding nothing but what niah wrote there (the
    # user's NOTES.txt added since is refused, not deleted), or an empty folder, never real data
    with export_dir(Path(out), kind="mm-niah official export", marker_name=EXPORT_MARKER) as tmp:
        (tmp / "annotations").mkdir()
        handles: dict[str, Any] = {}
        counts: dict[str, int] = {}
        copied: set[str] = set()
        try:
            for sample in ds.iter_samples():
                if not is_official_task(sample.task):
                    if skipped is not None:
                        skipped[sample.task] = skipped.get(sample.task, 0) + 1
                    continue
                idx = counts.get(sample.task, 0)
                rec = official_record(sample, idx)
                counts[sample.task] = idx + 1
                fh = handles.get(sample.task)
                if fh is None:
                    fh = handles[sample.task] = (tmp / "annotations" / f"{sample.task}.jsonl").open(
                        "w", encoding="utf-8", newline="\n")
                fh.write(dumps_line(rec))
                for rel in sample.all_media():
                    if rel in copied:
                        continue
                    try:  # "../../x.png" resolves inside the media root, but not inside the export
                        dst = path_inside(tmp / "images", _image_rel(rel))
                    except DataError as exc:
                        raise DataError(f"sample {sample.id!r}: {exc.message}", file=ds.samples_path) from None
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(ds.resolve_media(rel), dst)
                    copied.add(rel)
        finally:
            for fh in handles.values():
                fh.close()
    return counts
