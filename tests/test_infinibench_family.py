"""InfiniBench as a family, end to end through the CLI on spec-shaped fixtures (tiny generated episodes, SRT):
import (read in place, needs --media-root), run with the baselines (frames sampled, subtitles per frame), score
with rules only (undecided reported), judge under v1 and v2 with a local judge server, report with the paper's
rows, and the metric rule."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from support.cli import invoke_ok as _ok
from support.infinibench_fixtures import QA, judge_reply, write_qa_files, write_videos
from support.openai_server import OpenAIServer
from support.scores import official_scores

runner = CliRunner()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ibf")
    write_videos(root / "videos")
    write_qa_files(root / "qa")
    out = _ok(["import", "infinibench", str(root / "qa"), "--media-root", str(root / "videos"), "--out",
               str(root / "ds")])
    assert f"pass --media-root {(root / 'videos').resolve()}" in out
    return root


def _run(root: Path, model: str, name: str, *extra: str) -> Path:
    _ok(["run", str(root / "ds"), "--model", model, "--out", str(root / name), "--no-progress",
         "--media-root", str(root / "videos"), "--max-frames", "3", *extra])
    return root / name


def test_import_needs_media_root_and_runs_with_frames_and_subtitles(imported: Path) -> None:
    root = imported
    refused = runner.invoke(app, ["run", str(root / "ds"), "--model", "baseline:oracle", "--out",
                                  str(root / "refused"), "--no-progress"])
    assert refused.exit_code != 0 and "--media-root" in refused.output + str(refused.exception)
    run = _run(root, "baseline:oracle", "oracle")
    rows = [json.loads(line) for line in (run / "responses.jsonl").read_text().splitlines()]
    assert len(rows) == sum(len(v) for v in QA.values()) and all(r["status"] == "ok" for r in rows)
    assert all(r["prompt_policy"] == "video: 3 frames sampled uniformly, at most 3, subtitles per frame"
               for r in rows)
    dry = _ok(["run", str(root / "ds"), "--model", "baseline:oracle", "--out", str(root / "dry"), "--dry-run",
               "--show-prompts", "--media-root", str(root / "videos"), "--max-frames", "3", "--limit", "1"])
    assert "[1.0s] Where are we going tonight?" in dry and "\nA. knocks, enters\nB. enters, knocks" in dry
    assert "Answer with the letter of the correct option only." in dry

    out = _ok(["score", str(run)])
    scores = official_scores(run / "scores.json")
    assert scores["protocol"] == "rules" and scores["undecided"] == {"mcq": 0, "open": 4}
    assert scores["overall"]["accuracy"] == 100.0 and scores["overall"]["score"] is None
    assert scores["skills"]["global_appearance"]["mcq"]["accuracy"] == 100.0
    assert scores["skills"]["summarization"]["open"]["excluded"] == 1
    assert "scored 13 samples" in out
    # every counted MCQ item right: the interval is the Wilson interval of a perfect run, not 100.0-100.0
    # (the open-ended items waiting for a judge are outside the headline and do not make the outcomes differ)
    top = json.loads((run / "scores.json").read_text())
    from niah.scoring.stats import wilson_interval

    # the Wilson interval of the 9 counted MCQ items all right, through the mean over skills (which read a
    # share of an item as that share, not as wrong: the interval was 0.0-100.0)
    assert top["overall"] == 100.0 and top["ci95"] == [round(wilson_interval(1.0, 9)[0] * 100, 4), 100.0]
    assert top["ci_method"] == "wilson"
    assert all(entry["ci95"][0] < 100.0 for key, entry in top["by_task"].items() if entry["score"] == 100.0)
    scored = [json.loads(line) for line in (run / "scored.jsonl").read_text().splitlines()]
    assert {r["num_images"] for r in scored} == {0}  # a video and its subtitles are not images of the document
    # open-ended replies wait for a judge: a placeholder 0 no aggregate counts, shown as unscored, not wrong
    waiting = [r for r in scored if r["format"] == "open" and r["response"] is not None]
    assert waiting and all(r["unscored"].startswith("open-ended: not judged yet") for r in waiting)
    assert not any("unscored" in r for r in scored if r["format"] == "mcq")
    from niah.report.inputs import iter_scored_rows
    from niah.report.samples import status_of
    statuses = {row.id: status_of(row) for row in iter_scored_rows(run / "scored.jsonl")}
    assert all(statuses[r["id"]] == "unscored" for r in waiting)


def test_judge_v1_and_v2_only_for_what_rules_leave_undecided(imported: Path) -> None:
    root = imported
    run = _run(root, "baseline:random", "random")
    _ok(["score", str(run)])
    rules = official_scores(run / "scores.json")
    undecided_mcq = rules["undecided"]["mcq"]
    # the headline is MCQ accuracy: its n (and interval) count the MCQ items, not the open-ended ones beside them
    shared = json.loads((run / "scores.json").read_text())
    mcq_items = sum(entry["mcq"]["counted"] for entry in rules["skills"].values() if entry["mcq"] is not None)
    assert shared["n"] == mcq_items and shared["n"] < len((root / "ds" / "samples.jsonl").read_text().splitlines())
    # the interval holds the figure inside it: a skill's MCQ and open-ended items are redrawn apart (an open
    # item drawn into an MCQ item's place dropped the skill from the mean: 20.0 in [20.0, 25.0])
    assert 0 < shared["overall"] < 100 and shared["ci95"][0] < shared["overall"] < shared["ci95"][1]
    with OpenAIServer(responder=judge_reply) as srv:
        out = _ok(["judge", "infinibench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                   "--protocol", "v1"])
        v1_requests = len(srv.log)
    assert undecided_mcq == 0  # the random baseline answers with a letter: every MCQ reply decided by rule
    assert "judged 0 MCQ and 4 open-ended" in out and v1_requests == 4
    v1 = official_scores(run / "scores.json")
    assert v1["protocol"] == "v1" and v1["judge"] == "openai:judge" and v1["undecided"] == {"mcq": 0, "open": 0}
    # random replies are letters, never the gold text: every open-ended score is int(1.9) = 1
    assert v1["skills"]["deep_context_understanding"]["open"]["score"] == 1.0
    assert v1["overall"]["score"] == 1.0
    verdicts = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
    assert {v["kind"] for v in verdicts} == {"open"} and all(v["score"] == 1.0 for v in verdicts)

    bodies: list[dict] = []

    def v2_judge(body: dict) -> str:
        bodies.append(body)
        return judge_reply(body)

    with OpenAIServer(responder=v2_judge) as srv:
        _ok(["judge", "infinibench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
             "--protocol", "v2"])
    # the official v2 request: JSON response mode, temperature 0.1, 500 tokens
    assert bodies and all(b.get("response_format") == {"type": "json_object"} and b.get("temperature") == 0.1
                          and b.get("max_tokens") == 500 for b in bodies)
    v2 = official_scores(run / "scores.json")
    assert v2["protocol"] == "v2" and v2["score_scale"] == 10 and v2["overall"]["score"] == 3.0
    # MCQ accuracy is the rules' under both protocols here (no undecided reply), never mixed with scores
    assert v2["overall"]["accuracy"] == rules["overall"]["accuracy"] == v1["overall"]["accuracy"]
    rows = [json.loads(line) for line in (run / "scored.jsonl").read_text().splitlines()]
    assert {r["open_skill"] for r in rows if r["format"] == "open"} == {
        "character_actions", "deep_context_understanding", "summarization"}
    assert all(r["score"] == pytest.approx(0.3) for r in rows if r["format"] == "open")


def test_undecided_mcq_goes_to_the_v1_judge(imported: Path, tmp_path: Path) -> None:
    root = imported
    run = _run(root, "baseline:oracle", "oracle-judged")
    # Make two MCQ replies undecided for the rules: "A or B", and a reply naming nothing.
    lines = (run / "responses.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows:
        if row["id"] == "global_appearance/00000":
            row["response"] = "A or B"
        if row["id"] == "scene_transitions/00001":
            row["response"] = "no idea"
    (run / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    _ok(["score", str(run)])
    rules = official_scores(run / "scores.json")
    assert rules["undecided"]["mcq"] == 2 and rules["skills"]["global_appearance"]["mcq"]["accuracy"] == 50.0
    with OpenAIServer(responder=judge_reply) as srv:
        out = _ok(["judge", "infinibench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url])
    assert "judged 2 MCQ and 4 open-ended" in out
    v1 = official_scores(run / "scores.json")
    # the judge says option 2: wrong for global_appearance/00000 (answer 1), wrong for scene_transitions/00001
    # (answer 3); the oracle's open-ended replies are the gold text: 5 each
    assert v1["skills"]["global_appearance"]["mcq"]["accuracy"] == 50.0
    assert v1["skills"]["scene_transitions"]["mcq"]["accuracy"] == 50.0
    assert v1["overall"]["score"] == 5.0 and v1["decided_by"]["judge"] == 6

    _ok(["report", str(run), "--out", str(tmp_path / "rep"), "--media-root", str(root / "videos")])
    md = (tmp_path / "rep" / "tables.md").read_text()
    assert "| Model | MCQ accuracy | Overall |" in md
    assert "*GPT-4o* | 46.8 | 46.8 |" in md  # the paper's global appearance row beside ours
    assert "*GPT-4o* | 49.2 | 49.2 |" in md  # and its AVG accuracy beside our overall
    assert "Open-ended score by skill (% of the judge scale)" in md
    assert "| baseline:oracle | 100.0 (1) | 100.0 (2) | 100.0 (1) |" in md


def test_mcq_match_metric_rule(tmp_path: Path) -> None:
    opts = ["knocks, enters", "enters, knocks", "I don't know"]
    rows = [{"options": opts, "response": "(b)", "answer": 1},
            {"options": opts, "response": "A or B", "answer": 0},
            {"options": opts, "response": "The answer is enters, knocks.", "answer": 0},
            {"options": opts, "response": "I'm not sure"}]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _ok(["metric", "infinibench/mcq-match", "--input", str(tmp_path / "in.jsonl"), "--out",
               str(tmp_path / "out.jsonl")])
    assert "mean score 0.500000" in out
    scored = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(r["choice"], r["rule"], r["score"]) for r in scored] == [
        (1, "letter", 1.0), (None, "ambiguous", 0.0), (1, "mention", 0.0), (2, "idk", 1.0)]
    (tmp_path / "bad.jsonl").write_text(json.dumps({"options": "A,B", "response": "A"}) + "\n")
    res = runner.invoke(app, ["metric", "infinibench/mcq-match", "--input", str(tmp_path / "bad.jsonl"),
                              "--out", str(tmp_path / "o.jsonl")])
    assert res.exit_code != 0 and "options" in res.output + str(res.exception)
    assert ast.literal_eval("{'decision': 2}") == {"decision": 2}


def test_sample_browser_shows_video_file_frames(imported: Path, tmp_path: Path) -> None:
    root = imported
    run = _run(root, "baseline:oracle", "oracle-browser")
    _ok(["score", str(run)])
    _ok(["report", str(run), "--out", str(tmp_path / "rep"), "--media-root", str(root / "videos")])
    chunk = (tmp_path / "rep" / "assets" / "samples" / "1-baseline-oracle" / "chunk-00000.js").read_text()
    records = json.loads(chunk[chunk.index(",") + 1:chunk.rindex(");")])
    (video,) = [seg[1] for seg in records[0]["context"] if seg[0] == "v"]
    assert video["name"] == "episode_1.mp4" and len(video["thumbs"]) == 8
    assert [t["t"] for t in video["thumbs"]] == [0.375 + 0.75 * i for i in range(8)]  # 6 s at 8 fps
    assert all((tmp_path / "rep" / t["src"]).is_file() for t in video["thumbs"])
