"""The judge pass over a run: ask the judge only what the rules leave undecided, then score under a protocol."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.benchmarks.infinibench.judging import (
    PARSE_ATTEMPTS,
    V1_JUDGE_GENERATION,
    V1_MCQ_TEMPLATE,
    V1_OPEN_TEMPLATE,
    V2_JUDGE_GENERATION,
    V2_JUDGE_RETRIES,
    V2_OPEN_TEMPLATE,
    options_listing,
    parse_v1_decision,
    parse_v1_score,
    parse_v2_score,
)
from niah.benchmarks.infinibench.loader import BENCHMARK
from niah.benchmarks.infinibench.score import Verdict, _options, is_mcq, judging, needs_verdict, verdict_key
from niah.errors import ConfigError
from niah.iox import dumps_line, write_atomic
from niah.sample import Dataset, Sample, parts_text

JUDGE_CACHE = "judge-cache"


@dataclass(slots=True)
class JudgeSummary:
    protocol: str
    asked: dict[str, int] = field(default_factory=dict)  # "mcq" / "open" -> judge calls needed
    unparsed: int = 0
    cached: int = 0
    judgments: Path | None = None
    scores: dict[str, Any] = field(default_factory=dict)


def _question(sample: Sample) -> str:
    return parts_text(sample.question)


def judge_run(run_dir: str | Path, judge_model: str, *, protocol: str = "v1", base_urls: tuple[str, ...] = (),
              api_key_env: str | None = None, concurrency: int = 8, dataset: str | Path | None = None,
              progress: bool = True) -> JudgeSummary:
    """Judge what the rules leave undecided in ``run_dir`` under ``protocol``; write
    ``judgments.<protocol>.jsonl`` and score the run again with the verdicts (scored.jsonl, scores.json)."""
    from niah.cache import ResponseCache
    from niah.judges import Judge
    from niah.run import RetryPolicy
    from niah.scoring import read_responses, read_run_json, resolve_run_dataset, score_run

    if protocol not in ("v1", "v2"):
        raise ConfigError(f"--protocol must be v1 or v2, not {protocol!r}")
    run_path = Path(run_dir)
    run = read_run_json(run_path)
    ds = Dataset(resolve_run_dataset(run_path, run, dataset))
    responses = read_responses(run_path / "responses.jsonl")
    mcq_items: list[tuple[str, str, str | None]] = []
    open_items: list[tuple[str, str, str | None]] = []
    keys: dict[str, list[tuple[str, str]]] = {"mcq": [], "open": []}
    for sample in ds:
        if sample.benchmark != BENCHMARK:
            continue
        row = responses.get(sample.id)
        response = row.get("response") if row is not None else None
        if not needs_verdict(sample, response, protocol):
            continue
        key = verdict_key(sample.id, response)
        if is_mcq(sample):
            mcq_items.append((_question(sample) + "\n" + options_listing(_options(sample)), "", response))
            keys["mcq"].append((sample.id, key))
        else:
            gold = sample.answer if isinstance(sample.answer, str) else str(sample.answer)
            open_items.append((_question(sample), gold, response))
            keys["open"].append((sample.id, key))
    summary = JudgeSummary(protocol=protocol, asked={"mcq": len(mcq_items), "open": len(open_items)})
    if progress:
        print(f"judging {len(mcq_items)} undecided MCQ and {len(open_items)} open-ended replies ({protocol})",
              file=sys.stderr)
    cache = ResponseCache(run_path / JUDGE_CACHE)
    common: dict[str, Any] = {"base_urls": base_urls, "api_key_env": api_key_env, "cache": cache,
                              "max_parse_attempts": PARSE_ATTEMPTS}
    if protocol == "v1":
        mcq_judge = Judge(judge_model, template=V1_MCQ_TEMPLATE, parser=parse_v1_decision,
                          generation=V1_JUDGE_GENERATION, **common)
        open_judge = Judge(judge_model, template=V1_OPEN_TEMPLATE, parser=parse_v1_score,
                           generation=V1_JUDGE_GENERATION, **common)
    else:
        mcq_judge = None
        open_judge = Judge(judge_model, template=V2_OPEN_TEMPLATE, parser=parse_v2_score,
                           generation=V2_JUDGE_GENERATION, retry=RetryPolicy(max_attempts=V2_JUDGE_RETRIES),
                           **common)

    async def go() -> tuple[list[Any], list[Any]]:
        try:
            mcq = await mcq_judge.judge_many(mcq_items, concurrency=concurrency) if mcq_judge and mcq_items else []
            opened = await open_judge.judge_many(open_items, concurrency=concurrency) if open_items else []
            return mcq, opened
        finally:
            if mcq_judge is not None:
                await mcq_judge.aclose()
            await open_judge.aclose()

    try:
        mcq_verdicts, open_verdicts = asyncio.run(go())
    finally:
        cache.close()
    verdicts: dict[str, Verdict] = {}
    lines: list[str] = []
    for kind, found in (("mcq", mcq_verdicts), ("open", open_verdicts)):
        for (sample_id, key), v in zip(keys[kind], found, strict=True):
            verdicts[key] = Verdict(v.score, v.raw, v.error)
            summary.unparsed += v.score is None
            summary.cached += v.cached
            lines.append(dumps_line({"id": sample_id, "kind": kind, "verdict_key": key, "value": v.score,
                                     "raw": v.raw, "error": v.error, "cached": v.cached}))
    summary.judgments = run_path / f"judgments.{protocol}.jsonl"
    write_atomic(summary.judgments, "".join(lines))
    with judging(protocol, verdicts, judge=judge_model):
        scored = score_run(run_path, dataset=dataset)
    summary.scores = scored.scores
    return summary
