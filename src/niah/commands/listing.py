"""`niah list`: what this installation offers (benchmarks and tasks, tokenizers, image rules, models, metrics)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("list")
    def list_command() -> None:
        """List benchmarks and tasks, tokenizers, image token rules, model providers and metric rules."""
        from rich.table import Table
        from rich.text import Text

        from niah.benchmarks.registry import families
        from niah.models.registry import providers
        from niah.scoring.metrics.registry import all_rules
        from niah.tokens.image import IMAGE_RULES
        from niah.tokens.text import TEXT_TOKENIZERS
        from niah.util.console import wide_console

        table = Table(title="niah", show_header=True)
        table.add_column("what")
        table.add_column("names")
        for family in families():
            verbs = sorted({f"{c.verb or ''} {c.name}".strip() for c in (family.commands() if family.commands
                                                                          else ())})
            offers = [*verbs] + (["score"] if family.scorer else []) + (["report"] if family.report else [])
            detail = family.description + (f"; tasks: {', '.join(family.tasks)}" if family.tasks else "")
            switches = "".join(f"\nniah run -P {key}=...: {what}" for key, what in family.prompt_switches)
            # Text, not markup: family descriptions are plain text
            table.add_row(f"benchmark {family.name}",
                          Text(f"{detail}\noffers: {', '.join(offers) or 'metric rules'}{switches}"))
        family_corpora = [f"{r.kind}:PATH" for f in families() for r in (f.corpora() if f.corpora else ())]
        table.add_row("corpora", ", ".join(["default (embedded en/zh)", "obelics:PATH", "textdir:PATH", "jsonl:PATH",
                                            *family_corpora]))
        table.add_row("tokenizers", ", ".join(TEXT_TOKENIZERS) + ", hf:PATH, sp:PATH")
        table.add_row("image token rules", ", ".join(IMAGE_RULES))
        table.add_row("model providers", ", ".join(f"{p}:" for p in providers())
                      + " (baseline:random|oracle|rag)")
        table.add_row("metric rules", ", ".join(all_rules()))
        wide_console().print(table)
