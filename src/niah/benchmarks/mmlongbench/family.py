"""The MMLongBench family: official files in, the official prompts, per-data-set rules, the per-length aggregation,
the summarization judge, and generators at exact standardized lengths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from niah.benchmarks.protocol import BaselineAnswers, Builder, Command, Family, OptionKind, lazy

if TYPE_CHECKING:
    from niah.sample import Sample

#: Data sets in the paper's category order (kept here so importing the family stays cheap).
TASKS: tuple[str, ...] = (
    "infoseek", "viquae", "vh_single", "vh_multi", "mm_niah_retrieval-text", "mm_niah_counting-text",
    "mm_niah_reasoning-text", "mm_niah_retrieval-image", "mm_niah_counting-image", "mm_niah_reasoning-image",
    "cars196", "food101", "inat2021", "sun397", "gov-report", "multi-lexsum", "longdocurl", "mmlongdoc", "slidevqa",
)


def _commands() -> Sequence[Command]:
    from niah.benchmarks.mmlongbench import cli

    return (
        Command("build", "mmlongbench-vh", cli.build_vh_command),
        Command("build", "mmlongbench-niah", cli.build_niah_command),
        Command("import", "mmlongbench", cli.import_command),
        Command("judge", "mmlongbench", cli.judge_command),
    )


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.mmlongbench.build import build_from_options

    return (Builder("mmlongbench-vh", build_from_options, {"lengths": ["8k"]},
                    option_kinds=BUILD_OPTION_KINDS),)


#: ``build_vh``'s options as an eval config file writes them (``per_cell`` is its ``per_length``; lengths as --lengths
#: takes them; ``source`` its ``images`` folder, as --source; ``images`` is that key's old spelling, for one release).
BUILD_OPTION_KINDS: dict[str, OptionKind] = {
    "lengths": "items", "per_cell": "int", "needles": "int", "source": "text", "images": "text", "seed": "int", "tokenizer": "text",
    "min_pixels": "int", "max_pixels": "int", "max_side": "int",
}


def _oracle(sample: Sample) -> str | None:
    """ICL classification reads a class number (``label: N``), not an option letter."""
    if sample.meta.get("metric") == "cls_acc" and isinstance(sample.answer, int):
        return f"label: {sample.answer}"
    return None


def _baselines() -> BaselineAnswers:
    from niah.benchmarks.mmlongbench.audit import random_answer

    return BaselineAnswers(oracle=_oracle, random=random_answer)


FAMILY = Family(
    name="mmlongbench",
    title="MMLongBench",
    tasks=TASKS,
    description="official files of the five categories at 8K-128K (import), prompts, rules, per-length "
                "aggregation, summarization judge, new samples at exact standardized lengths",
    commands=_commands,
    builders=_builders,
    renderer=lazy("niah.benchmarks.mmlongbench.prompt:render"),
    scorer=lazy("niah.benchmarks.mmlongbench.score:SCORER"),
    metric_rules=lazy("niah.benchmarks.mmlongbench.score:RULES"),
    report=lazy("niah.benchmarks.mmlongbench.report:SPEC"),
    baselines=_baselines,
    audit=lazy("niah.benchmarks.mmlongbench.audit:SPEC"),
)
