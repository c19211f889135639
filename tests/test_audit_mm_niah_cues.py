"""Issue 42's cues of the MM-NIAH generator at 1K tokens, each fixed at its cause: a build where the cue's probe
stays at chance, and a copy of it with the cue planted back, which the audit must fail."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from niah.audit.dataset import AuditOptions, audit_dataset
from niah.benchmarks.mm_niah.build import BuildConfig
from niah.benchmarks.mm_niah.cli import build_mm_niah


def _probe(root: Path, task: str, name: str) -> Any:
    report = audit_dataset(root, AuditOptions(), progress=False)
    return next(p for p in report.probes if p.task == task and p.probe == name)


def _planted(root: Path, out: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of the dataset at ``root`` whose samples ``change`` rewrote (the media are shared as built)."""
    shutil.copytree(root, out)
    rows = [json.loads(line) for line in (root / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        change(row)
    (out / "samples.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                       encoding="utf-8")
    return out


def _context_text(row: dict[str, Any]) -> str:
    return "".join(p["text"] for p in row["context"] if p["type"] == "text")


@pytest.fixture(scope="module")
def reasoning_1k(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """80 reasoning-text samples at 1K, the README's length (every depth cell, cell 4 included)."""
    out = tmp_path_factory.mktemp("cues") / "reasoning"
    build_mm_niah(BuildConfig(tasks=["reasoning-text"], lengths=["1k"], per_cell=16, seed=0), out, progress=False)
    return out


def test_reasoning_needles_never_end_the_context_and_a_planted_end_fails(reasoning_1k: Path,
                                                                          tmp_path: Path) -> None:
    """Three needles placed in depth order were pushed onto the context's last sentence (16% of 1K samples
    against 6% of sentences being needles); now a haystack sentence always follows them. Moving one needle of
    every sample to the end again is caught by the whitespace finder."""
    rows = [json.loads(line) for line in (reasoning_1k / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert not any(_context_text(r).rstrip().endswith(tuple(n.strip() for n in r["meta"]["needles"]))
                   for r in rows)
    probe = _probe(reasoning_1k, "reasoning-text", "text-whitespace")
    assert probe.passed, probe

    def needle_last(row: dict[str, Any]) -> None:
        needle = row["meta"]["needles"][0].strip()
        last = max(i for i, p in enumerate(row["context"]) if p["type"] == "text")
        for part in row["context"]:
            if part["type"] == "text" and needle in part["text"]:
                part["text"] = part["text"].replace(" " + needle, "", 1).replace(needle, "", 1)
                break
        row["context"][last]["text"] = row["context"][last]["text"].rstrip() + " " + needle

    planted = _planted(reasoning_1k, tmp_path / "planted", needle_last)
    caught = _probe(planted, "reasoning-text", "text-whitespace")
    assert not caught.passed and caught.score > 50, caught


@pytest.fixture(scope="module")
def counting_1k(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 counting-image samples at 1K, the README's length, where depth cell 4 cannot exist (an image costs at
    least 256 tokens) and two images fit a context."""
    out = tmp_path_factory.mktemp("cues") / "counting"
    build_mm_niah(BuildConfig(tasks=["counting-image"], lengths=["1k"], per_cell=40, seed=0), out, progress=False)
    return out


def test_counting_image_golds_stay_at_chance_and_a_planted_skew_fails(counting_1k: Path, tmp_path: Path) -> None:
    """With cell 4's requests all in cell 3 (room for one needle image of two), a third of the counts were 0 and
    the most frequent gold scored 36 against 25; dealt over the cells that exist, no constant or frequent gold
    beats chance by the margin. Zeroing one count of every gold again is caught."""
    rows = [json.loads(line) for line in (counting_1k / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    zero_share = sum(r["answer"].count(0) / len(r["answer"]) for r in rows) / len(rows)
    assert zero_share < 0.30, zero_share
    for name in ("constant-count", "majority-task", "constant"):
        assert _probe(counting_1k, "counting-image", name).passed, name

    def first_count_zero(row: dict[str, Any]) -> None:
        row["answer"][0] = 0

    planted = _planted(counting_1k, tmp_path / "planted", first_count_zero)
    caught = _probe(planted, "counting-image", "constant-count")
    assert not caught.passed, caught


def test_counting_image_needles_are_not_found_by_position_and_planted_last_needles_fail(counting_1k: Path,
                                                                                        tmp_path: Path) -> None:
    """The last image was a needle 81% of the time against 67% of images; now no position class beats the
    needle share by the margin. Moving every sample's needle images to the end again is caught."""
    probe = _probe(counting_1k, "counting-image", "image-position")
    assert probe.passed, probe

    def needles_last(row: dict[str, Any]) -> None:
        at = [i for i, p in enumerate(row["context"]) if p["type"] == "image"]
        pairs = sorted(zip(row["answer"], [row["context"][i] for i in at], strict=True), key=lambda p: p[0] > 0)
        for i, (_count, part) in zip(at, pairs, strict=True):
            row["context"][i] = part
        row["answer"] = [count for count, _part in pairs]

    planted = _planted(counting_1k, tmp_path / "planted", needles_last)
    caught = _probe(planted, "counting-image", "image-position")
    assert not caught.passed, caught


@pytest.fixture(scope="module")
def reasoning_1k_as_built(reasoning_1k: Path) -> dict[str, Any]:
    """The clean 1K reasoning-text build audited as it is (``--limit 0``), each probe by name."""
    report = audit_dataset(reasoning_1k, AuditOptions(limit=0), progress=False)
    return {p.probe: p for p in report.probes if p.task == "reasoning-text"}


@pytest.mark.parametrize(("cue", "probe"), [("gold-at-the-end", "learned"), ("gold-in-the-question", "question-echo")])
def test_reasoning_text_cues_planted_in_a_copy_fail(reasoning_1k: Path, reasoning_1k_as_built: dict[str, Any],
                                                   tmp_path: Path, cue: str, probe: str) -> None:
    """Two cues no generator option makes, planted in a copy of a clean MM-NIAH build: the answer said again in
    the context's last sentence (a model need only read the end: the learned probe sees where a candidate
    stands) and the answer written into the question. Each copy fails its probe; the clean build passes it."""
    assert reasoning_1k_as_built[probe].passed, reasoning_1k_as_built[probe]

    def plant(row: dict[str, Any]) -> None:
        if cue == "gold-at-the-end":
            last = max(i for i, p in enumerate(row["context"]) if p["type"] == "text")
            row["context"][last]["text"] = row["context"][last]["text"].rstrip() + f" Remember {row['answer']}."
        else:
            row["question"][-1]["text"] += f" (It is {row['answer']}.)"

    planted = _planted(reasoning_1k, tmp_path / "planted", plant)
    report = audit_dataset(planted, AuditOptions(limit=0), progress=False)
    caught = next(p for p in report.probes if p.task == "reasoning-text" and p.probe == probe)
    assert not caught.passed and not caught.advisory, caught
