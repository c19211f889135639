"""The InfiniBench family record (light: everything heavy loads when a stage asks for it)."""

from __future__ import annotations

from collections.abc import Sequence

from niah.benchmarks.infinibench.skills import SKILLS
from niah.benchmarks.protocol import Command, Family, ScoreFormat, lazy

TASKS: tuple[str, ...] = tuple(s.id for s in SKILLS)


def _commands() -> Sequence[Command]:
    from niah.benchmarks.infinibench import cli

    return (Command("import", "infinibench", cli.import_command),
            Command("judge", "infinibench", cli.judge_command),
            Command("export", "infinibench", cli.export_command))


def _score_formats() -> Sequence[ScoreFormat]:
    from niah.benchmarks.infinibench import cli

    return (ScoreFormat("infinibench-v2-predictions", "official v2 prediction folders or files ({skill}.json "
                        "lists with pred, answer_idx and stored gpt_score)", cli.score_prediction_files,
                        cli.scores_file_check("v2")),
            ScoreFormat("infinibench-v1-judged", "the v1 scripts' combined judge outputs (key -> a verdict and its "
                        "QA), one per skill", cli.score_v1_judge_outputs, cli.scores_file_check("v1")))


FAMILY = Family(
    name="infinibench",
    title="InfiniBench",
    tasks=TASKS,
    description="hour-long TV episodes and movies with subtitles: MCQ and open-ended skills (import, judge v1/v2, export)",
    commands=_commands,
    score_formats=_score_formats,
    renderer=lazy("niah.benchmarks.infinibench.prompt:render"),
    scorer=lazy("niah.benchmarks.infinibench.score:SCORER"),
    metric_rules=lazy("niah.benchmarks.infinibench.score:RULES"),
    report=lazy("niah.benchmarks.infinibench.report:SPEC"),
)
