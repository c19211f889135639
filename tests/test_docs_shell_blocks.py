"""Every shell block in README.md and docs/*.md runs here as written, or says beside it, for readers, why it cannot.

The convention (what a reader sees is what this test reads):

- Every fenced block names its language. ```bash (or ```sh) holds shell commands; ```console a terminal
  transcript, whose `$ ` lines are the commands and the rest their output; ```text holds output, diagrams,
  directory trees and usage synopses; ```python, ```toml, ```json and ```yaml what they say. A ```text block
  whose line starts like a command (`niah `, `pip `, `python`) must be a synopsis with a placeholder (a word
  in CAPITALS, `[...]` or `...`), so a command cannot hide from this test as "text".
- A shell block runs as written with bash (`-e`, `pipefail`): the blocks of one doc in order, in one fresh
  temporary directory (a later block may use what an earlier one wrote), with this venv's `bin` first on PATH
  and `.venv` in that directory pointing at it, offline (no package index, Hugging Face offline). It must exit 0;
  a failure names the doc, the line of the failing command, and its output.
- A ```console block's output lines (all but `$ ` lines and `...`, which elides output) must each be a line of
  what its commands print, so a transcript cannot go stale.
- A shell block that cannot run here has, on the line before it (blank lines and HTML comments between are
  allowed), one italic sentence giving the reason, shown to readers:
  `*Needs a GPU: ...*`, `*Needs a model server: ...*`, `*Needs an API key: ...*`,
  `*Needs an official download: ...*`, `*Needs the package index: ...*`, `*Needs your own files: ...*`,
  `*Needs a clone: ...*` (it runs from the repository's root) or `*Takes hours: ...*`/`*Takes minutes: ...*`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(```|~~~)\s*(\S*)")
SHELL = {"bash", "sh", "console"}
NOT_SHELL = {"text", "python", "toml", "json", "yaml"}
REASONS = (
    "Needs a GPU",
    "Needs a model server",
    "Needs an API key",
    "Needs an official download",
    "Needs the package index",
    "Needs your own files",
    "Needs a clone",
    "Takes hours",
    "Takes minutes",
)
MARK = re.compile(r"^\*(?P<what>(Needs|Takes) [^:*]+): (?P<why>[^*]+)\*$")
COMMAND_LIKE = re.compile(r"^(\$ )?(niah|pip|python3?|\.venv/bin/\S+)\s")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b|\[|\.\.\.|…")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # the fence's line; the block's first line is line + 1
    info: str
    body: list[str]
    mark: str | None  # the italic reason line above it, if any


def blocks_of(text: str, doc: str) -> list[Block]:
    found: list[Block] = []
    lines = text.splitlines()
    start: int | None = None
    info = ""
    for number, line in enumerate(lines, start=1):
        match = FENCE.match(line)
        if not match:
            continue
        if start is None:
            start, info = number, match.group(2)
            continue
        found.append(Block(doc, start, info, lines[start : number - 1], _mark_above(lines, start)))
        start = None
    return found


def _mark_above(lines: list[str], fence_line: int) -> str | None:
    index = fence_line - 2
    while index >= 0 and (not lines[index].strip() or lines[index].lstrip().startswith("<!--")):
        index -= 1
    if index >= 0 and MARK.match(lines[index].strip()):
        return lines[index].strip()
    return None


def block_problems(block: Block) -> list[str]:
    """What breaks the convention in one block (empty when it keeps it)."""
    where = f"{block.doc}:{block.line}"
    if not block.info:
        return [f"{where}: a fenced block without a language (```bash, ```text, ...)"]
    if block.info not in SHELL | NOT_SHELL:
        return [f"{where}: unknown block language {block.info!r}"]
    if block.mark is not None:
        what = MARK.match(block.mark)
        assert what is not None
        if what.group("what") not in REASONS:
            return [f"{where}: {block.mark!r} is not one of the reasons {', '.join(REASONS)}"]
        if block.info not in SHELL:
            return [f"{where}: a reason above a {block.info} block, which is never run"]
    if block.info == "text":
        return [
            f"{where}: line {number} reads as a command but is in a text block: {command}"
            for number, command in _logical_lines(block)
            if COMMAND_LIKE.match(command) and not PLACEHOLDER.search(command)
        ]
    return []


def _logical_lines(block: Block) -> list[tuple[int, str]]:
    """(doc line, text) per line of a block, a `\\`-continued line joined with what continues it."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, line in enumerate(block.body, start=block.line + 1):
        start, text = pending if pending is not None else (number, "")
        text = f"{text} {line.strip()}".strip()
        if text.endswith("\\"):
            pending = (start, text[:-1])
            continue
        pending = None
        joined.append((start, text))
    if pending is not None:
        joined.append(pending)
    return joined


def script_of(block: Block) -> str:
    """The shell text to run, line for line with the block (a console block's output lines become blank)."""
    if block.info != "console":
        return "\n".join(block.body) + "\n"
    kept: list[str] = []
    continued = False
    for line in block.body:
        if line.startswith("$ ") or continued:
            kept.append(line.removeprefix("$ "))
            continued = line.rstrip().endswith("\\")
        else:
            kept.append("")
    return "\n".join(kept) + "\n"


def all_blocks() -> list[Block]:
    return [
        block
        for doc in DOCS
        for block in blocks_of(doc.read_text(encoding="utf-8"), doc.relative_to(ROOT).as_posix())
    ]


def runnable_by_doc() -> dict[str, list[Block]]:
    by_doc: dict[str, list[Block]] = {}
    for block in all_blocks():
        if block.info in SHELL and block.mark is None:
            by_doc.setdefault(block.doc, []).append(block)
    return by_doc


def test_every_block_names_its_language_and_every_reason_is_shown() -> None:
    blocks = all_blocks()
    assert len(blocks) > 50
    problems = [problem for block in blocks for problem in block_problems(block)]
    assert not problems, "\n".join(problems)


def test_many_shell_blocks_run_and_the_rest_say_why() -> None:
    shell = [block for block in all_blocks() if block.info in SHELL]
    runs = [block for block in shell if block.mark is None]
    assert len(runs) >= 6, [f"{b.doc}:{b.line}" for b in runs]
    assert {block.mark for block in shell} - {None}


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("```\nniah run d\n```\n", ["x.md:1: a fenced block without a language (```bash, ```text, ...)"]),
        ("```text\nniah run d --model baseline:rag --out r\n```\n", ["x.md:1: line 2 reads as a command"]),
        ("```text\nniah run DATASET --model SPEC\n```\n", []),
        ("```text\nniah build x --out d \\\n    [--tasks a,b]\n```\n", []),
        ("*Needs a GPU: a 7B model.*\n\n```bash\nniah run d\n```\n", []),
        ("*Needs a nap: tired.*\n```bash\nniah run d\n```\n", ["x.md:2: '*Needs a nap: tired.*' is not one"]),
        ("*Needs a GPU: a 7B model.*\n```text\nout\n```\n", ["x.md:2: a reason above a text block"]),
        ("```shell\nls\n```\n", ["x.md:1: unknown block language 'shell'"]),
    ],
)
def test_the_convention_checker_catches_what_it_should(doc: str, expected: list[str]) -> None:
    (block,) = blocks_of(doc, "x.md")
    problems = block_problems(block)
    assert len(problems) == len(expected)
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith(start), problem


def test_a_console_block_runs_its_dollar_lines_only() -> None:
    (block,) = blocks_of("```console\n$ niah a \\\n    --b\nout 1\n$ niah c\nout 2\n```\n", "x.md")
    assert script_of(block) == "niah a \\\n    --b\n\nniah c\n\n"


def _venv_bin() -> Path:
    return Path(sys.executable).parent


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{_venv_bin()}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p)
    env.update(
        {
            "PIP_NO_INDEX": "1",
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "INSPECT_DISPLAY": "none",
        }
    )
    return env


def run_block(block: Block, folder: Path) -> str | None:
    """Run one block in folder; None when it exits 0, else a message naming the doc line and command."""
    script = script_of(block)
    # bash ignores a PS4 from the environment when run as root, so the trace prompt is set in the script's first
    # line, which shifts $LINENO by one.
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-x", "-c", "PS4='+[line $LINENO] '\n" + script],
        cwd=folder,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode == 0:
        return _missing_output(block, result.stdout + result.stderr)
    traced = re.findall(r"^\++\[line (\d+)\] ", result.stderr, flags=re.MULTILINE)
    offset = max(int(traced[-1]) - 1, 1) if traced else 1
    command = script.splitlines()[offset - 1].strip() if offset <= len(script.splitlines()) else "?"
    output = (result.stdout + result.stderr)[-3000:]
    return f"{block.doc}:{block.line + offset}: exit {result.returncode}: {command}\n{output}"


def test_a_failing_block_is_reported_with_its_doc_line_and_command(tmp_path: Path) -> None:
    text = (
        "intro\n\n```bash\necho one\nniah build mm-niah --out d \\\n    --no-such-option\necho never\n```\n"
    )
    (block,) = blocks_of(text, "x.md")
    failure = run_block(block, tmp_path)
    assert failure is not None
    assert failure.startswith("x.md:5: exit 2: niah build mm-niah --out d"), failure
    assert "No such option" in failure
    (fine,) = blocks_of("```bash\necho ok > made.txt\n```\n", "y.md")
    assert run_block(fine, tmp_path) is None and (tmp_path / "made.txt").read_text() == "ok\n"


def _missing_output(block: Block, printed: str) -> str | None:
    """For a console block, the first output line it shows that its commands did not print."""
    if block.info != "console":
        return None
    lines = {line.rstrip() for line in printed.splitlines()}
    script = script_of(block).splitlines()
    for number, (shown, run) in enumerate(zip(block.body, script, strict=True), start=block.line + 1):
        if run or shown.strip() in {"", "...", "…"}:
            continue
        if shown.rstrip() not in lines:
            return f"{block.doc}:{number}: the transcript shows a line its commands do not print: {shown.strip()}"
    return None


def test_a_console_transcript_must_match_what_is_printed(tmp_path: Path) -> None:
    (right,) = blocks_of("```console\n$ echo one && echo two\n...\ntwo\n```\n", "x.md")
    assert run_block(right, tmp_path) is None
    (stale,) = blocks_of("```console\n$ echo one\nthree\n```\n", "x.md")
    assert (
        run_block(stale, tmp_path) == "x.md:3: the transcript shows a line its commands do not print: three"
    )


@pytest.mark.slow
@pytest.mark.parametrize("doc", sorted(runnable_by_doc()))
def test_the_docs_shell_blocks_run_as_written(doc: str, tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(_venv_bin().parent)
    for block in runnable_by_doc()[doc]:
        failure = run_block(block, tmp_path)
        assert failure is None, failure
