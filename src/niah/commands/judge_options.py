"""Options every judge verb (``niah judge <family> RUN``) shares: how the judge is reached, bounded in time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from niah.scoring.judges import JudgeTransport

BaseUrls = Annotated[list[str] | None, typer.Option("--base-url", help="judge endpoint (repeatable)")]
ApiKeyEnv = Annotated[str | None, typer.Option("--api-key-env", help="variable holding the judge's key")]
Timeout = Annotated[float | None, typer.Option("--timeout", help="seconds for a whole judge request (a "
                                               "deadline, however slowly the server sends; default 600)")]
MaxAttempts = Annotated[int | None, typer.Option("--max-attempts", help="attempts per judge request before "
                                                 "its verdict is recorded as failed (default 6)")]
RetryDelay = Annotated[float | None, typer.Option("--retry-delay", help="initial backoff in seconds (doubles, "
                                                  "jittered; default 1)")]


def note_flagged(flagged: list[str]) -> None:
    """Every judge verb's one line (stderr) on the judged replies that hold judge-like instructions
    (:func:`niah.scoring.verdicts.flagged_items`): how many, the first, and where their verdicts are flagged."""
    if flagged:
        typer.echo(f"note: {len(flagged)} judged repl(ies) hold judge-like instructions (first: {flagged[0]!r}); "
                   "their verdicts are flagged judge_injection in scored.jsonl", err=True)


def transport(base_url: list[str] | None, api_key_env: str | None, timeout: float | None,
              max_attempts: int | None, retry_delay: float | None) -> JudgeTransport:
    from niah.scoring.judges import JudgeTransport
    from niah.util.errors import ConfigError

    if timeout is not None and not timeout > 0:
        raise ConfigError("--timeout must be a positive number of seconds")
    if max_attempts is not None and max_attempts < 1:
        raise ConfigError("--max-attempts must be at least 1")
    if retry_delay is not None and not retry_delay >= 0:
        raise ConfigError("--retry-delay must be at least 0")
    return JudgeTransport(tuple(base_url or ()), api_key_env, timeout, max_attempts, retry_delay)
