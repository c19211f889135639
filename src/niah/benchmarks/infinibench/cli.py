"""``niah import infinibench`` and ``niah judge infinibench``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from niah.commands import deprecated_alias, one_of_repeatable, pick_alias
from niah.commands import judge_options as jo
from niah.util.errors import ConfigError


def import_command(
    qa_files: Annotated[list[Path], typer.Argument(help="official QA JSON files, one per skill (or folders of them)")],
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    media_root: Annotated[list[Path] | None, typer.Option("--media-root", help="the videos root (video, frame-folder "
                                                          "and subtitle paths of the QA files are relative to it; "
                                                          "required, once)")] = None,
    videos: Annotated[Path | None, deprecated_alias("--videos", "--media-root")] = None,
    version: Annotated[str, typer.Option("--version", help="v1 (nine skills) or v2 (eight)")] = "v1",
    prefer: Annotated[str, typer.Option("--prefer", help="mp4 | frames: a record's video file or its frame "
                                        "folder, when it has both")] = "mp4",
    skill: Annotated[str | None, typer.Option("--skill", help="the skill every given file holds (default: a "
                                              "record's skill_name, else the file name)")] = None,
    frame_fps: Annotated[float | None, typer.Option("--frame-fps", help="frames per second of the frame "
                                                    "folders (default: known per source, TVQA 3; else 1)")] = None,
) -> None:
    """Official InfiniBench QA files -> a niah dataset reading the videos in place (run with --media-root)."""
    from niah.benchmarks.infinibench.loader import build_dataset
    from niah.benchmarks.infinibench.skills import skill_by_name

    videos = pick_alias(one_of_repeatable(media_root, "--media-root", "the QA files' paths are relative to one "
                                          "folder"), videos, "--media-root", required=True)
    if prefer not in ("mp4", "frames"):
        raise ConfigError(f"--prefer must be mp4 or frames, not {prefer!r}")
    if skill is not None and skill_by_name(skill) is None:
        raise ConfigError(f"--skill {skill!r} is not an InfiniBench skill")
    if frame_fps is not None and not frame_fps > 0:
        raise ConfigError(f"--frame-fps must be positive, not {frame_fps}")
    files: list[Path] = []
    for path in qa_files:
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    if not files:
        raise ConfigError("no QA files given (folders are searched for *.json)")
    count = build_dataset(files, out, videos_root=videos, version=version, prefer=prefer,  # type: ignore[arg-type]
                          skill=skill, frame_fps=frame_fps)
    root = videos.resolve()
    from niah.benchmarks.infinibench.loader import import_notes

    for note in import_notes(out):
        typer.echo(note, err=True)
    typer.echo(f"wrote {count} samples to {out} (videos and subtitles read in place from {root}; niah reads "
               f"outside a dataset only when told: pass --media-root {root} to run and report)", err=True)


def judge_command(
    run_dir: Annotated[Path, typer.Argument(help="a niah run directory on InfiniBench data")],
    judge: Annotated[str, typer.Option("--judge", help="judge model spec, e.g. openai:gpt-4o (v1) or "
                                       "openai:gpt-4o-mini (v2)")],
    protocol: Annotated[str, typer.Option("--protocol", help="v1 (the paper) or v2")] = "v1",
    base_url: jo.BaseUrls = None,
    api_key_env: jo.ApiKeyEnv = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-c", help="judge requests in flight")] = 8,
    dataset: Annotated[Path | None, typer.Option("--dataset", "-d", help="dataset dir instead of run.json's")] = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="ask again the replies whose stored verdict "
                                               "failed (no reply, or a reply that did not parse)")] = False,
    timeout: jo.Timeout = None,
    max_attempts: jo.MaxAttempts = None,
    retry_delay: jo.RetryDelay = None,
    guarded_prompt: Annotated[bool, typer.Option("--guarded-prompt", help="the official judge prompts with the "
                                                 "prediction fenced as untrusted data (a reply cannot write its "
                                                 "own score); off by default: the official prompts")] = False,
) -> None:
    """Judge what the rule matcher leaves undecided (v1: undecided MCQ and open-ended replies; v2: open-ended),
    then score the run under that protocol (scored.jsonl, scores.json). Verdicts are stored in the run
    (judgments.jsonl) and reused; niah score RUN applies those of the last pass again."""
    from niah.benchmarks.infinibench.judge_run import judge_run

    summary = judge_run(run_dir, judge, protocol=protocol, concurrency=concurrency, dataset=dataset,
                        retry_failed=retry_failed, guarded=guarded_prompt,
                        transport=jo.transport(base_url, api_key_env, timeout, max_attempts, retry_delay))
    from niah.benchmarks.protocol import official_structure

    structure, _in_percent = official_structure(summary.scores, "infinibench")
    overall = (structure or {}).get("overall") or {}
    typer.echo(f"{protocol}: judged {summary.asked['mcq']} MCQ and {summary.asked['open']} open-ended replies "
               f"({summary.unparsed} unparsed; {summary.reused} verdicts reused, {summary.requested} asked); "
               f"accuracy {overall.get('accuracy')}, score {overall.get('score')} -> {run_dir / 'scores.json'}")
    typer.echo(f"judge template(s): {', '.join(summary.templates)}"
               + (" (official wording)" if not guarded_prompt else " (guarded: the reply fenced as data)"), err=True)
    jo.note_flagged(summary.flagged)
    from niah.util.outcome import exit_if_judge_failures

    asked = int(summary.asked["mcq"] + summary.asked["open"])
    exit_if_judge_failures(int(summary.unparsed), max(0, asked - int(summary.unparsed)),
                           f"niah judge infinibench {run_dir}")


def export_command(
    dataset: Annotated[Path, typer.Argument(help="a niah InfiniBench dataset (as niah import infinibench wrote it)")],
    out: Annotated[Path, typer.Option("--out", "-o", help="folder for the official QA files")],
) -> None:
    """A dataset -> the official QA files: each imported file back under its own name, container and layout
    (import -> export is byte-identical); samples built otherwise as one JSON list per skill."""
    from niah.benchmarks.infinibench.official import export_dataset

    written = export_dataset(dataset, out)
    for name, n in written.items():
        typer.echo(f"{out / name}: {n} records", err=True)


def scores_file_check(protocol: str) -> Callable[[Path], bool]:
    """Whether a file reads back as the scores ``niah score`` wrote for the official ``protocol`` (v1, v2)."""
    from niah.util.iox import json_file_is

    def check(path: Path) -> bool:
        return json_file_is(path, lambda data: data.get("protocol") == protocol
                            and {"scale", "overall"} <= set(data))

    return check


def score_prediction_files(paths: list[Path], out: Path | None) -> None:
    """``niah score --format infinibench-v2-predictions PRED_DIR [--out FILE]``: the official v2 evaluation's
    figures from a folder of per-skill prediction files, offline (stored judge scores), with niah's matched
    MCQ accuracy beside the official exact-match one."""
    import json

    from niah.benchmarks.infinibench.predictions import notes, score_prediction_folder
    from niah.util.iox import write_json_atomic

    result = score_prediction_folder(paths)
    for line in notes(result):
        typer.echo(line, err=True)
    typer.echo(json.dumps({"overall": result["overall"],
                           "mcq": {k: round(v["accuracy"], 4) for k, v in result["mcq"].items()},
                           "open_ended": {k: round(v["average_score"], 4) for k, v in result["open_ended"].items()}},
                          ensure_ascii=False))
    if out is not None:
        write_json_atomic(out, result)
        typer.echo(f"wrote {out}")


def score_v1_judge_outputs(paths: list[Path], out: Path | None) -> None:
    """``niah score --format infinibench-v1-judged OUTPUT_JSON... [--out FILE]``: the official v1 scripts'
    accuracy and GPT score from their combined judge outputs, offline."""
    import json

    from niah.benchmarks.infinibench.v1_outputs import notes, score_v1_outputs
    from niah.util.iox import write_json_atomic

    result = score_v1_outputs(paths)
    for line in notes(result):
        typer.echo(line, err=True)
    figures = {Path(r["file"]).name: r.get("accuracy", r.get("average_score")) for r in result["files"]}
    typer.echo(json.dumps({"overall": result["overall"], "files": figures}, ensure_ascii=False))
    if out is not None:
        write_json_atomic(out, result)
        typer.echo(f"wrote {out}")
