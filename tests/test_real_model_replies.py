"""Replies a real model wrote, through each family's scoring rules: SmolLM2-135M-Instruct (served by xllamacpp,
greedy, bench/real_model.py) answering MM-NIAH text tasks, MileBench's TextNeedleInAHaystack and a short
Sequential-NIAH set built by niah. Each reply is stored with its question and gold in
tests/data/real_model/replies.jsonl, with the verdict a careful reader gives under each rule (hand-checked; the
note says why). The MM-NIAH replies also go through MMLongBench's rules for the same tasks (sub_em for open
answers, soft_acc for counts), the rules its MM-NIAH sets are scored with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.scoring.metrics.registry import get_rule

DATA = Path(__file__).parent / "data" / "real_model" / "replies.jsonl"
REPLIES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def test_the_replies_cover_every_text_family_and_its_rules() -> None:
    families = {row["family"] for row in REPLIES}
    assert families >= {"mm-niah", "milebench", "seq-niah"}
    rules = {rule for row in REPLIES for rule in row["expected"]}
    assert rules >= {"mm-niah", "mm-niah/lenient", "mmlongbench/sub_em", "mmlongbench/soft_acc",
                     "milebench/needle", "seq-niah/judge"}
    # real prose, and both verdicts under every family
    for family in families:
        verdicts = {v for row in REPLIES if row["family"] == family for v in row["expected"].values()}
        assert 0 in verdicts, family
    assert any(v == 1 for row in REPLIES for v in row["expected"].values())


@pytest.mark.parametrize("row", REPLIES, ids=[f"{r['id']}" for r in REPLIES])
def test_each_rule_gives_the_hand_checked_verdict(row: dict) -> None:
    for rule_name, expected in row["expected"].items():
        assert get_rule(rule_name).score(row) == pytest.approx(expected), (rule_name, row["response"], row["note"])
