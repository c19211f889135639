"""`niah metric`: score a JSONL file of (answer, response) rows with one named rule, or list the rules."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from niah.commands import deprecated_alias, pick_alias
from niah.util.errors import ConfigError, DataError


@dataclass(frozen=True)
class MetricFileResult:
    """What :func:`score_file` did: rows read, rows scored, their mean, and the lines the rule refused."""

    rows: int
    scored: int
    mean: float | None
    refused: tuple[DataError, ...]


def score_file(rule_name: str, input_path: str | Path, output_path: str | Path) -> MetricFileResult:
    """Score every line of ``input_path`` with rule ``rule_name``; write each line plus ``score`` atomically.

    Each input line is a JSON object with ``answer`` (gold, any JSON), ``response`` (string, or null for a failed
    request) and the rule's other fields (``choices``, ``prefix``, ...). Lines are scored in file order (some
    rules depend on the position). A line the rule cannot score (the official code itself would fail on it) is
    refused on its own: it is written with ``score: null`` and ``refused`` (the reason), reported as a
    :class:`~niah.util.errors.DataError` naming file, line and field, and left out of the mean; it is never a zero and
    never stops the other lines. Only a file that cannot be read as JSON objects is an error as a whole.
    """
    from niah.scoring.metrics.base import MetricInputError
    from niah.scoring.metrics.registry import get_rule
    from niah.util.iox import dumps_line, iter_jsonl, write_atomic

    rule = get_rule(rule_name)
    input_path = Path(input_path)
    if not input_path.is_file():
        raise DataError("input file does not exist", file=input_path)
    lines: list[str] = []
    refused: list[DataError] = []
    total = 0.0
    scored = 0
    for position, (lineno, row) in enumerate(iter_jsonl(input_path, strict=True, what="input file")):
        if not isinstance(row, dict):
            raise DataError("each line must be a JSON object", file=input_path, line=lineno)
        if "score" in row:
            raise DataError("input already has a 'score' field", file=input_path, line=lineno, field="score")
        try:
            score = rule.score(row, position)
            extra = rule.detail(row, position)
        except MetricInputError as exc:
            refused.append(DataError(exc.message, file=input_path, line=lineno, field=exc.field))
            lines.append(dumps_line({**row, "score": None, "refused": f"{exc.field}: {exc.message}"}))
            continue
        total += score
        scored += 1
        lines.append(dumps_line({**row, **extra, "score": score}))
    if not lines:
        raise DataError("input file has no rows", file=input_path)
    write_atomic(output_path, "".join(lines))
    return MetricFileResult(len(lines), scored, total / scored if scored else None, tuple(refused))


def _is_scored_row(row: object) -> bool:
    """A row :func:`score_file` wrote: a JSON object with its input's ``answer`` and ``response`` and a ``score``
    (a number, or null with ``refused``)."""
    if not isinstance(row, dict) or not {"answer", "response", "score"} <= set(row):
        return False
    score = row["score"]
    if score is None:
        return isinstance(row.get("refused"), str)
    return isinstance(score, int | float) and not isinstance(score, bool)


def is_scored_file(path: Path) -> bool:
    """Whether ``path`` reads back as a scored JSONL that ``niah metric`` wrote (every row scored)."""
    from niah.util.iox import jsonl_file_is

    return jsonl_file_is(path, _is_scored_row)


def rule_listing() -> str:
    """One line per rule: name and one-line description."""
    from niah.scoring.metrics.registry import RULES

    width = max(len(name) for name in RULES)
    return "\n".join(f"{name.ljust(width)}  {rule.description}" for name, rule in RULES.items())


def register(app: typer.Typer) -> None:
    @app.command("metric")
    def metric(
        rule: str | None = typer.Argument(None, help="Rule name, as --list shows them (FAMILY/RULE, or a family's own name)."),
        input_path: Path | None = typer.Option(None, "--input", "-i", help="JSONL with answer, response, ..."),
        output_path: Path | None = typer.Option(None, "--out", "-o", help="Scored JSONL (input + score)."),
        old_output: Annotated[Path | None, deprecated_alias("--output", "--out")] = None,
        list_rules: bool = typer.Option(False, "--list", help="List rule names with one-line descriptions."),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace a file at --out that is not an "
                                       "earlier niah metric output (by default it is refused)."),
    ) -> None:
        """Score rows of (answer, response) with one official or named improved scoring rule."""
        if list_rules:
            typer.echo(rule_listing())
            return
        output_path = pick_alias(output_path, old_output, "--out")
        if rule is None or input_path is None or output_path is None:
            raise ConfigError("give RULE --input FILE --out FILE, or --list")
        from niah.util.iox import claim_output_file

        claim_output_file(output_path, overwrite=overwrite, is_ours=is_scored_file,
                          kind="a scored JSONL niah metric wrote")
        result = score_file(rule, input_path, output_path)
        for error in result.refused:
            typer.echo(f"refused {error}", err=True)
        mean = "undefined (no row scored)" if result.mean is None else f"{result.mean:.6f}"
        typer.echo(f"{rule}: scored {result.scored} of {result.rows} rows, mean score {mean} -> {output_path}")
        if result.refused:
            typer.echo(f"{len(result.refused)} row(s) refused (the official code cannot score them); they have "
                       "score null and a 'refused' reason in the output", err=True)
            raise typer.Exit(1)
