"""The judge pass over a run: ask the judge only what the rules leave undecided, then score under a protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.benchmarks.infinibench.judging import (
    PARSE_ATTEMPTS,
    V1_JUDGE_GENERATION,
    V1_MCQ_GUARDED_TEMPLATE,
    V1_MCQ_TEMPLATE,
    V1_OPEN_GUARDED_TEMPLATE,
    V1_OPEN_TEMPLATE,
    V2_JUDGE_ATTEMPTS,
    V2_JUDGE_GENERATION,
    V2_OPEN_GUARDED_TEMPLATE,
    V2_OPEN_TEMPLATE,
    options_listing,
    parse_v1_decision,
    parse_v1_score,
    parse_v2_score,
)
from niah.benchmarks.infinibench.loader import BENCHMARK
from niah.benchmarks.infinibench.score import _options, is_mcq, needs_verdict
from niah.sample import Dataset, Sample, parts_text
from niah.scoring.judges import JudgeTransport
from niah.util.errors import ConfigError


@dataclass(slots=True)
class JudgeSummary:
    protocol: str
    asked: dict[str, int] = field(default_factory=dict)  # "mcq" / "open" -> replies the protocol judges
    unparsed: int = 0
    reused: int = 0  # verdicts reused from the run's store (not asked again)
    requested: int = 0  # judgements sent to the judge this time
    judgments: Path | None = None
    scores: dict[str, Any] = field(default_factory=dict)
    templates: list[str] = field(default_factory=list)  # the judge templates used, by name
    flagged: list[str] = field(default_factory=list)  # ids whose reply holds judge-like instructions


def _question(sample: Sample) -> str:
    return parts_text(sample.question)


def judge_run(run_dir: str | Path, judge_model: str, *, protocol: str = "v1", base_urls: tuple[str, ...] = (),
              api_key_env: str | None = None, concurrency: int = 8, dataset: str | Path | None = None,
              progress: bool = True, retry_failed: bool = False, transport: JudgeTransport | None = None,
              guarded: bool = False) -> JudgeSummary:
    """Judge what the rules leave undecided in ``run_dir`` under ``protocol``, storing the verdicts in the run
    (:mod:`niah.scoring.verdicts`; stored ones are reused, failed ones asked again only with ``retry_failed``), and score
    the run again with them (scored.jsonl, scores.json). ``guarded`` uses the official prompts with the
    prediction fenced as untrusted data (opt-in: the official templates are the default)."""
    from niah.run import RetryPolicy
    from niah.run.rundir import read_responses, read_run_json, resolve_run_dataset
    from niah.scoring.judges import Judge
    from niah.scoring.score import score_run
    from niah.scoring.verdicts import (
        STORE_NAME,
        JudgeItem,
        flagged_items,
        judge_items,
        record_pass,
        response_key,
    )

    if protocol not in ("v1", "v2"):
        raise ConfigError(f"--protocol must be v1 or v2, not {protocol!r}")
    run_path = Path(run_dir)
    run = read_run_json(run_path)
    ds = Dataset(resolve_run_dataset(run_path, run, dataset))
    responses = read_responses(run_path / "responses.jsonl")
    items: list[JudgeItem] = []
    for sample in ds:
        if sample.benchmark != BENCHMARK:
            continue
        row = responses.get(sample.id)
        response = row.get("response") if row is not None else None
        if not needs_verdict(sample, response, protocol):
            continue
        if is_mcq(sample):
            items.append(JudgeItem(sample.id, "mcq", _question(sample) + "\n" + options_listing(_options(sample)),
                                   "", response, response_key(row)))
        else:
            gold = sample.answer if isinstance(sample.answer, str) else str(sample.answer)
            items.append(JudgeItem(sample.id, "open", _question(sample), gold, response, response_key(row)))
    summary = JudgeSummary(protocol=protocol, asked={kind: sum(i.kind == kind for i in items)
                                                     for kind in ("mcq", "open")})
    reach = transport or JudgeTransport(tuple(base_urls), api_key_env)
    common: dict[str, Any] = {**reach.judge_kwargs(), "max_parse_attempts": PARSE_ATTEMPTS}
    judges: dict[str, Judge]
    mcq_t, open_t = (V1_MCQ_GUARDED_TEMPLATE, V1_OPEN_GUARDED_TEMPLATE) if guarded else (V1_MCQ_TEMPLATE,
                                                                                      V1_OPEN_TEMPLATE)
    if protocol == "v1":
        judges = {"mcq": Judge(judge_model, template=mcq_t, parser=parse_v1_decision,
                               generation=V1_JUDGE_GENERATION, **common),
                  "open": Judge(judge_model, template=open_t, parser=parse_v1_score,
                                generation=V1_JUDGE_GENERATION, **common)}
    else:
        judges = {"open": Judge(judge_model, template=V2_OPEN_GUARDED_TEMPLATE if guarded else V2_OPEN_TEMPLATE,
                                parser=parse_v2_score,
                                generation=V2_JUDGE_GENERATION,
                                **{**common, **reach.judge_kwargs(RetryPolicy(max_attempts=V2_JUDGE_ATTEMPTS))})}
    summary.templates = [judge.template.name for judge in judges.values()]
    summary.flagged = flagged_items(items)
    stats = judge_items(run_path, items, judges, concurrency=concurrency, retry_failed=retry_failed,
                        progress=progress)
    summary.unparsed, summary.reused, summary.requested = stats.failed, stats.reused, stats.asked
    summary.judgments = run_path / STORE_NAME
    record_pass(run_path, BENCHMARK, judges, {"protocol": protocol, "judge": judge_model,
                                               **({"guarded": True} if guarded else {})})
    scored = score_run(run_path, dataset=dataset)
    summary.scores = scored.scores
    return summary
