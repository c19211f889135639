"""Every scoring rule by name: ``RULES`` and ``get_rule``.

Official rules reproduce the benchmark's own scorer exactly, quirks included (each quirk is described in the
rule function's docstring). Improved variants have their own names (``mm-niah/lenient``) and never replace an
official rule.

Input fields a rule reads from a row: ``answer`` (the gold, any JSON), ``response`` (a string, or null for a
failed request, which scores 0), and where listed ``choices`` (option texts) and ``prefix`` (the MMLongBench
assistant prefix; ``Answer:`` by default, ``label:`` for ``cls_acc``) or ``default_answer`` (binary accuracy).
"""

from __future__ import annotations

from niah.errors import ConfigError
from niah.metrics import milebench, mm_niah, mmlongbench
from niah.metrics.base import MetricRule

_RULE_LIST: tuple[MetricRule, ...] = (
    MetricRule(
        "mm-niah",
        "MM-NIAH official: int gold -> option letter rule, list -> positional soft accuracy, str -> VQA word match",
        mm_niah.score_mm_niah_official,
    ),
    MetricRule(
        "mm-niah/lenient",
        "MM-NIAH with a lenient letter extractor ('(C)', 'Answer: C', 'C, because'); otherwise official",
        mm_niah.score_mm_niah_lenient,
    ),
    MetricRule(
        "mmlongbench/sub_em",
        "MMLongBench SubEM: normalized gold is a substring of the normalized output; max over raw/parsed",
        mmlongbench.score_sub_em,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/mc_acc",
        "MMLongBench option letter ('answer is X', 'Answer: X', last capital A-J) == int gold; max raw/parsed",
        mmlongbench.score_mc_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/soft_acc",
        "MMLongBench counting: sum of the predicted count list == sum of the gold list; max raw/parsed",
        mmlongbench.score_soft_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/cls_acc",
        "MMLongBench ICL class: 'label: N', else last number, else first number == int gold; max raw/parsed",
        mmlongbench.score_cls_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/binary_acc",
        "MMLongBench yes/no: last yes/no, unparseable -> cycling default [0,1,1,0] by row order",
        mmlongbench.score_binary_acc,
        optional_fields=("prefix", "default_answer"),
        position_defaults=mmlongbench.binary_default_for_position,
    ),
    MetricRule(
        "milebench/needle",
        "MileBench needle sets: processed gold is a whitespace token of the processed prediction",
        milebench.score_needle,
    ),
    MetricRule(
        "milebench/substring",
        "MileBench MMCoQA: processed gold is a substring of the processed prediction",
        milebench.score_substring,
    ),
    MetricRule(
        "milebench/multi-choice",
        "MileBench multiple choice: official option matcher (fallback concatenates letters; empty -> 'C')",
        milebench.score_multi_choice,
        fields=("answer", "response", "choices"),
    ),
    MetricRule(
        "milebench/rouge-l",
        "MileBench open-ended: ROUGE-L F of rouge 1.0.1 (summary-level union LCS) on processed texts",
        milebench.score_rouge_l,
    ),
)

RULES: dict[str, MetricRule] = {rule.name: rule for rule in _RULE_LIST}


def get_rule(name: str) -> MetricRule:
    """The rule called ``name``; an unknown name is a :class:`ConfigError` listing the known ones."""
    try:
        return RULES[name]
    except KeyError:
        raise ConfigError(f"unknown metric rule {name!r}; known rules: {', '.join(RULES)}") from None
