"""What a run's exit status means, and the short reason a failed or skipped request is counted under.

Exit statuses of the CLI (documented in docs/running.md, "Exit status"):

- 0: every request asked was answered (``niah run``, ``niah eval``), or the verb did what it was asked;
- 1: a verb's own verdict (``niah audit`` found a shortcut, ``niah metric`` refused a row);
- 2: an error: bad arguments or input, a run stopped by a disk error; one ``error:`` line on stderr, no traceback;
- 3: the run finished but some requests failed or were skipped (``--allow-failures`` makes it 0), or a judge
  verb stored verdicts that failed (no reply, or a reply that never parsed);
- 130 / 143: stopped by Ctrl-C (SIGINT) / SIGTERM, in any verb (:mod:`niah.util.interrupts`): one line on stderr says
  what was stopped and how to resume or redo it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_ERROR = 2
EXIT_INCOMPLETE = 3

_GAVE_UP = re.compile(r"\s*\(gave up after \d+ attempts?\)\s*$")
_HTTP = re.compile(r"^HTTP (\d{3})\b")
_REFUSED = ("ConnectError", "Connection refused", "All connection attempts failed", "Errno 111")


def failure_reason(error: str | None) -> str:
    """A short, countable reason for a failed (or skipped) row's ``error`` text: ``connection refused``,
    ``HTTP 401``, ``timeout``, ``malformed reply``, ``skipped: over the image limit``... never a URL."""
    text = _GAVE_UP.sub("", (error or "error").strip())
    if text.startswith("skipped:"):
        reason = text.removeprefix("skipped:").strip()
        reason = re.split(r"[(:;]", reason, maxsplit=1)[0].strip()
        return "skipped: " + re.sub(r"(?<![=\w.])\d+", "N", reason)[:80]  # counts vary per sample, limits not
    http = _HTTP.match(text)
    if http:
        return f"HTTP {http.group(1)}"
    if text.startswith("connection error"):
        return "connection refused" if any(s in text for s in _REFUSED) else "connection error"
    if text.startswith(("timeout", "no complete reply within")):
        return "timeout"
    for prefix in ("malformed reply", "error reply", "data error", "out of memory"):
        if text.startswith(prefix):
            return prefix
    if text.startswith("internal error"):
        parts = text.split(":")
        return f"internal error ({parts[1].strip()})" if len(parts) > 2 else "internal error"
    head = re.split(r":| at | from ", text, maxsplit=1)[0].strip()
    return head[:60] or "error"


def reason_counts(label: str, reasons: Mapping[str, int]) -> str:
    """``"2 failed: connection refused x 2"``; several reasons most frequent first."""
    total = sum(reasons.values())
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    return f"{total} {label}: " + ", ".join(f"{reason} x {n}" for reason, n in ranked)


def exit_if_judge_failures(failed: int, judged: int, verb: str) -> None:
    """End a judge verb with status 3 when some of its verdicts failed (``judged``: the ones that did not):
    they are stored as failed and left out of the scores, which a script must tell from a clean pass."""
    if failed:
        import typer

        typer.echo(f"exit {EXIT_INCOMPLETE}: {failed} of {judged + failed} judge verdict(s) failed (no reply, or a "
                   f"reply that never parsed); they are left out of the scores: `{verb} --retry-failed` asks them "
                   "again", err=True)
        raise typer.Exit(EXIT_INCOMPLETE)
