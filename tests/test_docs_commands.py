"""Every `niah ...` command line the docs show names a verb, subcommand and options the CLI really has.

The command lines come from README.md and docs/*.md (fenced blocks, `\\`-continued lines joined, and inline
code spans that start with `niah `); each is checked against the typer app's own click commands, so a renamed
or removed option in the code, or a misspelt one in a doc, fails here."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from niah.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`([^`]+)`")
#: Where a shell command line ends and something else (a pipe, a redirect, the next command) begins.
SHELL_BREAKS = {"|", "||", "&&", ";", ">", ">>", "2>", "&"}


def _inline_commands(paragraph: list[tuple[int, str]]) -> list[tuple[int, str, bool]]:
    """Code spans of a prose paragraph that start with `niah ` (a span may wrap onto the next line)."""
    if not paragraph:
        return []
    first = paragraph[0][0]
    text = "\n".join(line for _, line in paragraph)
    return [
        (first + text.count("\n", 0, match.start()), " ".join(match.group(1).split()), False)
        for match in CODE_SPAN.finditer(text)
        if re.match(r"^(\.venv/bin/)?niah\s", match.group(1))
    ]


def doc_command_lines(text: str) -> list[tuple[int, str, bool]]:
    """(line number, command, whether it is a whole command line in a code block) per `niah` invocation."""
    found: list[tuple[int, str, bool]] = []
    in_fence = False
    pending: tuple[int, str] | None = None
    paragraph: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            found.extend(_inline_commands(paragraph))
            paragraph = []
            in_fence = not in_fence
            pending = None
            continue
        if in_fence:
            if pending is not None:
                start, joined = pending
                joined += " " + line.strip()
            else:
                start, joined = number, line.strip()
            if joined.endswith("\\"):
                pending = (start, joined[:-1])
                continue
            pending = None
            for piece in re.split(r"&&|;|\|", joined):
                piece = piece.strip().removeprefix("$ ").strip()
                if re.match(r"^(\S*/)?niah\s", piece):
                    found.append((start, piece, True))
        elif line.strip():
            paragraph.append((number, line))
        else:
            found.extend(_inline_commands(paragraph))
            paragraph = []
    found.extend(_inline_commands(paragraph))
    return found


def _tokens(command: str) -> list[str]:
    try:
        tokens = shlex.split(command, comments=True)
    except ValueError:  # an unbalanced quote in an inline span that shows only part of a line
        tokens = command.split()
    kept: list[str] = []
    for token in tokens:
        if token in SHELL_BREAKS:
            break
        kept.append(token)
    return kept


def _options_of(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def _is_placeholder(token: str) -> bool:
    return "<" in token or token.isupper() or "..." in token or "…" in token or token in {"/", "or"}


def _is_group(command: Any) -> bool:
    # Typer ships its own copy of click, so its groups are not click.Group instances: ask for subcommands.
    return isinstance(getattr(command, "commands", None), dict)


def command_problems(command: str, root: Any = None, *, whole: bool = False) -> list[str]:
    """What in one `niah ...` line the CLI does not have (empty when every verb and option exists).

    ``whole``: the line is shown as a command to run (a code block, not a fragment in prose), so it must also
    give every required option, unless it elides something (``...``, ``[options]``)."""
    current = root if root is not None else typer.main.get_command(app)
    tokens = _tokens(command)[1:]
    problems: list[str] = []
    path = ["niah"]
    position = 0
    while _is_group(current) and position < len(tokens):
        token = tokens[position].strip("[]")
        if token.startswith("-"):
            break
        if _is_placeholder(token):
            return problems  # e.g. "niah build <family>": a pattern, not a command to check
        sub = current.commands.get(token)
        if sub is None:
            problems.append(f"{' '.join(path)} has no subcommand {token!r}")
            return problems
        current = sub
        path.append(token)
        position += 1
    if _is_group(current) and path == ["niah"] and not tokens:
        return problems
    known = _options_of(current)
    for token in tokens[position:]:
        token = token.strip("[](),")
        if not re.match(r"^(--[a-z]|-[A-Za-z]$)", token):  # a long option, or a short one such as -O
            continue
        option = token.split("=", 1)[0]
        if option not in known:
            problems.append(f"{' '.join(path)} has no option {option}")
    elided = any(mark in command for mark in ("...", "…", "[options]"))
    if whole and not elided and not _is_group(current):
        given = {token.split("=", 1)[0] for token in tokens[position:]}
        for param in current.params:
            if param.param_type_name == "option" and param.required and not given & set(param.opts):
                problems.append(f"{' '.join(path)} needs {max(param.opts, key=len)}")
    return problems


def _all_doc_commands() -> list[tuple[str, int, str, bool]]:
    return [
        (doc.relative_to(ROOT).as_posix(), number, command, whole)
        for doc in DOCS
        for number, command, whole in doc_command_lines(doc.read_text(encoding="utf-8"))
    ]


def test_the_docs_show_many_command_lines() -> None:
    commands = _all_doc_commands()
    assert len(commands) > 50
    assert {name for name, _, _, _ in commands} >= {"README.md", "docs/running.md", "docs/mm-niah.md"}


def test_every_doc_command_line_names_real_verbs_and_options() -> None:
    stale = [
        f"{name}:{number}: {problem}: {command}"
        for name, number, command, whole in _all_doc_commands()
        for problem in command_problems(command, whole=whole)
    ]
    assert not stale, "\n".join(stale)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("niah run DATASET --model baseline:rag --out runs/rag", []),
        ("niah score RUN [--no-judged]", []),
        ("niah run DATASET --modle baseline:rag --out runs/rag", ["niah run has no option --modle"]),
        ("niah score RUN --judged-file x", ["niah score has no option --judged-file"]),
        (
            "niah build mm-niah --per-cell 1 --depth-cell 3",
            ["niah build mm-niah has no option --depth-cell"],
        ),
        ("niah build video-niah --depth-cells 3 --depth-mode=cell", []),
        ("niah buidl mm-niah --out x", ["niah has no subcommand 'buidl'"]),
        ("niah export mm-niah-dataset DS --media-root IMG --out OUT", []),
        ("niah export mm-niah-datasets DS", ["niah export has no subcommand 'mm-niah-datasets'"]),
        ("niah build <family> --whatever", []),
        ("niah run DATA --model hf:/m -O device=cuda -P k=v -o runs/x", []),
        ("niah run DATA --model hf:/m -Q device=cuda --out runs/x", ["niah run has no option -Q"]),
    ],
)
def test_the_checker_catches_wrong_lines(line: str, expected: list[str]) -> None:
    assert command_problems(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("niah build mm-niah --corpus default", ["niah build mm-niah needs --out"]),
        ("niah build mm-niah --corpus default -o ds", []),
        ("niah build mm-niah --corpus default ...", []),
        ("niah run DATASET --out RUN", ["niah run needs --model"]),
        ("niah run DATASET --model=baseline:rag --out RUN", []),
    ],
)
def test_whole_command_lines_give_the_required_options(line: str, expected: list[str]) -> None:
    assert command_problems(line, whole=True) == expected
    assert command_problems(line) == []  # a fragment in prose may leave them out


def test_command_lines_are_found_in_fences_continuations_and_inline_spans() -> None:
    text = "\n".join(
        [
            "Run `niah score RUN --no-judged` or `python -m niah`; `niah report",
            "RUN --out DIR` wraps.",
            "```",
            "$ niah build mm-niah --out d \\",
            "    --per-cell 1",
            "PYTHONPATH=src niah list && niah run d --out r | tail",
            "```",
            "niah outside a fence is prose",
        ]
    )
    assert doc_command_lines(text) == [
        (1, "niah score RUN --no-judged", False),
        (1, "niah report RUN --out DIR", False),
        (4, "niah build mm-niah --out d  --per-cell 1", True),
        (6, "niah run d --out r", True),
    ]
