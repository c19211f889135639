"""`niah list`: what this installation offers (benchmarks and tasks, tokenizers, image rules, models, metrics)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("list")
    def list_command() -> None:
        """List benchmarks and tasks, tokenizers, image token rules, model providers and metric rules."""
        from rich.table import Table

        from niah.benchmarks.mm_niah.build import TASKS
        from niah.console import wide_console
        from niah.metrics.registry import RULES
        from niah.models.registry import providers
        from niah.tokens.image import IMAGE_RULES
        from niah.tokens.text import TEXT_TOKENIZERS

        table = Table(title="niah", show_header=True)
        table.add_column("what")
        table.add_column("names")
        table.add_row("build mm-niah tasks", ", ".join(TASKS))
        table.add_row("import (official files)", "mm-niah (annotations + images), milebench (dataset folder)")
        table.add_row("corpora", "default (embedded en/zh), obelics:PATH, textdir:PATH, jsonl:PATH")
        table.add_row("tokenizers", ", ".join(TEXT_TOKENIZERS) + ", hf:PATH, sp:PATH")
        table.add_row("image token rules", ", ".join(IMAGE_RULES))
        table.add_row("model providers", ", ".join(f"{p}:" for p in providers())
                      + " (baseline:random|oracle|rag)")
        table.add_row("metric rules", ", ".join(RULES))
        wide_console().print(table)
