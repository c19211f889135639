"""The MileBench family record: official data in, its prompt (with the official truncation), its scorers."""

from __future__ import annotations

from collections.abc import Sequence

from niah.benchmarks.protocol import Builder, Command, Family, OptionKind, ScoreFormat, lazy


def _commands() -> Sequence[Command]:
    from niah.benchmarks.milebench import cli

    return (Command("import", "milebench", cli.import_command),
            Command("build", "milebench-niah", cli.build_niah_command))


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.milebench.build import build_from_options

    return (Builder("milebench-niah", build_from_options, {"lengths": [4096]},
                    option_kinds=BUILD_OPTION_KINDS),)


#: ``build_milebench_niah``'s options as an eval config file writes them (``per_cell`` is its ``per_length``).
BUILD_OPTION_KINDS: dict[str, OptionKind] = {
    "lengths": "items", "per_cell": "int", "tasks": "texts", "images_per_sample": "int", "seed": "int",
    "corpus": "text", "tokenizer": "text", "image_tokens": "value",
}


def _score_formats() -> Sequence[ScoreFormat]:
    from niah.benchmarks.milebench import cli

    return (ScoreFormat("milebench-official", "DATASET_DIR PRED_JSON", cli.score_official_files,
                        cli.is_official_scores_file),)


FAMILY = Family(
    name="milebench",
    title="MileBench",
    tasks=(),
    description="official data sets (incl. combined-image variants and GPR1200), prompts with the official "
                "truncation, scorers, image-count buckets",
    commands=_commands,
    builders=_builders,
    renderer=lazy("niah.benchmarks.milebench.prompt:render"),
    official_fit=lazy("niah.benchmarks.milebench.prompt:official_fit"),
    scorer=lazy("niah.benchmarks.milebench.score:SCORER"),
    score_formats=_score_formats,
    metric_rules=lazy("niah.benchmarks.milebench.score:RULES"),
    report=lazy("niah.benchmarks.milebench.report:SPEC"),
    audit=lazy("niah.benchmarks.milebench.audit:SPEC"),
    prompt_switches=(
        ("milebench_tokenizer", "the tokenizer of --over-limit official's truncation (e.g. hf:PATH of the model's)"),
        ("milebench_image_tokens", "tokens one image costs in that truncation (an integer)"),
    ),
)
