"""`niah metric`: score a JSONL file of (answer, response) rows with one named rule, or list the rules."""

from __future__ import annotations

from pathlib import Path

import typer

from niah.errors import ConfigError


def score_file(rule_name: str, input_path: str | Path, output_path: str | Path) -> tuple[int, float]:
    """Score every line of ``input_path`` with rule ``rule_name``; write each line plus ``score`` atomically.

    Each input line is a JSON object with ``answer`` (gold, any JSON), ``response`` (string, or null for a failed
    request) and the rule's other fields (``choices``, ``prefix``, ...). A line the rule cannot score is a
    :class:`~niah.errors.DataError` naming file, line and field, never a zero. Lines are scored in file order
    (some rules depend on the position). Returns (number of rows, mean score).
    """
    from niah.errors import DataError
    from niah.iox import dumps_line, iter_jsonl, write_atomic
    from niah.metrics.base import MetricInputError
    from niah.metrics.registry import get_rule

    rule = get_rule(rule_name)
    input_path = Path(input_path)
    if not input_path.is_file():
        raise DataError("input file does not exist", file=input_path)
    lines: list[str] = []
    total = 0.0
    for position, (lineno, row) in enumerate(iter_jsonl(input_path)):
        if not isinstance(row, dict):
            raise DataError("each line must be a JSON object", file=input_path, line=lineno)
        if "score" in row:
            raise DataError("input already has a 'score' field", file=input_path, line=lineno, field="score")
        try:
            score = rule.score(row, position)
            extra = rule.detail(row, position)
        except MetricInputError as exc:
            raise DataError(exc.message, file=input_path, line=lineno, field=exc.field) from None
        total += score
        lines.append(dumps_line({**row, **extra, "score": score}))
    if not lines:
        raise DataError("input file has no rows", file=input_path)
    write_atomic(output_path, "".join(lines))
    return len(lines), total / len(lines)


def rule_listing() -> str:
    """One line per rule: name and one-line description."""
    from niah.metrics.registry import RULES

    width = max(len(name) for name in RULES)
    return "\n".join(f"{name.ljust(width)}  {rule.description}" for name, rule in RULES.items())


def register(app: typer.Typer) -> None:
    @app.command("metric")
    def metric(
        rule: str | None = typer.Argument(None, help="Rule name (see --list), e.g. mm-niah or milebench/rouge-l."),
        input_path: Path | None = typer.Option(None, "--input", "-i", help="JSONL with answer, response, ..."),
        output_path: Path | None = typer.Option(None, "--output", "-o", help="Scored JSONL (input + score)."),
        list_rules: bool = typer.Option(False, "--list", help="List rule names with one-line descriptions."),
    ) -> None:
        """Score rows of (answer, response) with one official or named improved scoring rule."""
        if list_rules:
            typer.echo(rule_listing())
            return
        if rule is None or input_path is None or output_path is None:
            raise ConfigError("give RULE --input FILE --output FILE, or --list")
        count, mean = score_file(rule, input_path, output_path)
        typer.echo(f"{rule}: scored {count} rows, mean score {mean:.6f} -> {output_path}")
