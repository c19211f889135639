"""`niah run DATASET --model SPEC --out RUN_DIR`: send a dataset to a model, resumable.

Everything heavy (httpx, rich, the backends) is imported inside the command so that ``niah --help`` stays
fast.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from niah.commands import deprecated_alias, pick_alias, split_csv
from niah.util.errors import ConfigError
from niah.util.iox import check_folder_option, loads_finite
from niah.util.outcome import EXIT_INCOMPLETE, reason_counts


def parse_model_options(values: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; VALUE is parsed as JSON when it is valid JSON (numbers, true, objects)."""
    out: dict[str, Any] = {}
    for item in values or []:
        key, sep, raw = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise ConfigError(f"--model-option {item!r} must look like KEY=VALUE")
        try:
            out[key] = loads_finite(raw)
        except json.JSONDecodeError:
            out[key] = raw
        except ValueError:  # NaN, Infinity, 1e999: valid to Python's reader, never a usable setting
            raise ConfigError(f"option {item!r}: {raw} is not a finite number") from None
    return out


# The options of `niah run`, one alias each (typer reads the option from the annotation), so that the
# command's signature reads as the list of what it takes.
_Dataset = Annotated[Path, typer.Argument(help="Dataset directory (manifest.json, samples.jsonl, media/).")]
_Model = Annotated[str, typer.Option(
    "--model", "-m", help="openai:NAME | hf:PATH | vllm:PATH | baseline:random|oracle|rag[:READER]")]
_Out = Annotated[Path, typer.Option("--out", "-o", help="Run directory (created; rerun to resume).")]
_BaseUrl = Annotated[list[str] | None, typer.Option(
    "--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1; repeat for a pool of "
    "replicas.")]
_ApiKeyEnv = Annotated[str | None, typer.Option(
    "--api-key-env", help="Environment variable holding the API key.")]
_Concurrency = Annotated[int, typer.Option("--concurrency", "-c", help="Requests in flight per endpoint.")]
_MaxTokens = Annotated[int | None, typer.Option(
    "--max-tokens", help="Override the benchmark's max new tokens.")]
_Temperature = Annotated[float | None, typer.Option("--temperature", help="Override (official: 0, greedy).")]
_TopP = Annotated[float | None, typer.Option(
    "--top-p", help="Override the benchmark's nucleus sampling top_p.")]
_SamplingSeed = Annotated[int | None, typer.Option(
    "--sampling-seed", help="Sampling seed sent with each request (where the backend takes one).")]
# --seed is a build's seed on every other verb; here it was the sampling seed, so it gave way
_OldSeed = Annotated[int | None, deprecated_alias("--seed", "--sampling-seed")]
_Stop = Annotated[list[str] | None, typer.Option("--stop", help="Stop string (repeatable).")]
_Timeout = Annotated[float | None, typer.Option("--timeout", help="Seconds per request (openai backend).")]
_Retries = Annotated[int, typer.Option(
    "--max-attempts", help="Attempts per request before it is recorded as failed.")]
_RetryDelay = Annotated[float, typer.Option(
    "--retry-delay", help="Initial backoff in seconds (doubles, jittered).")]
_PromptOption = Annotated[list[str] | None, typer.Option(
    "--prompt-option", "-P", help="Benchmark prompt switch KEY=VALUE (repeatable); niah list shows each "
    "family's switches (niah run -P KEY=...).")]
_ModelOption = Annotated[list[str] | None, typer.Option(
    "--model-option", "-O", help="Backend option KEY=VALUE (repeatable): image_size=448x448, "
    "image_transport=file, device=cuda, dtype=bfloat16, rag_budget=8192, rag_retriever=minilm, ...")]
_MaxImages = Annotated[int | None, typer.Option(
    "--max-images", help="Declare the model's images-per-request limit.")]
_MaxContext = Annotated[int | None, typer.Option(
    "--max-context", help="Declare the model's context limit (tokens).")]
_NoVision = Annotated[bool, typer.Option("--no-vision", help="Declare a text-only model.")]
_Video = Annotated[bool, typer.Option("--video", help="Declare native video input (else frames are sent).")]
_OverLimit = Annotated[str, typer.Option(
    "--over-limit", help="skip | truncate | downscale | official: what to do with a prompt over the "
    "declared limits (always recorded).")]
_QuestionFirst = Annotated[bool, typer.Option(
    "--question-first", help="Render the question before the context (the question-first ablation, where "
    "a family offers it).")]
_MaxFrames = Annotated[int | None, typer.Option(
    "--max-frames", help="Frame budget per video for models without native video (uniform sampling; "
    "default 32 for a video file).")]
_VideoFps = Annotated[float | None, typer.Option(
    "--video-fps", help="Sample video frames every 1/FPS s (capped by --max-frames) instead of uniformly.")]
_Subtitles = Annotated[str, typer.Option(
    "--subtitles", help="frames | transcript | none: a video's subtitles as each frame's lines, or as "
    "one transcript after the frames.")]
# the defaults of --frame-limit and --max-video-seconds are niah.video.frames.DEFAULT_FRAME_LIMIT and
# DEFAULT_MAX_VIDEO_SECONDS (not imported here, so that `niah --help` does not load the video stage)
_FrameLimit = Annotated[int, typer.Option(
    "--frame-limit", help="Most frames one video may become (a frame folder or a sampled file); a video "
    "over it fails its sample.")]
_MaxVideoSeconds = Annotated[float, typer.Option(
    "--max-video-seconds", help="Longest duration a video may claim in its header (a sample over it fails).")]
_Tasks = Annotated[list[str] | None, typer.Option(
    "--tasks", help="Only these tasks (comma-separated; repeatable).")]
_Limit = Annotated[int | None, typer.Option("--limit", help="Only the first N (selected) samples.")]
_Shard = Annotated[str | None, typer.Option(
    "--shard", help="I/N: only shard I (0..N-1) of the selected samples, every N-th from the I-th; join "
    "the N run directories with niah merge.")]
_CacheDir = Annotated[Path | None, typer.Option(
    "--cache-dir", help="Shared response cache (in addition to RUN_DIR's).")]
_NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")]
_Overwrite = Annotated[bool, typer.Option("--overwrite", help="Discard RUN_DIR's responses and cache first.")]
_MediaRoot = Annotated[list[Path] | None, typer.Option(
    "--media-root", help="Allow reading media from this folder outside the dataset (an imported official "
    "set read in place); repeatable. Without it nothing outside DATASET/ is read.")]
_DryRun = Annotated[bool, typer.Option(
    "--dry-run", help="Validate, then print one line per sample (tokens, images, settings, policy) and "
    "the totals (samples, prompt tokens, images and frames, max output tokens, judge calls); call nothing.")]
_PricePerMtok = Annotated[str | None, typer.Option(
    "--price-per-mtok", metavar="IN,OUT", help="With --dry-run: estimate the cost at these prices per "
    "million input and output tokens, e.g. 2.5,10.")]
_Rpm = Annotated[float | None, typer.Option(
    "--rpm", metavar="N", help="At most N requests a minute (retries included), for hosted APIs with a "
    "rate limit.")]
_SystemPrompt = Annotated[str | None, typer.Option(
    "--system-prompt", metavar="TEXT", help="A system message sent with every request, in place of the "
    "benchmark's own if it has one (part of the cache key).")]
_AllowFailures = Annotated[bool, typer.Option(
    "--allow-failures", help="Exit 0 even when requests failed or were skipped (default: exit 3 then).")]
_ShowPrompts = Annotated[bool, typer.Option("--show-prompts", help="With --dry-run: print each prompt too.")]
_NoProgress = Annotated[bool, typer.Option("--no-progress", help="No progress bar.")]


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_command(
        dataset: _Dataset,
        model: _Model,
        out: _Out,
        base_url: _BaseUrl = None,
        api_key_env: _ApiKeyEnv = None,
        concurrency: _Concurrency = 8,
        max_tokens: _MaxTokens = None,
        temperature: _Temperature = None,
        top_p: _TopP = None,
        sampling_seed: _SamplingSeed = None,
        seed: _OldSeed = None,
        stop: _Stop = None,
        timeout: _Timeout = None,
        retries: _Retries = 6,
        retry_delay: _RetryDelay = 1.0,
        prompt_option: _PromptOption = None,
        model_option: _ModelOption = None,
        max_images: _MaxImages = None,
        max_context: _MaxContext = None,
        no_vision: _NoVision = False,
        video: _Video = False,
        over_limit: _OverLimit = "skip",
        question_first: _QuestionFirst = False,
        max_frames: _MaxFrames = None,
        video_fps: _VideoFps = None,
        subtitles: _Subtitles = "frames",
        frame_limit: _FrameLimit = 1024,
        max_video_seconds: _MaxVideoSeconds = 86_400.0,
        tasks: _Tasks = None,
        limit: _Limit = None,
        shard: _Shard = None,
        cache_dir: _CacheDir = None,
        no_cache: _NoCache = False,
        overwrite: _Overwrite = False,
        media_root: _MediaRoot = None,
        dry_run: _DryRun = False,
        price_per_mtok: _PricePerMtok = None,
        rpm: _Rpm = None,
        system_prompt: _SystemPrompt = None,
        allow_failures: _AllowFailures = False,
        show_prompts: _ShowPrompts = False,
        no_progress: _NoProgress = False,
    ) -> None:
        """Run a model on a dataset and write RUN_DIR (run.json, responses.jsonl, requests.log, cache/).

        The whole dataset is validated first (every problem reported as file:line: field); nothing is sent
        or written when it is invalid. Exit status: 0 when every selected sample was answered, 3 when some
        failed or were skipped (their reasons counted on stderr; --allow-failures gives 0), 2 on an error."""
        from niah.models.base import GenerationSettings
        from niah.models.registry import parse_model_spec
        from niah.prompts.types import PromptOptions
        from niah.run import RetryPolicy, run_dataset_sync
        from niah.run.estimate import parse_price
        from niah.run.shards import Shard

        check_folder_option(out)
        price = parse_price(price_per_mtok) if price_per_mtok is not None else None
        if price is not None and not dry_run:
            raise ConfigError("--price-per-mtok estimates a cost before a run: give it with --dry-run")
        options = _backend_options(model_option, timeout=timeout, max_images=max_images, max_context=max_context,
                                   no_vision=no_vision, video=video)
        spec = parse_model_spec(model, base_urls=base_url or (), api_key_env=api_key_env, options=options)
        generation = GenerationSettings(max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                                        seed=pick_alias(sampling_seed, seed, "--sampling-seed"),
                                        stop=tuple(stop) if stop else None)
        _check_prompt_settings(over_limit=over_limit, subtitles=subtitles, max_frames=max_frames,
                               video_fps=video_fps, frame_limit=frame_limit, max_video_seconds=max_video_seconds)
        prompt_options = PromptOptions(question_first=question_first, over_limit=over_limit,  # type: ignore[arg-type]
                                       max_frames=max_frames, video_fps=video_fps, subtitle_mode=subtitles,
                                       frame_limit=frame_limit, max_video_seconds=max_video_seconds,
                                       extra=tuple(sorted(parse_model_options(prompt_option).items())),
                                       system_prompt=system_prompt)
        summary = run_dataset_sync(
            dataset, spec, out, concurrency=concurrency, generation=generation, prompt_options=prompt_options,
            progress=not no_progress and not dry_run, cache_dir=cache_dir, use_cache=not no_cache,
            retry=RetryPolicy(max_attempts=max(1, retries), initial_delay=retry_delay),
            tasks=split_csv(tasks) or None, limit=limit, overwrite=overwrite, dry_run=dry_run,
            dry_run_full=show_prompts, media_roots=tuple(media_root or ()), rpm=rpm,
            shard=Shard.parse(shard) if shard is not None else None,
        )
        _tell_outcome(summary, out, price=price, dry_run=dry_run, allow_failures=allow_failures)


def _backend_options(model_option: list[str] | None, *, timeout: float | None, max_images: int | None,
                     max_context: int | None, no_vision: bool, video: bool) -> dict[str, Any]:
    """The backend's options: the ``--model-option`` pairs, then the declared limits and capabilities."""
    options = parse_model_options(model_option)
    if timeout is not None:
        options["timeout"] = timeout
    if max_images is not None:
        options["max_images"] = max_images
    if max_context is not None:
        options["max_context"] = max_context
    if no_vision:
        options["vision"] = False
    if video:
        options["video"] = True
    return options


def _check_prompt_settings(*, over_limit: str, subtitles: str, max_frames: int | None, video_fps: float | None,
                           frame_limit: int, max_video_seconds: float) -> None:
    """Refuse a prompt setting outside its range, naming the option."""
    if over_limit not in ("skip", "truncate", "downscale", "official"):
        raise ConfigError(f"--over-limit must be skip, truncate, downscale or official, not {over_limit!r}")
    if subtitles not in ("frames", "transcript", "none"):
        raise ConfigError(f"--subtitles must be frames, transcript or none, not {subtitles!r}")
    if max_frames is not None and max_frames < 1:
        raise ConfigError("--max-frames must be at least 1")
    if video_fps is not None and not video_fps > 0:
        raise ConfigError("--video-fps must be positive")
    if frame_limit < 1:
        raise ConfigError("--frame-limit must be at least 1")
    if not (math.isfinite(max_video_seconds) and max_video_seconds > 0):
        raise ConfigError("--max-video-seconds must be a positive number of seconds")


def _tell_outcome(summary: Any, out: Path, *, price: Any, dry_run: bool, allow_failures: bool) -> None:
    """Say on stderr what the run (or the dry run) did, and exit 3 when samples went unanswered."""
    from niah.run.estimate import totals_lines

    if dry_run:
        typer.echo(f"dry run: {summary.total} prompts rendered, nothing sent", err=True)
        for line in totals_lines(summary.estimate, price):
            typer.echo(line, err=True)
        _needle_note(summary, dry_run=True)
        return
    typer.echo(
        f"{summary.answered} answered, {summary.failed} failed, {summary.skipped} skipped "
        f"({summary.cached} from cache, {summary.resumed} already done); {summary.requests} requests in "
        f"{summary.wall_s:.1f}s -> {out}",
        err=True,
    )
    _needle_note(summary, dry_run=False)
    if summary.changed:
        typer.echo(f"{summary.changed} earlier answers were for a different request (the dataset, model, "
                   "settings or capabilities changed) and were asked again", err=True)
    exit_on_unanswered(summary, allow_failures=allow_failures)


def unanswered_lines(summary: Any) -> list[str]:
    """One line per kind of unanswered sample, with its reasons counted:
    ``2 failed: connection refused x 2``, ``1 skipped: skipped: ... x 1``."""
    lines = []
    if getattr(summary, "stopped", None):
        lines.append(str(summary.stopped))
    if summary.failed:
        lines.append(reason_counts("failed", summary.errors or {"error": summary.failed}))
    if summary.skipped:
        reasons = {k.removeprefix("skipped: "): n for k, n in summary.skip_reasons.items()}
        lines.append(reason_counts("skipped", reasons or {"over the declared limits": summary.skipped}))
    return lines


def exit_on_unanswered(summary: Any, *, allow_failures: bool) -> None:
    """Print why samples went unanswered and exit 3 (unless ``allow_failures``): a script can trust status 0."""
    lines = unanswered_lines(summary)
    for line in lines:
        typer.secho(line, fg=typer.colors.RED if not allow_failures else None, err=True)
    if lines and not allow_failures:
        typer.echo(f"exit {EXIT_INCOMPLETE}: not every request was answered (rerun to retry the failed ones; "
                   "--allow-failures exits 0)", err=True)
        raise typer.Exit(EXIT_INCOMPLETE)


def _needle_note(summary: Any, *, dry_run: bool) -> None:
    """Say when prompts leave needles out: a score on questions the model was never shown is no score."""
    if summary.needles_not_shown:
        verb = "would be" if dry_run else "were"
        typer.secho(f"NEEDLES NOT SHOWN: {summary.needles_not_shown} of {summary.needles_checked} samples {verb} sent "
                    "without all their needles (the frame or image budget, sampling or truncation dropped them)"
                    + ("" if dry_run else "; needle_shown is false in their responses.jsonl rows and `niah score` "
                       "reports the score over the samples shown")
                    + "; raise --max-frames / --max-images to the dataset's frame count to send every needle",
                    fg=typer.colors.YELLOW, bold=True, err=True)
