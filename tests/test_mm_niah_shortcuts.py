"""MM-NIAH samples a model cannot answer without doing the task: answers drawn per sample, spread counts, image
places that tell nothing, images in every document, a random baseline at chance, the family's AuditSpec."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from niah.benchmarks.mm_niah import templates
from niah.benchmarks.mm_niah.audit import chance, probes, retrieval_diagnostics
from niah.benchmarks.mm_niah.build import COUNTING_MAX_IMAGES, BuildConfig, draw_image_counts
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.benchmarks.mm_niah.family import FAMILY
from niah.benchmarks.mm_niah.score import score_sample
from niah.build.english import format_with_articles
from niah.models.base import ModelSpec
from niah.models.baselines import RandomBaseline, oracle_reply
from niah.run.delivery import default_locate
from niah.sample import Dataset, ImagePart, Sample, TextPart, parts_text
from niah.scoring.metrics.vqa import normalize_vqa
from niah.util.errors import ConfigError, DataError

TEXT_TASKS = ["retrieval-text", "reasoning-text"]


def _build(out: Path, **kw: object) -> list[Sample]:
    build_mm_niah(BuildConfig(**kw), out, progress=False)  # type: ignore[arg-type]
    return list(Dataset(out))


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Sample], list[Sample]]:
    """One small build of five tasks (seed 5) and the text tasks again with seed 1 (building the corpus pool is
    most of a small build's time, so the tests share these two). Seed 5: a haystack image stands last rarely
    (4 of 429 over this grid with seeds 0-5, against 39 of 221 needle images), and since the draws follow the
    build key, seeds 0, 2, 3 and 4 show no haystack image last or none beside another."""
    root = tmp_path_factory.mktemp("shortcuts")
    first = _build(root / "s0", seed=5, tasks=[*TEXT_TASKS, "counting-text", "retrieval-image", "counting-image"],
                   lengths=["1k-2k", "4k-8k"], depths=[0.0, 0.4, 0.8], per_cell=2)
    second = _build(root / "s1", seed=1, tasks=TEXT_TASKS, lengths=["1k-2k", "4k-8k"], depths=[0.0, 0.4, 0.8],
                    per_cell=1)
    return first, second


@pytest.fixture(scope="module")
def text_builds(builds: tuple[list[Sample], list[Sample]]) -> tuple[list[Sample], list[Sample]]:
    return [s for s in builds[0] if s.task in TEXT_TASKS], builds[1]


@pytest.fixture(scope="module")
def image_build(builds: tuple[list[Sample], list[Sample]]) -> list[Sample]:
    return [s for s in builds[0] if s.task in ("retrieval-image", "counting-image", "counting-text")]


def _score(sample: Sample, reply: str) -> float:
    return score_sample(sample, reply).scores["official"]


def test_a_question_answer_table_from_another_seed_scores_near_zero(text_builds) -> None:
    """The old fixed pools gave every question one answer: a table learned from another seed scored 80-94%."""
    first, second = text_builds
    table: dict[tuple[str, str], Counter[str]] = {}
    for s in second:
        table.setdefault((s.task, parts_text(s.question)), Counter())[s.answer] += 1
    for task in TEXT_TASKS:
        rows = [s for s in first if s.task == task]
        hits = [_score(s, table[(task, parts_text(s.question))].most_common(1)[0][0])
                if (task, parts_text(s.question)) in table else 0.0 for s in rows]
        assert sum(hits) / len(rows) <= 0.05, task
        # the same question text (a template whose other slots drew the same values) need not fix the answer
        golds = Counter(s.answer for s in rows)
        assert golds.most_common(1)[0][1] <= 3 and len(golds) >= 0.8 * len(rows), task


def test_answers_are_only_in_the_needles_and_the_oracle_scores(text_builds) -> None:
    for s in text_builds[0]:
        needles = s.meta["needles"]
        text = parts_text([p for p in s.context if isinstance(p, TextPart)])
        for n in needles:
            assert n in text
            text = text.replace(n, " ")
        assert not templates.mentions(text, s.answer), s.id  # nowhere in the haystack itself
        assert not templates.contains(parts_text(s.question), s.answer), s.id
        assert any(templates.contains(n, s.answer) for n in needles), s.id
        assert _score(s, oracle_reply(s)) == 1.0 and _score(s, parts_text(s.question)) == 0.0
        assert s.meta["needle_template"]


def test_every_template_draws_a_new_answer_every_time() -> None:
    """Answers come from generated vocabularies (made-up words, millions of them): 120 draws, 120 answers."""
    rng = random.Random(0)
    for t in (*templates.load_retrieval_templates(), *templates.load_reasoning_templates()):
        answers = {templates.fill(t, rng).answer for _ in range(120)}
        assert len(answers) == 120, t.id
        assert all(templates.value_kind(a) is not None for a in answers), t.id


def _pools(**extra: list[str]) -> dict[str, tuple[str, ...]]:
    values = [f"value{c}" for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"]
    return {"thing": tuple(values), "town": tuple(f"Town{c}" for c in "abcdef"), **{k: tuple(v) for k, v in
                                                                                 extra.items()}}


_GENERATED = {"gen": templates.Generated("gen", "name")}


@pytest.mark.parametrize(("item", "message"), [
    ({"needle": "In {town} the prize is a {answer}.", "question": "What is the prize in {town}, a {answer}?",
      "slots": {"town": "town", "answer": "gen"}}, "must not show the answer"),
    ({"needle": "In {town} the prize is a {answer}.", "question": "What is the prize in {town}?",
      "slots": {"town": "town", "answer": "thing"}}, "must draw from a generated pool"),
    ({"needle": "In {town} the prize is a {answer}.", "question": "What is the prize in {place}?",
      "slots": {"town": "town", "answer": "gen"}}, "differ from slots declared"),
    ({"needle": "In {town} the prize is here.", "question": "What is the prize in {town}?",
      "slots": {"town": "town", "answer": "gen"}}, "differ from slots declared"),
    ({"needle": "In {town} the prize is a {answer}.", "question": "What is the prize in {town}?",
      "slots": {"town": "nowhere", "answer": "gen"}}, "unknown pool"),
    ({"needle": "In {town} the prize is a {answer}.", "question": "What is the prize in {town}?",
      "slots": {"town": "town", "answer": "gen"}, "decoy_frames": [1]}, "decoy_frames"),
    ({"needle": "In {town} {who} won a {answer}.", "question": "What did {who} win in {town}?",
      "slots": {"town": "town", "who": "town", "answer": "gen"}}, "too small for its slots and their decoys"),
])
def test_bad_templates_are_refused_at_load(item: dict[str, object], message: str) -> None:
    with pytest.raises(DataError, match=message):
        templates.parse_templates("t.json", {"items": [{"id": "x", **item}]}, _pools(), statements=1,
                                  generated=_GENERATED)


@pytest.mark.parametrize(("generated", "message"), [
    ({"g": {"form": "song"}}, "form must be one of"),
    ({"g": {"form": "word", "suffixes": ["Lane"]}}, "name form only"),
    ({"g": {"form": "phrase"}}, "closed pool 'g', which is missing"),
    ({"thing": {"form": "name"}}, "both a closed and a generated pool"),
])
def test_bad_generated_pools_are_refused_at_load(generated: dict[str, object], message: str) -> None:
    with pytest.raises(DataError, match=message):
        templates.parse_generated("v.json", {"generated": generated}, _pools())


def test_made_up_words_are_left_alone_by_the_official_normalization() -> None:
    rng = random.Random(3)
    words = [templates.made_up_word(rng) for _ in range(3000)]
    assert len(set(words)) >= 2990  # millions of words: repeats are rare
    for word in words:
        assert templates.MADE_UP_WORD.fullmatch(word) and templates.contains(f"It is {word}.", word)
        assert normalize_vqa(word) == word
    spec = templates.load_generated()["building"]
    value = "Velkor " + spec.heads[0]
    assert templates.value_kind(value) == "building" and templates.value_kind("Velkor") == "name"
    assert templates.find_values(f"The {value} stands by Drissa's house; Velkor {spec.heads[0]} again.",
                                 "building") == [value, value]
    assert templates.find_values(f"The {value} stands by Drissa's house.", "name") == ["Drissa"]


def test_bad_pools_are_refused_at_load() -> None:
    with pytest.raises(DataError, match="part of"):
        templates.parse_pools("v.json", {"pools": {"p": ["glass", "sea glass"]}})
    with pytest.raises(DataError, match="same answer"):
        templates.parse_pools("v.json", {"pools": {"p": ["The Owl", "owl"]}})
    with pytest.raises(DataError, match="empty after"):
        templates.parse_pools("v.json", {"pools": {"p": ["the"]}})


def test_reasoning_choices_put_the_answer_anywhere() -> None:
    """Fixed triples had one option order per question, so the question told the option index."""
    rng = random.Random(0)
    for t in templates.load_reasoning_templates():
        places = Counter()
        for _ in range(40):
            filled = templates.fill(t, rng)
            pool, slot_pool = t.answer_pool, dict(t.slots)
            side = [v for _s, values in templates.decoys(filled, rng, 3) for k, v in values.items()
                    if slot_pool[k] == pool]
            options, index = templates.choice_values(filled, rng, decoy_values=side)
            if t.choices is None:  # the other options are values the decoys name, where they name enough
                assert sum(o in side for o in options) == min(3, len(set(side)))
            assert len(set(options)) == 4 and options[index] == filled.answer
            assert not templates.contains(filled.question, filled.answer)
            places[index] += 1
        assert len(places) == 4 and max(places.values()) <= 22, t.id


def test_counting_image_counts_are_uniform_so_zero_is_no_better_than_chance(image_build) -> None:
    """The old build pasted into at most half of the images: 74% of gold counts were 0 and [0, 0, ...] scored
    70% against a chance of 25%."""
    rng = random.Random(0)
    draws = Counter(v for _ in range(4000) for v in draw_image_counts(rng, 4))
    assert all(abs(draws[v] / 16000 - 0.25) < 0.02 for v in range(4))
    rows = [s for s in image_build if s.task == "counting-image"]
    assert all(1 <= len(s.answer) <= COUNTING_MAX_IMAGES and 1 <= sum(a > 0 for a in s.answer) <= 5
               and len(s.answer) == s.meta["num_images"] for s in rows)
    for v in range(4):
        score = sum(_score(s, json.dumps([v] * 40)) for s in rows) / len(rows)
        assert score <= 0.25 + 0.2, v  # 12 short samples: a loose bound around 1/4, far below the old 70%


def test_haystack_images_stand_first_last_and_side_by_side_too(builds) -> None:
    """Spread evenly, haystack images never stood last or beside another image: any image there was the needle
    (153 of 153 last images). (First is rare for any image: only a depth before the first paragraph boundary.)"""
    where: Counter[str] = Counter()
    for s in builds[0]:
        needles = set(s.meta["needles"])
        ctx = s.context
        for i, p in enumerate(ctx):
            if isinstance(p, ImagePart) and p.path not in needles:
                where["last"] += i == len(ctx) - 1
                where["adjacent"] += i + 1 < len(ctx) and isinstance(ctx[i + 1], ImagePart)
    assert where["last"] > 0 and where["adjacent"] > 0, where


def test_short_documents_hold_images(text_builds) -> None:
    """The per-2K rule left 1K-2K text-task documents without any image; the paper's documents all have one."""
    assert all(s.meta["num_images"] >= 1 for s in text_builds[0])


def test_random_baseline_is_at_chance_and_audit_spec(image_build, text_builds) -> None:
    rb = RandomBaseline(ModelSpec("baseline", "random"))
    spec = FAMILY.audit() if FAMILY.audit is not None else None
    assert spec is not None and spec.chance is chance and spec.locate is None
    for s in image_build:
        if s.task == "counting-image":
            reply = json.loads(rb.answer(s))
            assert len(reply) == s.meta["num_images"] and set(reply) <= {0, 1, 2, 3}
            assert chance(s) == 0.25
        elif s.task == "counting-text":
            reply = json.loads(rb.answer(s))
            assert len(reply) == 3 and set(reply) <= set(range(1, 11)) and chance(s) == 0.1
    by_task: dict[str, list[float]] = {}
    for s in image_build + text_builds[0]:
        by_task.setdefault(s.task, []).append(_score(s, rb.answer(s)) - chance(s))
        assert len(default_locate(s)) == len(s.meta["needles"]), s.id  # the default locator finds each needle
    for task, gaps in by_task.items():  # 12 samples a task: a loose bound (the old counting-image guess, 0..10
        # per image, sat 15 points under chance; the counts' ranges are checked exactly above)
        assert abs(sum(gaps) / len(gaps)) <= 0.2, task
    results = probes(image_build, {})
    assert {(r.task, r.probe) for r in results} == {("counting-image", "constant-count"),
                                                    ("counting-text", "constant-count"),
                                                    ("retrieval-image", "constant-option")}
    old = [Sample(id=f"c/{i}", benchmark="mm-niah", task="counting-image", context=[], question=[],
                  answer=[0, 0, 0, 1], choices=None, meta={}) for i in range(20)]
    assert not probes(old, {})[0].passed  # mostly zeros: the constant reply beats chance


def test_constant_probes_are_learned_on_the_other_samples() -> None:
    """The family's constant probes go through the audit's leave-one-out pick (values worked out by hand)."""
    def sample(i: int, task: str, answer: object, choices: int = 0) -> Sample:
        return Sample(id=f"s/{i}", benchmark="mm-niah", task=task, context=[], question=[], answer=answer,
                      choices=[[TextPart(f"o{k}")] for k in range(choices)] or None, meta={})

    # options A, A, A, B: A is picked on the others every time and right 3 times in 4
    options = probes([sample(i, "retrieval-image", a, 4) for i, a in enumerate([0, 0, 0, 1])], {})[0]
    assert (options.probe, options.score, options.n) == ("constant-option", 75.0, 4)
    # counts [0, 0], [0, 1], [1, 1]: left out, the first picks 1 (others 0.5 vs 1.5), the second 0 (a tie,
    # 0 sorted first: half right), the third 0; fitted to all three the best would score a third
    counts = probes([sample(i, "counting-image", a) for i, a in enumerate([[0, 0], [0, 1], [1, 1]])], {})[0]
    assert counts.probe == "constant-count" and counts.score == pytest.approx(100 / 6, abs=0.01)
    assert "[0, 0, ...]" in counts.detail


def test_reasoning_choices_put_the_answer_where_the_deck_says() -> None:
    rng = random.Random(0)
    for t in templates.load_reasoning_templates()[:8]:
        filled = templates.fill(t, rng)
        for where in range(4):
            options, index = templates.choice_values(filled, rng, answer_for=lambda n, where=where: where)
            assert index == where and options[where] == filled.answer and len(set(options)) == 4


def _mentions_of_type(sample: Sample) -> tuple[Counter[str], str]:
    """The generated values of the answer's shape in the inserted statements (needles and decoys: what a perfect
    finder of inserted sentences returns), counted, leaving out those the question names."""
    kind = templates.value_kind(sample.answer)
    assert kind is not None
    question = parts_text(sample.question)
    counts = Counter(templates.find_values(" ".join([*sample.meta["needles"], *sample.meta["distractors"]]), kind))
    return Counter({v: n for v, n in counts.items() if not templates.contains(question, v)}), kind


def test_reasoning_answers_are_not_the_one_value_mentioned_once(text_builds) -> None:
    """A chain "A is the father of B. B is the mother of C. C is the brother of D." ends on the one name said
    once: picking it scored 90 against chance. Each chain statement now has a decoy beside it in the context,
    about other people or things, so the pick falls to picking any value of the answer's type among them."""
    once_pick, uniform = [], []
    for s in (s for build in text_builds for s in build if s.task == "reasoning-text"):
        counts, _kind = _mentions_of_type(s)
        assert counts[s.answer] >= 1, s.id
        once = [v for v, n in counts.items() if n == 1]
        once_pick.append((s.answer in once) / len(once) if once else 0.0)
        uniform.append(1 / len(counts))
        text = parts_text([p for p in s.context if isinstance(p, TextPart)])
        assert len(s.meta["needles"]) == 3 and len(s.meta["distractors"]) == 3, s.id
        assert all(n in text for n in [*s.meta["needles"], *s.meta["distractors"]]), s.id
        assert not any(templates.contains(d, s.answer) for d in s.meta["distractors"]), s.id
    assert len(once_pick) >= 15
    assert sum(once_pick) / len(once_pick) <= sum(uniform) / len(uniform) + 0.05
    assert sum(once_pick) / len(once_pick) <= 0.5


def test_decoys_restate_the_template_with_fresh_values() -> None:
    rng = random.Random(0)
    for t in templates.load_reasoning_templates():
        filled = templates.fill(t, rng)
        side = templates.decoys(filled, rng, 3)
        assert len(side) == 3
        frames = [t.needles[f] for f in t.decoy_frames]
        for text, values in side:
            assert any(set(re.findall(r"\{(\w+)\}", f)) == set(values) and text == format_with_articles(f, values)
                       for f in frames), t.id
            assert not templates.contains(text, filled.answer), t.id
            assert not set(values.values()) & set(filled.values.values()), t.id


def test_a_list_of_another_builds_answers_scores_nothing(text_builds) -> None:
    """Closed pools of 30-50 answers: listing the most frequent within 16 tokens scored 2-6, all of them 100."""
    first, second = text_builds
    for task in TEXT_TASKS:
        golds = [s.answer for s in second if s.task == task]
        reply = ", ".join(golds)  # every answer of the other build, no length cap
        rows = [s for s in first if s.task == task]
        assert sum(_score(s, reply) for s in rows) == 0.0, task


def test_distractors_are_same_type_facts_about_other_keys(tmp_path: Path) -> None:
    samples = _build(tmp_path / "d", seed=3, tasks=["retrieval-text"], lengths=["2k-4k", "8k-12k"],
                     depths=[0.0, 0.4, 0.8], per_cell=1, distractors=3)
    for s in samples:
        text = parts_text([p for p in s.context if isinstance(p, TextPart)])
        needle, others = s.meta["needles"][0], s.meta["distractors"]
        assert len(others) == 3 and all(d in text for d in [needle, *others]), s.id
        kind = templates.value_kind(s.answer)
        assert kind is not None
        # the answer is one of four values of its type in the context, each stated the same way
        assert len(set(templates.find_values(text, kind))) >= 4, s.id
        assert not any(templates.contains(d, s.answer) for d in others), s.id
        assert _score(s, oracle_reply(s)) == 1.0
        assert s.meta["depth_cell"] == int(s.meta["depth"][0] / 0.2) and len(s.meta["depth"]) == 1
    with pytest.raises(ConfigError, match="--distractors"):
        BuildConfig(distractors=-1).validate()
    # the diagnostics: scanning for the answer's type now picks one of four values (25), as an outlier sentence does
    found = retrieval_diagnostics(samples)
    assert found["samples"] == len(samples) and found["type_scan"] is not None and found["type_scan"] <= 40


def test_retrieval_diagnostics_without_distractors(text_builds) -> None:
    """Without distractors the answer is usually the only value of its shape in the context (a haystack word
    shaped like a made-up name, "Peru", sometimes joins it): the type scan reads far above the 25 of four."""
    found = retrieval_diagnostics([s for build in text_builds for s in build])
    assert found["samples"] == sum(s.task == "retrieval-text" for build in text_builds for s in build)
    assert found["type_scan"] is not None and found["type_scan"] >= 70
    assert found["outlier_needle_top1"] is not None and 0 <= found["outlier_needle_top1"] <= 100
    assert retrieval_diagnostics([]) == {"samples": 0, "type_scan": None, "outlier_needle_top1": None}
