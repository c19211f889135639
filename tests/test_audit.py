"""`niah audit`: every probe fails on a toy dataset cued for it and passes on a clean one.

A toy family (registered at run time, exact-match scoring) gets datasets written here: a clean one, whose
golds are drawn per sample from a large pool, needles stand where haystack sentences stand and images are
shuffled, and one cued variant per shortcut.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from niah.audit.dataset import AuditOptions, audit_dataset, default_chance, leave_one_out_best
from niah.benchmarks.protocol import (
    OFFICIAL,
    AuditSpec,
    BaselineAnswers,
    Family,
    NeedleSpot,
    SampleScore,
    Scorer,
)
from niah.benchmarks.registry import register_family, unregister_family
from niah.sample import DatasetWriter, ImagePart, Sample, TextPart, VideoPart

BENCH = "toy-audit"
N = 120
WORDS = [f"w{a}{b}{c}" for a in "bcdfgh" for b in "aeiou" for c in "klmnp"]  # 150 made-up words


def _exact(sample: Sample, response: str | None) -> SampleScore:
    """Exact match, except open retrieval, scored like MM-NIAH's open-ended rule: the gold word anywhere."""
    gold = sample.answer
    want = chr(65 + gold) if sample.choices is not None and isinstance(gold, int) else str(gold)
    if response is None:
        return SampleScore({OFFICIAL: 0.0})
    if sample.task == "find":
        return SampleScore({OFFICIAL: float(want.lower() in re.findall(r"\w+", response.lower()))})
    return SampleScore({OFFICIAL: float(response.strip().lower() == want.lower())})


def _oracle(sample: Sample) -> str | None:
    return str(sample.answer) if sample.task == "count" else None


def _aggregate(rows: Any, mode: str) -> dict[str, Any]:
    return {"overall": sum(r["scores"][mode] for r, _ in rows) / max(len(rows), 1)}


_CUE: dict[str, Any] = {}


def _random(sample: Sample, shape: Any) -> str | None:
    if _CUE.get("random_empty"):
        return ""
    if sample.task == "count":
        return str(shape.rng.randint(0, 9))
    return shape.rng.choice(WORDS[:20]) if sample.task == "watch" else None


def _locate(sample: Sample) -> list[NeedleSpot]:
    spots = [NeedleSpot("text", text=t) for t in sample.meta.get("needle_texts", [])]
    spots += [NeedleSpot("image", part=i) for i in sample.meta.get("needle_parts", [])]
    for i, part in enumerate(sample.context):
        if isinstance(part, VideoPart) and part.frames:
            spots += [NeedleSpot("video", part=i, frames=tuple(part.frames[k] for k in sample.meta["needle_frames"]))]
    return spots


def _group(sample: Sample) -> str:
    """A variant is one group with its base (unless a test switches groups off to show what they prevent)."""
    base = sample.meta.get("variant_of")
    return base if isinstance(base, str) and not _CUE.get("no_groups") else sample.id


def _chance(sample: Sample) -> float:
    """Counts are uniform over 0-9, watched words over 20; otherwise the shared default."""
    return {"count": 0.1, "watch": 0.05}.get(sample.task, default_chance(sample))


@pytest.fixture(autouse=True)
def toy_family() -> Iterator[None]:
    register_family(Family(
        name=BENCH, title="toy audit", tasks=("find", "pick", "count", "watch"),
        scorer=lambda: Scorer(_exact, _aggregate),
        baselines=lambda: BaselineAnswers(random=_random, oracle=_oracle),
        audit=lambda: AuditSpec(locate=_locate, chance=_chance, group=_group),
    ))
    _CUE.clear()
    yield
    unregister_family(BENCH)
    from niah.prompts import render as prompts

    prompts._RENDERERS.pop(BENCH, None)


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(4, 9))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def _paragraphs(rng: random.Random, count: int) -> list[list[str]]:
    return [[_sentence(rng) for _ in range(rng.randint(1, 5))] for _ in range(count)]


def _png(writer: DatasetWriter, name: str, shade: int) -> str:
    import io

    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (shade, 90, 200 - shade)).save(buf, "PNG")
    return writer.write_media(f"media/{name}.png", buf.getvalue())


def _code(rng: random.Random) -> str:
    """A made-up answer from an open vocabulary (7,225 codes shaped like the haystack's words, none of them
    one: an answer that is the only word of its shape would be found by its shape)."""
    consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
    return "".join(rng.choice(c) for c in (consonants, vowels, consonants, vowels))


def _find_sample(rng: random.Random, i: int, cue: set[str], writer: DatasetWriter) -> Sample:
    """Open retrieval: one needle sentence among haystack paragraphs, two to four images between them."""
    gold = "apple" if "majority" in cue else _code(rng)
    question = "What is the code word?"
    if "question-table" in cue:
        k = i % 8
        question, gold = f"What is code word number {k}?", WORDS[k]
    if "small-pool" in cue:
        gold = WORDS[i % 5]
    if "echo" in cue:
        question = f"Is the code word {gold}? Say the code word."
    paragraphs = _paragraphs(rng, 14)
    needle = f"The code word is {gold}" + ("\u00a7" if "rare-mark" in cue else ".")
    where = rng.randrange(len(paragraphs))
    if "own-paragraph" in cue:  # a paragraph of its own, where every haystack paragraph has several sentences
        paragraphs = [p + [_sentence(rng)] if len(p) == 1 else p for p in paragraphs]
        paragraphs.insert(where, [needle])
    elif "whitespace" in cue:
        paragraphs[where].append("\n" + needle)  # a line of its own: haystack sentences never break lines
    else:
        paragraphs[where].insert(rng.randint(0, len(paragraphs[where])), needle)
    if "leak" in cue:
        paragraphs[(where + 3) % len(paragraphs)].append(f"Nobody mentioned {gold} here.")
    if "near-end" in cue:  # the gold said again in the context's last sentence
        paragraphs[-1].append(f"Remember {gold}.")
    blocks = [" ".join(p) for p in paragraphs]
    images = rng.randint(2, 4)
    needle_image = images - 1 if "image-last" in cue else rng.randrange(images)
    slots = sorted(rng.sample(range(1, len(blocks) + 1), images))
    if "image-last" in cue:
        slots[-1] = len(blocks)
    context: list[Any] = []
    needle_parts: list[int] = []
    text = ""
    pos = 0
    for k, slot in enumerate(slots):
        text += "\n\n".join(blocks[pos:slot]) + "\n\n"
        pos = slot
        if text:
            context.append(TextPart(text))
            text = ""
        if k == needle_image:
            needle_parts.append(len(context))
        context.append(ImagePart(_png(writer, f"find-{i}-{k}", rng.randrange(200))))
    rest = "\n\n".join(blocks[pos:])
    if rest:
        context.append(TextPart("\n\n" + rest))
    return Sample(id=f"find/{i:04d}", benchmark=BENCH, task="find", context=context,
                  question=[TextPart(question)], answer=gold,
                  meta={"needle_texts": [needle], "needle_parts": needle_parts})


def _pick_sample(rng: random.Random, i: int, cue: set[str], writer: DatasetWriter) -> Sample:
    gold = rng.randrange(4)
    options = rng.sample(WORDS, 4)
    if "longest" in cue:  # the right option is always the longest
        options[gold] += "ish"
    sentences = [_sentence(rng) for _ in range(30)]
    sentences.insert(rng.randint(0, 30), f"The colour of the day is {options[gold]}.")
    for k, option in enumerate(options):  # every option stands in the context once, as the right one does
        if k != gold:
            sentences.insert(rng.randint(0, len(sentences)), f"The colour of the night is {option}.")
    text = " ".join(sentences)
    choices: list[list[Any]] = [[TextPart(o)] for o in options]
    if "bright" in cue:  # image options, the right one brighter than the others
        shades = sorted(rng.sample(range(20, 200), 4))
        shades.insert(gold, shades.pop())
        choices = [[ImagePart(_png(writer, f"opt-{i}-{k}", shade))] for k, shade in enumerate(shades)]
    return Sample(id=f"pick/{i:04d}", benchmark=BENCH, task="pick", context=[TextPart(text)],
                  question=[TextPart("Which colour of the day?")], answer=gold, choices=choices,
                  meta={"needle_texts": [f"The colour of the day is {options[gold]}."]})


def _count_sample(rng: random.Random, i: int, cue: set[str]) -> Sample:
    gold = 0 if "constant" in cue and rng.random() < 0.8 else rng.randint(0, 9)
    if "paragraphs" in cue:  # the count is the number of paragraphs
        gold = rng.randint(1, 9)
    paragraphs = gold if "paragraphs" in cue else rng.randint(1, 9)
    text = "\n\n".join(" ".join(_sentence(rng) for _ in range(3)) for _ in range(paragraphs))
    return Sample(id=f"count/{i:04d}", benchmark=BENCH, task="count", context=[TextPart(text)],
                  question=[TextPart("How many?")], answer=gold, meta={})


def _watch_sample(rng: random.Random, i: int, cue: set[str], writer: DatasetWriter) -> Sample:
    """A frame list of 40 frames with a two-frame needle; the gold is the needle frame's shade."""
    gold = rng.choice(WORDS[:20])
    frames = [_png(writer, f"hay-{k}", k * 5) for k in range(40)]
    start = rng.randrange(1, 37) if "drop" not in cue else rng.choice([3, 11, 17, 25, 31])
    needle = [_png(writer, f"needle-{gold}-{j}", 250) for j in range(2)]
    if "same-prompt" in cue:
        start, needle = 20, [_png(writer, f"needle-same-{j}", 250) for j in range(2)]
    frames[start:start + 2] = needle
    return Sample(id=f"watch/{i:04d}", benchmark=BENCH, task="watch",
                  context=[VideoPart(frames=tuple(frames), fps=1.0)],
                  question=[TextPart("Which word did the needle show?")], answer=gold,
                  meta={"needle_frames": [start, start + 1]})


def _build(root: Path, cue: set[str], *, seed: int = 0, tasks: tuple[str, ...] = ("find",)) -> Path:
    rng = random.Random(seed)
    with DatasetWriter(root) as writer:
        counts: dict[str, int] = {}
        for i in range(N):
            for task in tasks:
                if task == "find":
                    sample = _find_sample(rng, i, cue, writer)
                elif task == "pick":
                    sample = _pick_sample(rng, i, cue, writer)
                elif task == "count":
                    sample = _count_sample(rng, i, cue)
                else:
                    if i >= 40:
                        continue
                    sample = _watch_sample(rng, i, cue, writer)
                writer.write(sample)
                counts[task] = counts.get(task, 0) + 1
        writer.finish({"benchmark": BENCH, "tasks": list(tasks), "num_samples": sum(counts.values())})
    return root


@pytest.fixture(scope="module")
def clean_find(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("audit") / "clean", set())


def _verdicts(root: Path, **options: Any) -> dict[tuple[str, str], bool]:
    report = audit_dataset(root, AuditOptions(**options), progress=False)
    return {(p.task, p.probe): p.passed for p in report.probes}


def test_clean_dataset_passes_every_probe(tmp_path: Path) -> None:
    root = _build(tmp_path / "clean", set(), tasks=("find", "pick", "count", "watch"))
    reference = _build(tmp_path / "ref", set(), seed=1, tasks=("find", "pick", "count"))
    report = audit_dataset(root, AuditOptions(reference=reference), progress=False)
    probes = {(p.task, p.probe) for p in report.probes}
    for expected in [("find", "random"), ("find", "question-echo"), ("find", "majority-task"),
                     ("find", "majority-question"), ("find", "reference-table"), ("find", "constant"),
                     ("find", "text-whitespace"), ("find", "text-whitespace-skew"), ("find", "text-paragraph-role"),
                     ("find", "image-position"), ("find", "image-position-skew"), ("find", "gold-in-haystack"),
                     ("find", "needles-delivered"), ("find", "same-prompt"), ("pick", "random"),
                     ("count", "constant"), ("watch", "needles-delivered"), ("watch", "answer-pool")]:
        assert expected in probes, expected
    assert report.passed, [(p.task, p.probe, p.score, p.chance, p.detail) for p in report.failed]
    pick_random = next(p for p in report.probes if (p.task, p.probe) == ("pick", "random"))
    assert pick_random.chance == 25.0 and abs(pick_random.score - 25.0) < 10


@pytest.mark.parametrize(("cue", "probe"), [
    ("majority", "majority-task"),
    ("question-table", "majority-question"),
    ("small-pool", "answer-pool"),
    ("echo", "question-echo"),
    ("whitespace", "text-whitespace"),
    ("own-paragraph", "text-paragraph-role"),
    ("image-last", "image-position"),
    ("leak", "gold-in-haystack"),
])
def test_each_cue_is_caught(tmp_path: Path, clean_find: Path, cue: str, probe: str) -> None:
    verdicts = _verdicts(_build(tmp_path / cue, {cue}))
    assert verdicts[("find", probe)] is False
    clean = _verdicts(clean_find)
    assert clean.get(("find", probe), True) is True  # a clean build may have no closed pool to list


@pytest.mark.parametrize(("cue", "task", "probe"), [
    ("longest", "pick", "learned"),
    ("bright", "pick", "learned"),
    ("near-end", "find", "learned"),
    ("rare-mark", "find", "learned"),
    ("paragraphs", "count", "learned"),
    ("small-pool", "find", "answer-pool-budget"),
])
@pytest.mark.slow
def test_planted_cues_fail_the_reading_probes(tmp_path: Path, clean_reading: dict[str, Any], cue: str,
                                              task: str, probe: str) -> None:
    """A cue no probe is named after (the right option longest or brighter, the gold said again at the end,
    the needle marked by a rare mark, the count given by the paragraphs, a small answer pool) fails the
    learned or budget-pool probe; the same task built clean passes it."""
    cued = {(p.task, p.probe): p for p in audit_dataset(_build(tmp_path / "cued", {cue}, tasks=(task,)),
                                                          AuditOptions(), progress=False).probes}
    assert cued[(task, probe)].passed is False, cued[(task, probe)]
    clean = clean_reading[task]
    assert clean[(task, probe)].passed is True, clean[(task, probe)]


@pytest.fixture(scope="module")
def clean_reading(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each task's clean build, audited once (the toy family is registered for the module's first test)."""

    class Lazy(dict[str, Any]):
        def __missing__(self, task: str) -> Any:
            root = _build(tmp_path_factory.mktemp("reading") / task, set(), tasks=(task,))
            self[task] = {(p.task, p.probe): p for p in audit_dataset(root, AuditOptions(), progress=False).probes}
            return self[task]

    return Lazy()


def test_reference_table_catches_fixed_answers_across_builds(tmp_path: Path) -> None:
    cued = _build(tmp_path / "a", {"question-table"})
    other = _build(tmp_path / "b", {"question-table"}, seed=7)
    verdicts = _verdicts(cued, reference=other)
    assert verdicts[("find", "reference-table")] is False


def test_constant_and_random_probes(tmp_path: Path) -> None:
    verdicts = _verdicts(_build(tmp_path / "c", {"constant"}, tasks=("count",)))
    assert verdicts[("count", "constant")] is False
    _CUE["random_empty"] = True  # a random baseline that never answers sits below chance on multiple choice
    verdicts = _verdicts(_build(tmp_path / "p", set(), tasks=("pick",)))
    assert verdicts[("pick", "random")] is False


def test_delivery_follows_the_runners_frame_sampling(tmp_path: Path) -> None:
    root = _build(tmp_path / "v", {"drop"}, tasks=("watch",))
    assert _verdicts(root)[("watch", "needles-delivered")] is True  # every frame sent
    # 8 frames of 40 sampled uniformly keep frames 0, 6, 11, 17, 22, 28, 33, 39: needles at 3-4, 25-26, 31-32
    # are dropped
    report = audit_dataset(root, AuditOptions(max_frames=8), progress=False)
    delivery = next(p for p in report.probes if p.probe == "needles-delivered")
    assert not delivery.passed and 0 < delivery.score < 100
    # a needle that is not sent is no shortcut: the verdict and the summary say what it is
    import io

    from niah.audit.dataset import print_report
    from niah.report.audit_section import InputAudit, audit_markdown

    printed = io.StringIO()
    print_report(report, printed)
    text = printed.getvalue()
    assert "NOT SENT" in text and "delivery probe(s) failed" in text
    assert "SHORTCUT" not in text and "beat chance" not in text
    tables = audit_markdown([InputAudit("v", tmp_path / "audit.json", report.to_json())])
    # the needles and what tells samples apart (same-prompt) are both missing from what is sent
    assert "| NOT SENT |" in tables and "2 delivery probe(s) failed" in tables and "beat chance" not in tables
    same = _build(tmp_path / "s", {"same-prompt"}, tasks=("watch",))
    assert _verdicts(same)[("watch", "same-prompt")] is False


def test_cli_writes_audit_json_and_exits_1_on_a_shortcut(tmp_path: Path, clean_find: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    cued = _build(tmp_path / "cued", {"majority"})
    result = CliRunner().invoke(app, ["audit", str(cued), "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "SHORTCUT" in result.output
    data = json.loads((cued / "audit.json").read_text())
    assert data["passed"] is False and any(p["probe"] == "majority-task" and not p["passed"]
                                           for p in data["probes"])
    out = tmp_path / "elsewhere.json"
    result = CliRunner().invoke(app, ["audit", str(clean_find), "--no-progress", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["passed"] is True
    # an earlier audit is replaced (the cued one by the clean one); a file of the user's is refused, unasked
    result = CliRunner().invoke(app, ["audit", str(clean_find), "--no-progress", "--out", str(cued / "audit.json")])
    assert result.exit_code == 0 and json.loads((cued / "audit.json").read_text())["passed"] is True
    mine = tmp_path / "notes.json"
    mine.write_text('{"dataset": "mine", "samples": 1}\n')
    result = CliRunner().invoke(app, ["audit", str(clean_find), "--no-progress", "--out", str(mine)])
    assert result.exit_code == 2 and f"--out {mine} exists and is not an audit.json" in result.output
    assert mine.read_text() == '{"dataset": "mine", "samples": 1}\n'
    result = CliRunner().invoke(app, ["audit", str(clean_find), "--no-progress", "--out", str(mine), "--overwrite"])
    assert result.exit_code == 0 and json.loads(mine.read_text())["passed"] is True


def test_report_shows_the_audit_of_a_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    root = _build(tmp_path / "cued", {"image-last"})
    run = tmp_path / "run"
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(root), "--model", "baseline:oracle", "--out", str(run),
                               "--no-progress"]).exit_code == 0
    assert runner.invoke(app, ["score", str(run)]).exit_code == 0
    result = runner.invoke(app, ["audit", "--run", str(run), "--no-progress"])
    assert result.exit_code == 1 and (run / "audit.json").is_file()
    result = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report" / "index.html").read_text()
    assert '<section id="audit">' in page and "image-position" in page and "audit-fail" in page
    tables = (tmp_path / "report" / "tables.md").read_text()
    assert "## Audit" in tables and "SHORTCUT" in tables


def test_shape_table_catches_a_query_image_copied_byte_for_byte(tmp_path: Path) -> None:
    def build(root: Path, copied: bool) -> Path:
        rng = random.Random(3)
        with DatasetWriter(root) as writer:
            for i in range(120):
                gold = rng.choice(["yes", "no"])
                images = [_png(writer, f"hay-{i}-{k}", rng.randrange(250)) for k in range(4)]
                query = _png(writer, f"query-{i}", 251)
                if gold == "yes":  # the query stands in the haystack: as the same file, or redrawn
                    images[rng.randrange(4)] = query if copied else _png(writer, f"copy-{i}", 252)
                writer.write(Sample(
                    id=f"vh/{i:04d}", benchmark=BENCH, task="pick", context=[ImagePart(p) for p in images],
                    question=[TextPart("Is this image in the document?"), ImagePart(query)], answer=gold,
                    meta={}))
            writer.finish({"benchmark": BENCH, "tasks": ["pick"], "num_samples": 120})
        return root

    def shape(root: Path) -> Any:
        report = audit_dataset(root, AuditOptions(), progress=False)
        return next(p for p in report.probes if p.probe == "shape-table")

    cued = shape(build(tmp_path / "copied", True))
    assert cued.score > 95 and not cued.passed
    # redrawn, the copy is another file with the same look; whether to trust pixels is the model's job
    assert shape(build(tmp_path / "redrawn", False)).score < 70


def test_bad_settings_are_refused_before_any_work(tmp_path: Path, clean_find: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    out = tmp_path / "audit.json"
    for bad in (["--over-limit", "bogus"], ["--video-fps", "0"]):
        result = CliRunner().invoke(app, ["audit", str(clean_find), "--no-progress", "--out", str(out), *bad])
        assert result.exit_code == 2 and not out.exists(), result.output


def test_skew_is_a_diagnostic_beside_the_finders(tmp_path: Path) -> None:
    report = audit_dataset(_build(tmp_path / "para", {"own-paragraph"}), AuditOptions(), progress=False)
    skew = next(p for p in report.probes if p.probe == "text-paragraph-role-skew")
    assert skew.advisory and not skew.passed and skew in report.skewed and skew not in report.failed


def test_a_probe_on_too_few_samples_is_a_diagnostic_not_a_verdict() -> None:
    """niah eval's small grids hold one sample per task: a constant reply fitted to that sample "wins" by
    construction, which shows nothing about the generator; from MIN_VERDICT_SAMPLES on, the verdict counts."""
    from niah.audit.dataset import MIN_VERDICT_SAMPLES, judge_probe

    one = judge_probe("constant", "t", "no-read", {0: 1.0}, {0: 0.0}, 5.0, "best constant reply")
    assert one is not None and not one.passed and one.advisory and "too few" in one.detail
    many = {i: 1.0 for i in range(MIN_VERDICT_SAMPLES)}
    enough = judge_probe("constant", "t", "no-read", many, dict.fromkeys(many, 0.0), 5.0, "best constant reply")
    assert enough is not None and not enough.passed and not enough.advisory


def _count_build(root: Path, golds: list[int]) -> Path:
    """A ``count`` task whose samples have exactly these golds (the haystack is filler)."""
    rng = random.Random(0)
    with DatasetWriter(root) as writer:
        for i, gold in enumerate(golds):
            writer.write(Sample(id=f"count/{i:04d}", benchmark=BENCH, task="count",
                                context=[TextPart(" ".join(_sentence(rng) for _ in range(5)))],
                                question=[TextPart("How many?")], answer=gold, meta={}))
        writer.finish({"benchmark": BENCH, "tasks": ["count"], "num_samples": len(golds)})
    return root


def _constant_probe(root: Path) -> Any:
    report = audit_dataset(root, AuditOptions(), progress=False)
    return next(p for p in report.probes if p.probe == "constant")


def test_constant_is_learned_on_the_other_samples(tmp_path: Path) -> None:
    """Twelve distinct golds: the best constant fitted to all samples is one sample's own gold (1 in 12, a
    selection effect); learned on the other samples it never matches."""
    probe = _constant_probe(_count_build(tmp_path / "distinct", list(range(12))))
    assert probe.n == 12 and probe.score == 0.0 and probe.passed
    assert "on the other samples" in probe.detail


def test_a_true_constant_shortcut_still_fails(tmp_path: Path) -> None:
    """Sixteen of twenty golds are 7: learned on the others, 7 is picked for every sample and scores 80%."""
    probe = _constant_probe(_count_build(tmp_path / "sevens", [7] * 16 + [1, 2, 3, 4]))
    assert probe.score == 80.0 and not probe.passed
    assert probe.detail.endswith(": 7 (for all 20 samples)")


def test_leave_one_out_best_picks_on_the_others_only() -> None:
    from niah.audit.dataset import leave_one_out_best

    # fitted to all four samples "b" scores 50%; with each sample left out, "b" leads by no more than that
    # sample's own point where it scores, so the tie goes to "a" (sorted first), which scores 0 there
    loo = leave_one_out_best({"b": [1.0, 1.0, 0.0, 0.0], "a": [0.0, 0.0, 1.0, 0.0]})
    assert loo.best == "b"
    assert loo.picks == ["a", "a", "b", "b"] and loo.scores == [0.0, 0.0, 0.0, 0.0]
    assert loo.most_picked() == ("a", 2)
    # None: nothing toward the total, and the sample stays unscored when its pick is None there
    loo = leave_one_out_best({"x": [None, 1.0, 1.0], "y": [0.0, 0.0, 0.5]})
    assert loo.picks == ["x", "x", "x"] and loo.scores == [None, 1.0, 1.0]
    with pytest.raises(ValueError):
        leave_one_out_best({"x": [1.0], "y": [1.0, 0.0]})


def test_printed_report_shows_dataset_text_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Task names, details and notes come from the dataset: printed as rich markup, "[/bold]" raised a
    MarkupError after all the work, and "[hf]" vanished."""
    import io

    from niah.audit.dataset import AuditOptions, AuditReport, ProbeResult, print_report

    probes = [ProbeResult("constant", "[/bold]", "no-read", 80.0, 25.0, 20, False, "best reply: [hf] [/x]"),
              ProbeResult("text-whitespace-skew", "[/bold]", "layout", 30.0, 5.0, 20, False, "[red]x",
                          advisory=True)]
    report = AuditReport("ds", 20, AuditOptions(), probes, tasks={"[/bold]": 20}, notes=["[/note] [b]"])
    stream = io.StringIO()
    print_report(report, stream)
    print_report(report)  # the terminal console too
    for out in (stream.getvalue(), capsys.readouterr().out):
        assert "[/bold] (20 samples)" in out and "best reply: [hf] [/x]" in out
        assert "note: [/note] [b]" in out and "([red]x)" in out and "SHORTCUT" in out


def test_an_audit_of_another_dataset_is_not_filed_as_the_runs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    root = _build(tmp_path / "cued", {"image-last"})
    other = _build(tmp_path / "clean", set())
    run = tmp_path / "run"
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(root), "--model", "baseline:oracle", "--out", str(run),
                               "--no-progress"]).exit_code == 0
    result = runner.invoke(app, ["audit", str(other), "--run", str(run), "--no-progress"])
    assert result.exit_code == 2 and "is not the dataset of run" in result.output
    assert not (run / "audit.json").exists()
    # the run's own dataset named explicitly is fine; another one written elsewhere on purpose too
    assert runner.invoke(app, ["audit", str(root), "--run", str(run), "--no-progress"]).exit_code == 1
    elsewhere = tmp_path / "other-audit.json"
    result = runner.invoke(app, ["audit", str(other), "--run", str(run), "--out", str(elsewhere), "--no-progress"])
    assert result.exit_code in (0, 1) and elsewhere.is_file()


def test_a_guess_on_five_samples_does_not_fail_on_luck() -> None:
    """10 random replies on each of 5 four-option samples: 19 right of 50 (38%) is 2 binomial standard errors
    from chance, luck; the 5 samples' means happen to lie close together, which alone would call it a shortcut."""
    from niah.audit.dataset import judge_probe

    values = dict(enumerate([0.4, 0.4, 0.3, 0.4, 0.4]))
    chances = dict.fromkeys(values, 0.25)
    alone = judge_probe("random", "t", "no-read", values, chances, 5.0, "", two_sided=True)
    floored = judge_probe("random", "t", "no-read", values, chances, 5.0, "", two_sided=True, replies=10)
    assert alone is not None and not alone.passed and not alone.advisory
    assert floored is not None and floored.passed and floored.noise > 13.0
    # a real shortcut still fails: every one of 55 samples right against chance 25
    sure = judge_probe("constant", "t", "no-read", dict.fromkeys(range(55), 1.0), dict.fromkeys(range(55), 0.25),
                       5.0, "", replies=1)
    assert sure is not None and not sure.passed


def test_out_naming_a_folder_writes_audit_json_in_it(tmp_path: Path, clean_find: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    folder = tmp_path / "audits"
    folder.mkdir()
    result = CliRunner().invoke(app, ["audit", str(clean_find), "--no-progress", "--out", str(folder)])
    assert result.exit_code == 0, result.output
    assert json.loads((folder / "audit.json").read_text())["passed"] is True


def test_variants_of_one_item_are_left_out_with_it(tmp_path: Path) -> None:
    """Noise variants keep their base's question and gold: left out one by one, a sample's own variants would
    tell the table its gold (100 vs chance 0); left out as a group, nothing is learned."""
    rng = random.Random(5)
    root = tmp_path / "noisy"
    with DatasetWriter(root) as writer:
        for b in range(30):
            gold = WORDS[b]
            question = f"What is the code word of item {b}?"
            for v in range(4):
                context = [TextPart(" ".join(_sentence(rng) for _ in range(6)) + f" The code word is {gold}.")]
                meta: dict[str, Any] = {"needle_texts": [f"The code word is {gold}."]}
                if v:
                    meta["variant_of"] = f"find/{b:03d}"
                writer.write(Sample(id=f"find/{b:03d}" + (f"_{v}" if v else ""), benchmark=BENCH, task="find",
                                    context=context, question=[TextPart(question)], answer=gold, meta=meta))
        writer.finish({})
    grouped = {p.probe: p for p in audit_dataset(root, progress=False).probes}
    assert grouped["majority-question"].score == 0.0 and grouped["majority-question"].passed
    assert grouped["constant"].score == 0.0
    _CUE["no_groups"] = True
    alone = {p.probe: p for p in audit_dataset(root, progress=False).probes}
    assert alone["majority-question"].score == 100.0 and not alone["majority-question"].passed


def test_group_left_out_modes_and_constants_match_a_full_recount() -> None:
    from collections import Counter

    from niah.audit.dataset import _TopCounts

    rng = random.Random(11)
    for _ in range(200):
        golds = [rng.choice("abcdef") for _ in range(rng.randint(1, 30))]
        groups = [str(rng.randrange(8)) for _ in golds]
        counts = Counter(golds)
        removed_by = {g: Counter(x for x, h in zip(golds, groups, strict=True) if h == g) for g in set(groups)}
        top = _TopCounts(counts, 1 + max(len(c) for c in removed_by.values()))
        for removed in removed_by.values():
            left = {k: counts[k] - removed.get(k, 0) for k in counts if counts[k] - removed.get(k, 0) > 0}
            want = min(left, key=lambda k: (-left[k], k)) if left else None
            assert top.mode_without_counts(removed) == want
        scores = {label: [float(x == label) if rng.random() > 0.2 else None for x in golds] for label in "abc"}
        loo = leave_one_out_best(scores, groups=groups)
        for i, g in enumerate(groups):
            totals = {label: sum(v for v, h in zip(vals, groups, strict=True) if v is not None and h != g)
                      for label, vals in scores.items()}
            best = min(totals, key=lambda label: (-totals[label], label))
            assert loo.picks[i] == best and loo.scores[i] == scores[best][i]


def test_list_items_and_their_markers_are_no_sentences_of_the_skew() -> None:
    """A family whose needles stand only in plain paragraphs (``AuditSpec.needles_in_lists`` False: MM-NIAH,
    MileBench) has its needles compared with plain-paragraph sentences, so a bullet or numbered item (and a "1."
    marker cut off as a segment of its own) is left out of that set; a family whose needles may take a list
    item's place (Sequential-NIAH) keeps them."""
    from niah.audit.dataset import _text_segments
    from niah.sample import Sample, TextPart

    text = ("Notes\n\nFirst plain sentence. The needle sits here.\n\n- A bulleted item.\n- Another one.\n"
            "1. A numbered item.\n2. And a second.\n\nLast plain sentence.")
    sample = Sample(id="t/0", benchmark="toy", task="t", context=[TextPart(text)], question=[TextPart("?")],
                    answer="x")
    everything, _ = _text_segments(sample, ["The needle sits here."])
    assert sum(is_sentence for *_rest, is_sentence in everything) == 9  # lists count: 4 items, 2 markers
    segments, missing = _text_segments(sample, ["The needle sits here."], lists_count=False)
    assert not missing
    plain = [(b, a, n) for b, a, n, is_plain in segments if is_plain]
    assert len(plain) == 3 and sum(n for _b, _a, n in plain) == 1  # two plain sentences and the needle
    assert len(segments) == 10  # title, 3 plain, 2 bullets, 2 markers + 2 numbered items


def test_templated_needles_show_in_the_vocabulary_diagnostic_without_failing(clean_find: Path) -> None:
    """Every toy needle reads "The code word is ...": the words of the other samples' needles pick it out of
    its haystack, which the audit reports per build as a diagnostic (skewed), never as a failure."""
    report = audit_dataset(clean_find, AuditOptions(), progress=False)
    outlier = next(p for p in report.probes if (p.task, p.probe) == ("find", "vocabulary-outlier"))
    assert outlier.advisory and not outlier.passed and outlier.score > outlier.chance + 50, outlier
    scan = next(p for p in report.probes if (p.task, p.probe) == ("find", "type-scan"))
    assert scan.advisory, scan
    assert report.passed, [(p.task, p.probe, p.score, p.chance) for p in report.failed]
