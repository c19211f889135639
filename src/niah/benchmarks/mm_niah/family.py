"""The MM-NIAH family record (light: everything heavy loads when a stage asks for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from niah.benchmarks.protocol import (
    BaselineAnswers,
    Builder,
    Command,
    CorpusReader,
    Family,
    OptionKind,
    ScoreFormat,
    lazy,
)

if TYPE_CHECKING:
    from pathlib import Path

    from niah.corpus.base import Corpus

#: The six tasks in the paper's order (Tables 6-11), which is also the order reports show them in.
TASKS: tuple[str, ...] = (
    "retrieval-text", "counting-text", "reasoning-text", "retrieval-image", "counting-image", "reasoning-image",
)


def _commands() -> Sequence[Command]:
    from niah.benchmarks.mm_niah import cli

    return (
        Command("build", "mm-niah", cli.build_command),
        Command("import", "mm-niah", cli.import_command),
        Command("export", "mm-niah-dataset", cli.export_dataset_command),
        Command("export", "mm-niah-responses", cli.export_responses_command),
        Command("derive", "mm-niah-text-only", cli.text_only_command),
    )


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.mm_niah import cli

    return (Builder("mm-niah", cli.build_from_options, {"tasks": list(TASKS), "lengths": [
        "1k-2k", "2k-4k", "4k-8k", "8k-12k", "12k-16k", "16k-24k", "24k-32k", "32k-40k", "40k-48k", "48k-64k",
        "64k-72k"]}, option_kinds=BUILD_OPTION_KINDS),)


#: ``BuildConfig``'s fields, as an eval config file writes them (``niah build mm-niah``'s options, underscored).
BUILD_OPTION_KINDS: dict[str, OptionKind] = {
    "tasks": "texts", "lengths": "texts", "depth_cells": "items", "depths": "numbers", "per_cell": "int", "seed": "int", "corpus": "text",
    "lang": "text", "tokenizer": "text", "image_tokens": "text", "text_tokens_per_image": "int", "max_images": "int",
    "image_max_side": "int", "images": "bool", "doc_separator": "text", "reasoning_choices": "bool",
    "distractors": "int",
}


def _baselines() -> BaselineAnswers:
    from niah.benchmarks.mm_niah.prompt import extractive_answer, random_answer

    return BaselineAnswers(random=random_answer, extractive=extractive_answer)


def _score_formats() -> Sequence[ScoreFormat]:
    from niah.benchmarks.mm_niah import cli

    return (ScoreFormat("mm-niah-official", "response files {model}_{task}-{split}.jsonl",
                        cli.score_official_files, cli.is_official_scores_file),)


def _open_corpus(path: Path, lang: str, seed: int) -> Corpus:
    from niah.benchmarks.mm_niah.corpus import open_corpus

    return open_corpus(path, lang, seed)


def _corpora() -> Sequence[CorpusReader]:
    return (CorpusReader("mm-niah", "official MM-NIAH annotation folder (annotations/, images/); documents split "
                                    "at </s>, official needles removed", _open_corpus),)


FAMILY = Family(
    name="mm-niah",
    title="MM-NIAH",
    tasks=TASKS,
    description="retrieval, counting and reasoning with text and image needles (build, import, export)",
    commands=_commands,
    builders=_builders,
    renderer=lazy("niah.benchmarks.mm_niah.prompt:render"),
    scorer=lazy("niah.benchmarks.mm_niah.score:SCORER"),
    score_formats=_score_formats,
    metric_rules=lazy("niah.benchmarks.mm_niah.score:RULES"),
    report=lazy("niah.benchmarks.mm_niah.report:SPEC"),
    baselines=_baselines,
    corpora=_corpora,
    audit=lazy("niah.benchmarks.mm_niah.audit:SPEC"),
)
