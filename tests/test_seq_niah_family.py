"""The Sequential-NIAH family through the CLI: build -> run (baselines) -> score -> report; noise -> run ->
score -> consistency; import/export round trip; judge-test; the metric rule; the LLM judge verb against a local
server; ``niah eval --family seq-niah``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.protocol import OFFICIAL
from niah.benchmarks.seq_niah.cli import judge_run
from niah.benchmarks.seq_niah.score import aggregate, noise_aggregate
from niah.cli import app
from niah.run import RetryPolicy
from niah.sample import Dataset
from niah.scoring.judges import Judge
from support.openai_server import OpenAIServer
from support.scores import official_scores
from support.seq_niah import official_record
from support.tables import without_intervals

runner = CliRunner()
FAST_RETRY = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)


def _cli(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output + repr(res.exception)
    return res.output


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seqfam")
    _cli("build", "seq-niah", "--out", str(root / "ds"), "--lengths", "8k-16k", "--per-cell", "1", "--lang", "en,zh",
         "--no-progress")
    for model in ("oracle", "random"):
        _cli("run", str(root / "ds"), "--model", f"baseline:{model}", "--out", str(root / model), "--no-progress")
        _cli("score", str(root / model))
    return root


def test_build_run_score_report(built: Path) -> None:
    samples = list(Dataset(built / "ds"))
    assert {s.meta["lang"] for s in samples} == {"en", "zh"}
    assert {s.meta["needle_group"] for s in samples} == {"3-5", "6-10", ">10"}
    oracle = official_scores(built / "oracle" / "scores.json")
    assert oracle["accuracy"] == 100.0 and oracle["n"] == 6
    assert oracle["by_lang"] == {"en": {"accuracy": 100.0, "n": 3}, "zh": {"accuracy": 100.0, "n": 3}}
    assert oracle["failure_modes"]["incorrect_samples"] == 0
    random = official_scores(built / "random" / "scores.json")
    assert random["accuracy"] < 50.0
    fm = random["failure_modes"]
    assert fm["incorrect_samples"] == round(6 * (100 - random["accuracy"]) / 100)
    assert sum(fm[m] for m in ("missing", "redundant", "incorrect", "wrong-order", "other")) >= fm["incorrect_samples"]
    rows = [json.loads(line) for line in (built / "random" / "scored.jsonl").read_text().splitlines()]
    assert {r["length_bin"] for r in rows} == {"8k-16k"} and all(8000 <= r["length"] < 16000 for r in rows)
    assert all(r["reason"].split(";")[0] == "+".join(r["failure_modes"]) for r in rows if r["score"] == 0)

    _cli("report", str(built / "oracle"), str(built / "random"), "--out", str(built / "rep"))
    md = without_intervals((built / "rep" / "tables.md").read_text())
    assert "| baseline:oracle | 100.0 | - | - | - | 100.0 |" in md  # overall = share of correct samples
    assert "Published: Sequential-NIAH paper, Figure 4" in md and "| *Gemini-1.5* | - | - | - | - | 63.5 |" in md
    assert "| Model | EN | ZH |" in md and "| baseline:oracle | 100.0 (3) | 100.0 (3) |" in md
    assert "**By needle count**" in md and "**By pipeline**" in md
    assert "Failure modes (Table 8 layout)" in md and "| Gemini-1.5 (paper) | 64.5% (471) |" in md
    assert (built / "rep" / "assets" / "heatmaps" / "1-baseline-oracle" / "synthetic-temporal.png").is_file()
    assert "Failure modes" in (built / "rep" / "index.html").read_text()
    # the paper's rows are from its test split; a generated run is compared with that named (never "None")
    page = (built / "rep" / "index.html").read_text()
    assert "the published rows are from the test split" in page and "None split" not in page


def test_noise_run_score_consistency(built: Path) -> None:
    out = _cli("noise", "seq-niah", str(built / "ds"), "--out", str(built / "nz"), "--variants", "2",
               "--no-progress")
    assert "base: 6, tiny-move: 12, big-move: 12, reorder: 12, semantic: 12" in out
    samples = list(Dataset(built / "nz"))
    bases = {s.id: s for s in samples if s.meta["noise_kind"] == "base"}
    variants = [s for s in samples if s.meta["noise_kind"] != "base"]
    assert len(bases) == 6 and all(v.meta["variant_of"] in bases and v.answer == bases[v.meta["variant_of"]].answer
                                   for v in variants)
    for model in ("oracle", "random"):
        _cli("run", str(built / "nz"), "--model", f"baseline:{model}", "--out", str(built / f"nz-{model}"),
             "--no-progress")
        _cli("score", str(built / f"nz-{model}"))
    noise = official_scores(built / "nz-oracle" / "scores.json")["noise"]
    assert noise["bases"] == 6 and set(noise["kinds"]) == {"tiny-move", "big-move", "reorder", "semantic", "all"}
    assert all(k["consistency"] == 100.0 and k["consistently_correct"] == 100.0 for k in noise["kinds"].values())
    rnd = official_scores(built / "nz-random" / "scores.json")["noise"]["kinds"]["all"]
    assert rnd["consistency"] == pytest.approx(rnd["consistently_correct"] + rnd["consistently_wrong"])
    _cli("report", str(built / "nz-oracle"), "--out", str(built / "nzrep"))
    md = (built / "nzrep" / "tables.md").read_text()
    assert "| baseline:oracle | semantic | 100.0 ± 0.0 | 100.0 | 100.0 | 0.0 | 6 |" in md
    assert "| Gemini-1.5 (paper) | tiny-move | 65.0 ± 2.6 | 56.5 | - | - | 200 |" in md


def _row(sid: str, kind: str, score: float, base: str | None = None) -> tuple[dict, dict]:
    return ({"id": sid, "task": "t", "scores": {OFFICIAL: score}, "noise_kind": kind, "variant_of": base}, {})


def test_noise_aggregate_hand_checked() -> None:
    # a: right on the base and both tiny variants; b: right on the base, wrong on one variant; c: always wrong
    rows = [_row("a", "base", 1), _row("a_1", "tiny-move", 1, "a"), _row("a_2", "tiny-move", 1, "a"),
            _row("b", "base", 1), _row("b_1", "tiny-move", 0, "b"), _row("b_2", "tiny-move", 1, "b"),
            _row("c", "base", 0), _row("c_1", "tiny-move", 0, "c"), _row("c_2", "tiny-move", 0, "c")]
    noise = noise_aggregate(rows, OFFICIAL)
    tiny = noise["kinds"]["tiny-move"]
    assert noise["base_accuracy"] == pytest.approx(66.6667)
    assert tiny["accuracy"] == pytest.approx(50.0)  # rounds: 1/3 and 2/3 -> mean 50
    assert tiny["accuracy_std"] == pytest.approx(100 / 6)
    assert tiny["consistency"] == pytest.approx(200 / 3) and tiny["consistently_correct"] == pytest.approx(100 / 3)
    assert tiny["consistently_wrong"] == pytest.approx(100 / 3)
    assert "noise" not in aggregate([({"id": "x", "task": "t", "scores": {OFFICIAL: 1.0}}, {})], OFFICIAL)


def test_import_export_round_trip(tmp_path: Path) -> None:
    lines = [official_record(1), official_record(2, lang="zh"), official_record(3, noise_type="little_moving")]
    src = tmp_path / "NIAH_fixture.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    _cli("import", "seq-niah", str(src), "--out", str(tmp_path / "ds"))
    _cli("run", str(tmp_path / "ds"), "--model", "baseline:oracle", "--out", str(tmp_path / "run"), "--no-progress")
    _cli("score", str(tmp_path / "run"))
    assert official_scores(tmp_path / "run" / "scores.json")["accuracy"] == 100.0
    out = _cli("export", "seq-niah", str(tmp_path / "run"), "--out", str(tmp_path / "exp"))
    assert "NIAH_en.jsonl (1), NIAH_en_noise.jsonl (1), NIAH_zh.jsonl (1)" in out
    back = [json.loads(line) for name in ("NIAH_en.jsonl", "NIAH_zh.jsonl", "NIAH_en_noise.jsonl")
            for line in (tmp_path / "exp" / name).read_text(encoding="utf-8").splitlines()]
    assert back == lines
    results = [json.loads(line) for name in ("infer_result.jsonl", "infer_noise_result.jsonl")
               for line in (tmp_path / "exp" / name).read_text(encoding="utf-8").splitlines()]
    assert sorted(r["md5"] for r in results) == sorted(r["md5"] for r in lines)
    assert all(set(r) == {"md5", "answer"} for r in results)
    by_md5 = {r["md5"]: r["output"] for r in lines}
    assert all(r["answer"] == by_md5[r["md5"]] for r in results)  # the oracle answered the gold


def test_import_refuses_bad_record(tmp_path: Path) -> None:
    bad = official_record(1)
    del bad["meta_QA"]["question"]
    (tmp_path / "bad.jsonl").write_text(json.dumps(bad) + "\n")
    res = runner.invoke(app, ["import", "seq-niah", str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "ds")])
    assert res.exit_code == 2 and "bad.jsonl:1" in res.output and "meta_QA.question" in res.output
    assert not (tmp_path / "ds").exists()


def test_judge_test_cli_meets_the_target() -> None:
    out = _cli("judge-test", "seq-niah", "--n", "2000")
    total = next(line for line in out.splitlines() if line.startswith("Total/Avg."))
    n, acc = total.split()[-2:]
    assert int(n) == 2000 and float(acc) >= 99.9
    assert "Table 7 layout" in out and "By language: EN" in out
    hand = out.split("Hand-written answers", 1)[1]
    assert "swapped" in hand and "table" in hand and hand.split("Total", 1)[1].split()[1] == "100.0"


def test_metric_rule(tmp_path: Path) -> None:
    q = "List the specific contents of Diary of Ann Lee in order."
    gold = "The specific contents of Diary of Ann Lee are as follows:\n- November 1, 2010：I read book 1.\n" \
           "- November 2, 2010：I read book 2."
    rows = [{"question": q, "answer": gold, "response": "2010-11-01: I read book 1.\n2010-11-02: I read book 2."},
            {"question": q, "answer": gold, "response": "2010-11-02: I read book 2.\n2010-11-01: I read book 1."},
            {"question": q, "answer": gold, "response": "2010-11-01: I read book 1."}]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _cli("metric", "seq-niah/judge", "--input", str(tmp_path / "in.jsonl"), "--out",
               str(tmp_path / "out.jsonl"))
    assert "mean score 0.333333" in out
    got = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [g["score"] for g in got] == [1.0, 0.0, 0.0]
    assert got[1]["failure_modes"] == ["wrong-order"] and got[2]["failure_modes"] == ["missing"]
    assert got[2]["reason"].startswith("missing")


def _section(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def _llm_responder(body: dict) -> str:
    user = body["messages"][-1]["content"]
    if isinstance(user, list):
        user = "".join(p.get("text", "") for p in user)
    if "could not be read" not in user and "Diary" not in user and "日记" not in user and "记事" not in user:
        return "I think it is fine."  # not JSON: the strict parser refuses it and the judge asks again
    gold = _section(user, "must contain):\n", "\n\nRules:")
    response = _section(user, "\n<response-to-check>\n", "\n</response-to-check>")
    if gold == response:
        return '{"verdict": "correct", "failure_modes": [], "reason": "same items"}'
    return '{"verdict": "incorrect", "failure_modes": ["other"], "reason": "different"}'


def test_llm_judge_verb(built: Path) -> None:
    with OpenAIServer(responder=_llm_responder) as srv:
        out = _cli("judge", "seq-niah", str(built / "oracle"), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert "judged 6 samples (0 unparsed; 0 verdicts reused, 6 asked); LLM-judge accuracy 100.0" in out

        def make(ordered: bool) -> Judge:
            from niah.benchmarks.seq_niah.judge import LLM_JUDGE_PROMPT, LLM_JUDGE_SYSTEM, parse_reply
            from niah.scoring.judges import JudgeTemplate

            rule = "in order." if ordered else "any order."
            template = JudgeTemplate(name="t", system=LLM_JUDGE_SYSTEM,
                                     user=LLM_JUDGE_PROMPT.replace("{order_rule}", rule),
                                     reminder="Your previous reply could not be read.")
            return Judge("openai:judge", template=template, parser=parse_reply, base_urls=[srv.base_url],
                         retry=FAST_RETRY)

        result = judge_run(built / "random", make)
        assert result["judged"] == 6 and result["judge_failures"] == 0
        assert official_scores(built / "random" / "scores.llm.json")["accuracy"] == 0.0
    rows = [json.loads(line) for line in (built / "oracle" / "scored.jsonl").read_text().splitlines()]
    assert all(r["scores"]["llm"] == 1.0 and r["scores"][OFFICIAL] == 1.0 for r in rows)
    _cli("report", str(built / "oracle"), str(built / "oracle" / "scores.json"), "--name", "judged",
         "--name", "from-scores", "--out", str(built / "rep-llm"))
    md = without_intervals((built / "rep-llm" / "tables.md").read_text())
    # the LLM judge as a scoring mode; the oracle run named "judged" still says it is a baseline
    assert "| judged (baseline:oracle) | synthetic-temporal | llm | 100.0 | 100.0 | 0 |" in md
    assert "| from-scores | 100.0 | - | - | - | 100.0 |" in md  # read back from scores.json


def _fooled(body: dict) -> str:
    """A gullible judge: an answer that claims to be correct is graded correct (the deterministic judge is not
    fooled, so the two disagree)."""
    return '{"verdict": "correct", "failure_modes": [], "reason": "the answer says so"}'


def test_report_flags_samples_where_the_judges_disagree(built: Path, tmp_path: Path) -> None:
    run = tmp_path / "random-copy"
    _cli("run", str(built / "ds"), "--model", "baseline:random", "--out", str(run), "--no-progress")
    _cli("score", str(run))
    with OpenAIServer(responder=_fooled) as srv:
        _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
    rows = [json.loads(line) for line in (run / "scored.jsonl").read_text().splitlines()]
    flagged = [r for r in rows if r.get("judges_disagree")]
    assert flagged and len(flagged) == sum(r["scores"][OFFICIAL] == 0.0 for r in rows)
    assert flagged[0]["judges_disagree"].startswith("deterministic judge 0, LLM judge 1 (")
    _cli("report", str(run), "--out", str(tmp_path / "rep"))
    assets = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "rep").rglob("*.js"))
    assert f"{len(flagged)} sample(s) where the LLM judge and the rule judge disagree" in assets
    assert "judges disagree: deterministic judge 0, LLM judge 1" in assets


def test_eval_benchmark_seq_niah(tmp_path: Path) -> None:
    out = _cli("eval", "--family", "seq-niah", "--model", "baseline:oracle", "--out", str(tmp_path / "ev"),
               "--no-progress")
    assert "synthetic-temporal" in out
    scores = official_scores(tmp_path / "ev" / "run" / "scores.json")
    assert scores["accuracy"] == 100.0 and scores["n"] == 6
    assert (tmp_path / "ev" / "report" / "index.html").is_file()


def test_noise_on_mm_niah_text_needles(tmp_path: Path) -> None:
    """MM-NIAH text-needle samples record their needles as statements; noise finds each once in the text and
    moves it, and ``niah noise consistency`` reads the verdicts of that family's own scorer."""
    _cli("build", "mm-niah", "--out", str(tmp_path / "mm"), "--tasks", "retrieval-text,counting-text", "--lengths",
         "2k-4k", "--depths", "0.4", "--no-images", "--quiet", "--no-progress")
    _cli("noise", "seq-niah", str(tmp_path / "mm"), "--out", str(tmp_path / "nz"), "--kinds", "tiny-move,big-move",
         "--variants", "2", "--no-progress")
    samples = {s.id: s for s in Dataset(tmp_path / "nz")}
    variants = [s for s in samples.values() if s.meta["noise_kind"] != "base"]
    assert len(variants) == 8 and {s.benchmark for s in samples.values()} == {"mm-niah"}
    for v in variants:
        base = samples[v.meta["variant_of"]]
        text = v.context[0].text
        assert v.answer == base.answer and text != base.context[0].text
        assert all(text.count(n["text"]) == 1 for n in v.meta["needles"])
    _cli("run", str(tmp_path / "nz"), "--model", "baseline:oracle", "--out", str(tmp_path / "run"), "--no-progress")
    _cli("score", str(tmp_path / "run"))
    out = _cli("noise", "consistency", str(tmp_path / "run"))
    assert "base accuracy 100.00 over 2 base samples" in out
    assert _json(tmp_path / "run" / "noise.json")["kinds"]["all"]["consistency"] == 100.0


def test_noise_refuses_samples_without_needle_positions(tmp_path: Path) -> None:
    record = official_record(5)
    test_format = {"md5": record["md5"], "length": record["length"], "question": record["input"],
                   "raw_question": record["meta_QA"]["question"], "ref_answer": record["output"]}
    (tmp_path / "test.jsonl").write_text(json.dumps(test_format) + "\n")
    _cli("import", "seq-niah", str(tmp_path / "test.jsonl"), "--out", str(tmp_path / "ds"))
    res = runner.invoke(app, ["noise", "seq-niah", str(tmp_path / "ds"), "--out", str(tmp_path / "nz")])
    assert res.exit_code == 2 and "samples.jsonl:1" in res.output and "meta.needles" in res.output
    assert not (tmp_path / "nz").exists()


def test_weighted_bins_and_overall_hand_checked() -> None:
    from niah.benchmarks.seq_niah.report import per_bin_weighted
    from niah.report.tables import row_from_bin_scores

    # column 0: 2 samples at 100% and 2 at 50% -> 75%; column 1 is empty
    assert per_bin_weighted([[1.0, 0.0], [0.5, 0.0]], [[2, 0], [2, 0]]) == [0.75, 0.0]
    # one sample right in bin 0, 1 of 3 right in bin 1: 2 of 4 samples -> 50%, not the bins' mean 66.7%
    row = row_from_bin_scores("m", [1.0, 1 / 3], 2, [1, 3], weighted=True)
    assert row.overall == pytest.approx(50.0) and row.filled is None
    assert row_from_bin_scores("m", [1.0, 1 / 3], 2, [1, 3]).overall == pytest.approx(200 / 3)
    assert row_from_bin_scores("m", [1.0, 0.0], 2, [4, 0], weighted=True).overall == pytest.approx(100.0)
