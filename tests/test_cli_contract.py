"""What a script can trust from the CLI: exit statuses that say whether every request was answered, one error
line (no traceback) and nothing written on bad arguments, request counts that include killed invocations, and
the hosted-run options (dry-run totals and cost, --rpm, --system-prompt), against the stand-in server."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.run import REQUESTS_LOG, RUN_JSON
from niah.run.ratelimit import RateLimiter
from niah.util.outcome import EXIT_ERROR, EXIT_INCOMPLETE, failure_reason
from support.datasets import write_mm_niah_like, write_text_prompts
from support.openai_server import FaultPlan, OpenAIServer


def _niah(*args: str | Path) -> object:
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def _dead_url() -> str:
    with socket.socket() as sock:  # a port nothing listens on: bound, then closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def text_ds(tmp_path_factory) -> Path:
    return write_text_prompts(tmp_path_factory.mktemp("t") / "ds", [f"Prompt {i}. The oak is old." for i in range(2)])


def _run(ds: Path, out: Path, url: str, *extra: str) -> object:
    return _niah("run", ds, "--model", "openai:echo", "--base-url", url, "--out", out, "--no-progress",
                 "--max-attempts", "2", "--retry-delay", "0.01", *extra)


# ------------------------------------------------------------------------------------------- exit statuses


def test_a_dead_server_exits_3_with_the_reason_counted(text_ds, tmp_path):
    result = _run(text_ds, tmp_path / "run", _dead_url())
    assert result.exit_code == EXIT_INCOMPLETE, result.output
    assert "2 failed: connection refused x 2" in result.stderr
    assert "Traceback" not in result.output
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["counts"]["requests"] == 4 and meta["errors"] == {"connection refused": 2}  # 2 samples x 2 attempts
    allowed = _run(text_ds, tmp_path / "run", _dead_url(), "--allow-failures")
    assert allowed.exit_code == 0 and "2 failed: connection refused x 2" in allowed.stderr


def test_a_dead_server_stops_the_run_early_keeping_what_is_done(tmp_path):
    """Every request so far failed to connect: the run stops after three, says why, and keeps their rows; the
    other samples are left to a rerun (before: each of them spent its retries against nothing)."""
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}. The oak is old." for i in range(40)])
    result = _niah("run", ds, "--model", "openai:echo", "--base-url", _dead_url(), "--out", tmp_path / "run",
                   "--no-progress", "--max-attempts", "2", "--retry-delay", "0.01", "--concurrency", "1")
    assert result.exit_code == EXIT_INCOMPLETE, result.output
    assert "stopped early: the first 3 requests all failed to connect" in result.stderr
    assert "3 failed: connection refused x 3" in result.stderr
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["counts"]["failed"] == 3 and meta["counts"]["missing"] == 37 and not meta["complete"]
    rows = [json.loads(x) for x in (tmp_path / "run" / "responses.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(r["status"] == "failed" for r in rows)
    # the server up again: the same command resumes and asks every sample
    with OpenAIServer() as srv:
        again = _niah("run", ds, "--model", "openai:echo", "--base-url", srv.base_url, "--out", tmp_path / "run",
                      "--no-progress")
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["complete"]


def test_a_good_run_exits_0_and_a_401_is_named(text_ds, tmp_path):
    with OpenAIServer() as srv:
        ok = _run(text_ds, tmp_path / "ok", srv.base_url)
    assert ok.exit_code == 0, ok.output
    assert "failed:" not in ok.stderr
    with OpenAIServer(api_key="right") as srv:
        refused = _run(text_ds, tmp_path / "key", srv.base_url)
    assert refused.exit_code == EXIT_INCOMPLETE and "2 failed: HTTP 401 x 2" in refused.stderr


def test_skipped_samples_also_exit_3(tmp_path):
    ds = write_mm_niah_like(tmp_path / "mm", per_task=1, tasks=("retrieval-image",))
    with OpenAIServer() as srv:
        result = _run(ds, tmp_path / "run", srv.base_url, "--no-vision")
        assert not srv.log  # nothing was sent: the model takes no images
    assert result.exit_code == EXIT_INCOMPLETE
    assert "1 skipped: N images but the model takes no images x 1" in result.stderr


def test_failure_reasons_are_short_and_carry_no_url() -> None:
    assert failure_reason("connection error at http://h:1/v1: ConnectError: All connection attempts failed "
                          "(gave up after 6 attempts)") == "connection refused"
    assert failure_reason("HTTP 429 from http://h/v1: slow down (gave up after 6 attempts)") == "HTTP 429"
    assert failure_reason("no complete reply within 30s at http://h/v1") == "timeout"
    assert failure_reason("internal error: KeyError: 'x'") == "internal error (KeyError)"


# ----------------------------------------------------------------------------- bad arguments: one line, no files


@pytest.mark.parametrize("verb", ["run", "report", "eval", "export"])
def test_out_naming_a_file_is_one_line_and_writes_nothing(text_ds, tmp_path, verb):
    target = tmp_path / "taken"
    target.write_text("keep me")
    args = {
        "run": ["run", text_ds, "--model", "baseline:oracle", "--out", target],
        "report": ["report", text_ds, "--out", target],
        "eval": ["eval", "--out", target],
        "export": ["export", "seq-niah", text_ds, "--out", target],
    }[verb]
    before = sorted(p.name for p in tmp_path.iterdir())
    result = _niah(*args)
    assert result.exit_code == EXIT_ERROR
    assert "Traceback" not in result.output and "FileExistsError" not in result.output
    assert result.stderr.count("\n") == 1 and f"--out {target} is a file" in result.stderr
    assert target.read_text() == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == before


def test_eval_refuses_a_zero_length_saying_what_a_length_is(tmp_path):
    result = _niah("eval", "--lengths", "0", "--out", tmp_path / "ev")
    assert result.exit_code == EXIT_ERROR
    assert "8k" in result.stderr and "8192" in result.stderr and "8k-12k" in result.stderr
    assert not (tmp_path / "ev").exists()


# ------------------------------------------------------------------------------- counts survive a killed run


def test_requests_are_counted_before_they_are_sent(text_ds, tmp_path):
    """A request logged in requests.log but never answered (the process was killed) still counts in run.json."""
    run_dir = tmp_path / "run"
    with OpenAIServer() as srv:
        assert _run(text_ds, run_dir, srv.base_url).exit_code == 0
        # what a kill -9 in the middle of a later invocation leaves: 3 attempts sent, no row, run.json unchanged
        with (run_dir / REQUESTS_LOG).open("a") as fh:
            fh.write('{"id": "x", "attempt": 1}\n{"id": "x", "attempt": 2}\n{"id": "x", "attem')
        assert _run(text_ds, run_dir, srv.base_url).exit_code == 0
        sent = len(srv.log)
    counts = json.loads((run_dir / RUN_JSON).read_text())["counts"]
    assert sent == 2 and counts["requests"] == sent + 3 and counts["retries"] == 2


# ------------------------------------------------------------------------------------------ hosted-run options


def test_dry_run_totals_match_the_tokens_a_real_run_counts(tmp_path):
    from niah.tokens import get_tokenizer

    ds = write_mm_niah_like(tmp_path / "mm", per_task=2)
    tok = get_tokenizer("cl100k_base")

    def count(body: dict) -> int:  # a server's accounting: its tokenizer over the text, 256 per image
        n = 0
        for message in body["messages"]:
            content = message["content"]
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for part in parts:
                n += tok.count(part["text"]) if part["type"] == "text" else 256
        return n

    dry = _niah("run", ds, "--model", "openai:echo", "--base-url", _dead_url(), "--out", tmp_path / "run", "--dry-run",
                "--system-prompt", "Answer briefly.", "--price-per-mtok", "2,8")
    assert dry.exit_code == 0, dry.output
    line = next(x for x in dry.stderr.splitlines() if x.startswith("prompt tokens:"))
    estimated = int(line.split(":")[1].split("(")[0].replace(",", ""))
    with OpenAIServer(count_prompt_tokens=count) as srv:
        real = _run(ds, tmp_path / "run", srv.base_url, "--system-prompt", "Answer briefly.")
    assert real.exit_code == 0, real.output
    counted = json.loads((tmp_path / "run" / RUN_JSON).read_text())["counts"]["prompt_tokens"]
    assert abs(estimated - counted) <= 0.01 * counted, (estimated, counted)
    assert "totals: 12 samples, 12 requests" in dry.stderr and "judge calls: 0" in dry.stderr
    assert "images, 0 video frames" in dry.stderr and "max output tokens: 256" in dry.stderr  # 4 x 32 + 8 x 16
    cost = next(x for x in dry.stderr.splitlines() if x.startswith("cost estimate:"))
    assert cost.startswith(f"cost estimate: {(estimated * 2 + 256 * 8) / 1e6:.4f} ")


def test_dry_run_says_which_images_it_could_not_count(tmp_path):
    """An imported set that records no image cost (InfiniBench's sampled frames here) was estimated at 0 tokens
    per image without a word: the totals and the cost estimate now say how many images they leave out."""
    from support.infinibench_fixtures import write_qa_files, write_videos

    write_videos(tmp_path / "videos")
    write_qa_files(tmp_path / "qa")
    assert _niah("import", "infinibench", tmp_path / "qa", "--media-root", tmp_path / "videos", "--out",
                 tmp_path / "ds").exit_code == 0
    dry = _niah("run", tmp_path / "ds", "--model", "openai:echo", "--base-url", _dead_url(), "--out", tmp_path / "run",
                "--dry-run", "--media-root", tmp_path / "videos", "--max-frames", "3", "--price-per-mtok", "1,1")
    assert dry.exit_code == 0, dry.output
    tokens = next(x for x in dry.stderr.splitlines() if x.startswith("prompt tokens:"))
    shown = int(tokens.split("; ")[1].split(" images")[0])
    assert shown > 0 and ", 0 image)" in tokens
    assert f"; {shown} of these images and frames have no token count in this dataset" in tokens
    cost = next(x for x in dry.stderr.splitlines() if x.startswith("cost estimate:"))
    assert cost.endswith(f"; retries and {shown} uncounted images not included)")
    counted = _niah("run", write_mm_niah_like(tmp_path / "mm", per_task=1), "--model", "openai:echo", "--base-url",
                    _dead_url(), "--out", tmp_path / "run2", "--dry-run", "--price-per-mtok", "1,1")
    assert counted.exit_code == 0 and "no token count" not in counted.stderr and "uncounted" not in counted.stderr


def test_system_prompt_reaches_the_server_and_changes_the_request(text_ds, tmp_path):
    with OpenAIServer() as srv:
        assert _run(text_ds, tmp_path / "run", srv.base_url, "--system-prompt", "You are terse.").exit_code == 0
        systems = [m for e in srv.log for m in e.body["messages"] if m["role"] == "system"]
        assert [m["content"] for m in systems] == ["You are terse."] * 2
        plain = _run(text_ds, tmp_path / "plain", srv.base_url)
        assert plain.exit_code == 0
        assert not [m for e in srv.log[2:] for m in e.body["messages"] if m["role"] == "system"]


def test_rate_limiter_spaces_requests_on_a_fake_clock() -> None:
    now = [0.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(30, clock=lambda: now[0], sleep=sleep)  # one every 2 s

    async def go() -> None:
        await asyncio.gather(*(limiter.acquire() for _ in range(5)))

    asyncio.run(go())
    assert limiter.acquired == 5 and waits == pytest.approx([2.0] * 4) and now[0] == pytest.approx(8.0)
    now[0] += 60.0  # idle for a minute: the bucket holds one token (burst 1), not thirty
    asyncio.run(go())
    assert len(waits) == 8


def test_rpm_passes_every_attempt_through_the_limiter(text_ds, tmp_path, monkeypatch):
    import niah.run.ratelimit

    made: list[RateLimiter] = []
    real_init = RateLimiter.__init__

    def spy(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(niah.run.ratelimit.RateLimiter, "__init__", spy)
    with OpenAIServer(faults=FaultPlan(share={"500": 1.0}, fail_attempts=1)) as srv:
        result = _run(text_ds, tmp_path / "run", srv.base_url, "--rpm", "60000")
        assert result.exit_code == 0, result.output
        assert len(made) == 1 and made[0].acquired == len(srv.log) == 4  # first attempts failed, retries passed
    bad = _run(text_ds, tmp_path / "bad", _dead_url(), "--rpm", "0")
    assert bad.exit_code == EXIT_ERROR and "--rpm" in bad.stderr and not (tmp_path / "bad").exists()


# ------------------------------------------------------------------------------------------------------- help


def _commands(group: object, path: tuple[str, ...] = ()):
    """Every leaf command of the CLI's command tree, with its path (typer's groups are click commands that
    list subcommands)."""
    import click

    ctx = click.Context(group)  # type: ignore[arg-type]
    for name in group.list_commands(ctx):  # type: ignore[attr-defined]
        command = group.get_command(ctx, name)  # type: ignore[attr-defined]
        if hasattr(command, "list_commands"):
            yield from _commands(command, (*path, name))
        elif command is not None:
            yield (*path, name), command


def test_help_shows_types_as_users_read_them_and_describes_eval_and_run():
    import typer.main

    root = typer.main.get_command(app)
    seen = 0
    for path, command in _commands(root):
        out = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).output
        seen += 1
        for python_type in ("<bool>", "<str>", "<int>", "<list[", "<path>", "<float>"):
            assert python_type not in out, (path, python_type)
        if path in (("eval",), ("run",)):
            undescribed = [p.name for p in command.params if p.param_type_name == "option" and not p.help]
            assert not undescribed, (path, undescribed)
    assert seen > 20


def test_help_texts_hold_no_unescaped_markup_tags():
    """Typer renders help as rich markup, where "[hf]" or "[head, relation, tail, date]" is read as a style tag
    and vanishes (a user was told to ``pip install 'niah'``): every help text that shows brackets escapes them."""
    import re

    import typer.main

    tag = re.compile(r"(?<!\\)\[[a-z#/@][^\[]*?\]")
    root = typer.main.get_command(app)
    found = []
    for path, command in _commands(root):
        texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
        found += [(path, m.group(0)) for t in texts for m in tag.finditer(t)]
    assert not found
    shown = CliRunner().invoke(app, ["export", "hf", "--help"], env={"COLUMNS": "200"}).output
    assert "niah-bench[hf]" in shown
    shown = CliRunner().invoke(app, ["build", "seq-niah", "--help"], env={"COLUMNS": "200"}).output
    assert "[head, relation, tail, date]" in shown


def test_run_help_points_at_prompt_switches_niah_list_shows():
    run_help = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "niah list" in run_help
    listing = CliRunner().invoke(app, ["list"], env={"COLUMNS": "200"}).output
    assert "niah run -P milebench_tokenizer=" in listing


def test_one_spelling_per_concept_on_every_command():
    """Walks every command's options: a visible option may not use another spelling of a concept (per-cell
    counts, image token rules, media folders); old spellings are hidden aliases that still work."""
    import typer.main

    from niah.commands import CANONICAL_OPTIONS

    root = typer.main.get_command(app)
    old_to_new = {old: new for new, olds in CANONICAL_OPTIONS.items() for old in olds}
    visible_old, aliases = [], []
    for path, command in _commands(root):
        for param in command.params:
            if param.param_type_name != "option":
                continue
            for spelling in param.opts:
                if spelling not in old_to_new:
                    continue
                if param.hidden:
                    aliases.append((path, spelling))
                elif not (spelling == "--images" and param.type_descriptor.annotation is int):  # an image count, not a folder
                    visible_old.append((" ".join(path), spelling, old_to_new[spelling]))
    assert not visible_old, visible_old
    assert len(aliases) >= 5
    mm_cli = next(c for p, c in _commands(root) if p == ("build", "mmlongbench-vh"))
    assert "--per-cell" in {o for p in mm_cli.params for o in p.opts}


def test_a_deprecated_spelling_works_and_says_so(tmp_path):
    result = _niah("import", "mm-niah", tmp_path / "none.jsonl", "--images", tmp_path, "--out", tmp_path / "ds")
    assert "note: --images is deprecated; use --media-root" in result.stderr
    assert result.exit_code == EXIT_ERROR and "Traceback" not in result.output  # the file is missing: one line
    missing = _niah("import", "mm-niah", tmp_path / "none.jsonl", "--out", tmp_path / "ds")
    assert missing.exit_code == EXIT_ERROR and "missing option --media-root" in missing.stderr


def test_infinibench_import_names_its_videos_root_media_root(tmp_path):
    """The videos root of niah import infinibench was --videos, where every other importer says --media-root
    (and run and report read the same folder under that name)."""
    from support.infinibench_fixtures import write_qa_files, write_videos

    write_videos(tmp_path / "videos")
    write_qa_files(tmp_path / "qa")
    new = _niah("import", "infinibench", tmp_path / "qa", "--media-root", tmp_path / "videos", "--out", tmp_path / "a")
    old = _niah("import", "infinibench", tmp_path / "qa", "--videos", tmp_path / "videos", "--out", tmp_path / "b")
    assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
    assert "deprecated" not in new.stderr and "note: --videos is deprecated; use --media-root" in old.stderr
    assert (tmp_path / "a" / "samples.jsonl").read_bytes() == (tmp_path / "b" / "samples.jsonl").read_bytes()
    missing = _niah("import", "infinibench", tmp_path / "qa", "--out", tmp_path / "c")
    assert missing.exit_code == EXIT_ERROR and "missing option --media-root" in missing.stderr
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("spec", ["8k", "8192", "8k-12k", "1.5k"])
def test_one_length_syntax(spec):
    from niah.build.lengths import parse_length

    lo, hi = parse_length(spec)
    assert 0 < lo <= hi and (spec != "8k" or lo == hi == 8000) and (spec != "8192" or lo == 8192)


@pytest.mark.parametrize("spec", ["0", "-8k", "8x", "12k-8k", "", "1.5"])
def test_bad_lengths_say_what_a_length_is(spec):
    from niah.build.lengths import parse_length
    from niah.util.errors import ConfigError

    with pytest.raises(ConfigError, match="8k|low to high"):
        parse_length(spec)


def test_counters_in_a_log_are_whole_lines(capsys):
    from niah.util.console import counter

    for done in range(1, 101):
        counter("build", done, 100, "samples")
    err = capsys.readouterr().err
    assert "\r" not in err and err.splitlines()[-1] == "build: 100/100 samples" and len(err.splitlines()) == 20


def test_report_says_what_it_is_doing(text_ds, tmp_path):
    with OpenAIServer() as srv:
        assert _run(text_ds, tmp_path / "run", srv.base_url).exit_code == 0
    assert _niah("score", tmp_path / "run").exit_code == 0
    result = _niah("report", tmp_path / "run", "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    stages = [line for line in result.stderr.splitlines() if line.startswith("report: ")]
    assert stages[0] == "report: reading 1 input(s)" and any("sample browser" in s for s in stages)
    quiet = _niah("report", tmp_path / "run", "--out", tmp_path / "rep2", "--no-progress")
    assert quiet.exit_code == 0 and "report: reading" not in quiet.stderr


# ------------------------------------------------------------------------- one --lengths syntax, every builder


def test_mmlongbench_names_its_official_lengths_as_8k_or_their_token_count(capsys):
    from niah.benchmarks.mmlongbench.datasets import length_bins

    assert length_bins(["8k,16384", "32K", "65536", "128k"]) == [8, 16, 32, 64, 128]
    assert length_bins(["8000", "8k", "8192"]) == [8]  # one length, however it is written, built once
    assert capsys.readouterr().err == ""
    assert length_bins(["8,16"]) == [8, 16]  # the old K spelling, for one release
    assert capsys.readouterr().err == "note: --lengths 8,16 (K values) is deprecated; use --lengths 8k,16k\n"


@pytest.mark.parametrize("spec", ["12k", "8k-16k", "4096", "8x"])
def test_mmlongbench_refuses_other_lengths_listing_the_official_ones(spec):
    from niah.benchmarks.mmlongbench.datasets import length_bins
    from niah.util.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        length_bins([spec])
    message = str(caught.value)
    assert message.startswith(f"--lengths {spec!r}") and "8k, 16k, 32k, 64k, 128k" in message and "\n" not in message


@pytest.mark.parametrize("command", [["build", "mmlongbench-vh"], ["build", "mmlongbench-niah"],
                                     ["build", "milebench-niah"], ["build", "seq-niah"]])
def test_a_length_a_builder_cannot_build_is_one_line_and_writes_nothing(tmp_path, command):
    bad = {"mmlongbench-vh": "12k", "mmlongbench-niah": "8k-16k", "milebench-niah": "4k-8k",
           "seq-niah": "12k"}[command[1]]
    result = _niah(*command, "--lengths", bad, "--out", tmp_path / "ds")
    assert result.exit_code == EXIT_ERROR, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: --lengths {bad!r}")
    assert "Traceback" not in result.output and not (tmp_path / "ds").exists()
    allowed = {"mmlongbench-vh": "8k, 16k", "mmlongbench-niah": "8k, 16k", "milebench-niah": "(8k)",
               "seq-niah": "8k-16k, 16k-32k"}[command[1]]
    assert allowed in result.stderr


def test_mmlongbench_import_takes_the_shared_syntax(tmp_path, monkeypatch):
    import niah.benchmarks.mmlongbench.official as official
    from niah.sample import DatasetWriter

    asked: list[object] = []

    def write(data_root, image_root, out, *, lengths, **_):  # the importer, reduced to what --lengths became
        asked.append(lengths)
        with DatasetWriter(out) as writer:
            writer.finish({"benchmark": "mmlongbench"})
        return official.Dataset(out, media_roots=(image_root,)), []

    monkeypatch.setattr(official, "write_mmlongbench_dataset", write)
    ok = _niah("import", "mmlongbench", tmp_path, "--media-root", tmp_path, "--out", tmp_path / "ds",
               "--lengths", "16k,8192")
    old = _niah("import", "mmlongbench", tmp_path, "--media-root", tmp_path, "--out", tmp_path / "ds2",
                "--lengths", "32")
    assert ok.exit_code == 0 and old.exit_code == 0, (ok.output, old.output)
    assert asked == [[16, 8], [32]] and "deprecated" not in ok.stderr
    assert "note: --lengths 32 (K values) is deprecated; use --lengths 32k" in old.stderr


def test_seq_niah_names_its_bins_in_the_shared_syntax():
    from niah.benchmarks.seq_niah.build import length_bin_names

    assert length_bin_names(["8000-16000", "8K-16K,2k-4k", "64k-128k"]) == ["8k-16k", "2k-4k", "64k-128k"]


def test_milebench_takes_exact_lengths_in_the_shared_syntax():
    from niah.build.lengths import exact_lengths

    assert exact_lengths(["4096,8k", "8000", "1.5k"], builder="milebench-niah") == [4096, 8000, 1500]


def test_eval_refuses_a_length_its_builder_cannot_build_and_leaves_nothing(tmp_path):
    result = _niah("eval", "--family", "mmlongbench", "--lengths", "12k", "--out", tmp_path / "ev")
    assert result.exit_code == EXIT_ERROR
    assert result.stderr.startswith("error: --lengths '12k' is not an official MMLongBench length")
    assert not (tmp_path / "ev").exists()




@pytest.mark.parametrize("benchmark", ["seq-niah", "mmlongbench"])
def test_eval_refuses_an_option_its_builder_does_not_take(tmp_path, benchmark):
    """--image-tokens for a text-only family, or for MMLongBench (whose image cost is the official Qwen2-VL rule),
    was dropped silently (seq-niah) or ended in a TypeError traceback (mmlongbench)."""
    result = _niah("eval", "--family", benchmark, "--image-tokens", "fixed:100", "--out", tmp_path / "ev")
    assert result.exit_code == EXIT_ERROR
    assert result.stderr.startswith("error: --image-tokens does not apply to the ")
    assert not (tmp_path / "ev").exists()


def test_image_tokens_takes_a_rule_on_milebench_too(tmp_path):
    """One --image-tokens RULE everywhere: MileBench's fixed cost is N or fixed:N (it took only an integer, and
    niah eval's rule string ended in a TypeError); any other rule is refused, saying what it takes."""
    from niah.benchmarks.milebench.build import build_milebench_niah

    as_rule, as_number = tmp_path / "rule", tmp_path / "number"
    build_milebench_niah(as_rule, lengths=[1024], per_length=1, image_tokens="fixed:100")
    build_milebench_niah(as_number, lengths=[1024], per_length=1, image_tokens=100)
    assert (as_rule / "samples.jsonl").read_bytes() == (as_number / "samples.jsonl").read_bytes()
    result = _niah("build", "milebench-niah", "--image-tokens", "qwen2vl-28px", "--out", tmp_path / "ds")
    assert result.exit_code == EXIT_ERROR and "give N or fixed:N" in result.stderr
    assert not (tmp_path / "ds").exists()


def test_eval_image_tokens_reaches_the_video_builder(tmp_path):
    """video-niah's builder read only its older option name (image_rule): niah eval's --image-tokens was lost."""
    from niah.benchmarks.video_niah.build import BuildOptions

    assert BuildOptions.from_mapping({"image_tokens": "fixed:64"}).image_rule == "fixed:64"
    assert BuildOptions.from_mapping({"image_rule": "fixed:32"}).image_rule == "fixed:32"
# ------------------------------------------------------------------------------------- help: described, wrapped


def test_every_option_of_every_command_has_a_description():
    import typer.main

    root = typer.main.get_command(app)
    undescribed = [(" ".join(path), max(p.opts, key=len)) for path, command in _commands(root)
                   for p in command.params if "--help" not in p.opts and not (getattr(p, "help", None) or "").strip()]
    assert not undescribed, undescribed


def test_help_has_no_line_breaks_of_its_own_so_the_terminal_wraps_it():
    """typer's rich formatter keeps every newline of a command's help after its first paragraph: a docstring's
    line break would break a sentence mid-line at any width. Only paragraphs and list items start lines."""
    import re

    import typer.main

    root = typer.main.get_command(app)
    broken = []
    for path, command in _commands(root):
        for paragraph in (command.help or "").split("\n\n"):
            for line in paragraph.splitlines()[1:]:
                if not re.match(r"^\s*([-*]|\d+[.)])\s", line) and not paragraph.startswith("\b"):
                    broken.append((" ".join(path), line))
        broken += [(" ".join(path), p.name) for p in command.params if "\n" in (getattr(p, "help", None) or "")]
    assert not broken, broken


@pytest.mark.parametrize("columns", [60, 100])
def test_help_fits_the_terminal_and_keeps_sentences_whole(columns):
    for path in (["eval"], ["run"], ["judge", "mmlongbench"], ["build", "mmlongbench-niah"]):
        out = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)}).output
        assert max(len(line) for line in out.splitlines()) <= columns, (path, columns)
    wide = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"}).output
    assert "(after the report; --allow-failures gives 0)" in wide  # was cut after "report;" at every width


def test_a_reader_that_goes_away_ends_the_command_quietly(text_ds, tmp_path):
    """`niah score RUN | head`: the pipe closes before niah prints; what was asked is done (scores.json written)
    and niah stops without an "error: [Errno 32] Broken pipe" line."""
    import subprocess
    import sys

    from support.processes import niah_env

    run = tmp_path / "run"
    assert _niah("run", text_ds, "--model", "baseline:oracle", "--out", run, "--no-progress").exit_code == 0
    proc = subprocess.Popen([sys.executable, "-m", "niah.cli", "score", str(run)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=niah_env())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before niah writes a byte
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Broken pipe" not in err and "Traceback" not in err, err
    assert proc.returncode == 1
    assert (run / "scores.json").is_file()
