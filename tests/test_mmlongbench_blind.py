"""MMLongBench blind answers: ``baseline:random`` reads the options folded into the question and scores at
chance; the ``AuditSpec`` chance per rule."""

from __future__ import annotations

import pytest

from niah.benchmarks.mmlongbench.audit import SPEC, options
from niah.benchmarks.mmlongbench.score import score_sample
from niah.models.base import ModelSpec
from niah.models.baselines import RandomBaseline
from niah.sample import ImagePart, Sample, TextPart


def _mc(n: int, metric: str, index: int, *, image_options: bool) -> Sample:
    question: list = [TextPart("Which image shows the needle?")]
    for k in range(n):
        question.append(TextPart(f"\n{chr(65 + k)}. "))
        question.append(ImagePart(f"media/o{k}.jpg") if image_options else TextPart(f"option number {k}"))
    answer: object = 1 if metric == "mc_acc" else "option number 1"
    return Sample(id=f"mm_niah_x/K8/{index}", benchmark="mmlongbench", task="mm_niah_x",
                  context=[TextPart("A haystack about gardens. label: 0 and label: 1 are not classes here.")],
                  question=question, answer=answer, meta={"metric": metric, "prompt": "mm_niah", "length_k": 8})


def _mean(samples: list[Sample]) -> float:
    random = RandomBaseline(ModelSpec("baseline", "random"))
    return sum(score_sample(s, random.answer(s)).scores["official"] for s in samples) / len(samples)


@pytest.mark.parametrize(("n", "metric", "image_options"), [(4, "mc_acc", True), (2, "mc_acc", False),
                                                              (3, "sub_em", False)])
def test_random_answers_a_folded_option_at_chance(n, metric, image_options):
    samples = [_mc(n, metric, i, image_options=image_options) for i in range(600)]
    assert [letter for letter, _ in options(samples[0])] == [chr(65 + k) for k in range(n)]
    assert SPEC.chance is not None and SPEC.chance(samples[0]) == pytest.approx(1 / n)
    # the shared default answered a random context word here: 0, whatever the number of options
    assert abs(_mean(samples) - 1 / n) < 0.07


def test_random_yes_no_and_classes():
    vh = [Sample(id=f"vh_single/K8/{i}", benchmark="mmlongbench", task="vh_single",
                 context=[ImagePart("media/a.jpg")], question=[TextPart("Is this exact image one of them?")],
                 answer="yes" if i % 2 else "no", meta={"metric": "binary_acc", "prompt": "vh", "position": i})
          for i in range(400)]
    assert SPEC.chance is not None and SPEC.chance(vh[0]) == 0.5
    assert abs(_mean(vh) - 0.5) < 0.08
    icl = [Sample(id=f"cars196/K8/{i}", benchmark="mmlongbench", task="cars196",
                  context=[TextPart("".join(f"<img>\nlabel: {k}\n" for k in range(5)))],
                  question=[TextPart("What is the label?")], answer=i % 5, meta={"metric": "cls_acc", "prompt": "icl"})
           for i in range(500)]
    assert SPEC.chance(icl[0]) == pytest.approx(0.2)
    assert abs(_mean(icl) - 0.2) < 0.06


def test_no_options_no_letter():
    open_q = Sample(id="infoseek/K8/0", benchmark="mmlongbench", task="infoseek", context=[TextPart("text")],
                    question=[TextPart("Which river is this?\nBe brief.")], answer="Nile",
                    meta={"metric": "sub_em", "prompt": "vrag"})
    assert options(open_q) == [] and SPEC.chance is not None and SPEC.chance(open_q) == 0.0
    lone = Sample(id="x", benchmark="mmlongbench", task="x", context=[TextPart("t")],
                  question=[TextPart("Pick one\nB. is not a list")], answer=1, meta={"metric": "mc_acc"})
    assert options(lone) == []


@pytest.mark.parametrize(("task", "items", "low", "high"), [("mm_niah_counting-image", 1, 0, 3),
                                                           ("mm_niah_counting-image", 3, 0, 3),
                                                           ("mm_niah_counting-text", 2, 1, 10)])
def test_counting_chance_is_what_the_best_blind_reply_scores_under_the_sum_rule(task, items, low, high):
    """The sum rule credits any reply whose counts add up to the gold's: a fixed reply with the likeliest sum
    scores that sum's probability, not 0 (computed from the rule, not hard-coded)."""
    import dataclasses
    import itertools
    from collections import Counter

    sums = Counter(sum(c) for c in itertools.product(range(low, high + 1), repeat=items))
    best = max(sums.values()) / sum(sums.values())
    sample = Sample(id=f"{task}/K8/0", benchmark="mmlongbench", task=task, context=[TextPart("hay")],
                    question=[TextPart("How many?")], answer=[low] * items,
                    meta={"metric": "soft_acc", "prompt": "mm_niah", "length_k": 8})
    assert SPEC.chance is not None
    assert abs(SPEC.chance(sample) - best) < 0.08
    # the random baseline answers that best reply, so it scores the stated chance
    reply = RandomBaseline(ModelSpec("baseline", "random")).answer(sample)
    golds = [list(c) for c in itertools.product(range(low, high + 1), repeat=items)]
    got = sum(score_sample(dataclasses.replace(sample, answer=g), reply).scores["official"] for g in golds)
    assert abs(got / len(golds) - SPEC.chance(sample)) < 0.08
