"""InfiniBench-shaped fixtures written from the spec: tiny generated episodes, SRT files, QA files per skill.

Field variants are mixed on purpose: ``video_path_mp4`` + ``video_path_frames`` in some files, ``video_path``
in others, ``answer_idx`` as an int or a digit string, leading "/" on paths as in the official files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from PIL import Image

from support.videos import barcode_video

IDK = "I don't know"
EPISODE = "/bbt/season_1/episode_1"
MOVIE = "/movies/tt0000001"

SRT = """1
00:00:00,500 --> 00:00:01,500
Where are we going tonight?

2
00:00:02,000 --> 00:00:03,000
To the comic book store.

3
00:00:04,200 --> 00:00:05,500
Then the cafeteria, I suppose.
"""


def write_videos(root: Path) -> None:
    for stem in (EPISODE, MOVIE):
        target = root / stem.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        barcode_video(target.with_suffix(".mp4"), seconds=6, fps=8, keyframe_interval=1, width=320, height=240)
        target.with_suffix(".srt").write_text(SRT, encoding="utf-8")
    frames = root / EPISODE.lstrip("/") / "frames"
    frames.mkdir(parents=True)
    for i in range(6):  # one frame a second, names that sort wrongly as plain strings
        Image.new("RGB", (32, 24), (40 * i, 0, 0)).save(frames / f"frame_{i * 5}.jpg")


def _mcq(question: str, options: list[str], answer_idx: int | str, video: str, *, variant: str = "mp4") -> dict:
    rec: dict = {"question": "Choose the correct option for the following question: " + question,
                 "options": options, "answer_idx": answer_idx, "show": "bbt", "season": "season_1",
                 "episode": "episode_1", "video_subtitles": video + ".srt"}
    if variant == "mp4":
        rec["video_path_mp4"] = video + ".mp4"
        rec["video_path_frames"] = video + "/frames"
    else:
        rec["video_path"] = video + ".mp4"
    return rec


def _open(question: str, answer: str, video: str) -> dict:
    return {"question": question, "answer": answer, "video_path_mp4": video + ".mp4",
            "video_subtitles": video + ".srt"}


OUTFITS = ["red t-shirt, grey jacket", "grey jacket, red t-shirt", "green hoodie, black vest", IDK]
PLACES = ["apartment, store", "store, apartment", "store, cafeteria", "cafeteria, store", IDK]

QA: dict[str, list[dict]] = {
    "global_appearance": [
        _mcq("In what order does Leonard change outfits in this episode?", OUTFITS, 1, EPISODE),
        _mcq("In what order does Sheldon change outfits in this episode?", OUTFITS, 0, EPISODE),
    ],
    "scene_transitions": [
        _mcq("What is the correct sequence of scene transitions?", PLACES, 2, EPISODE, variant="path"),
        _mcq("Which locations appear, in order, after the opening?", PLACES, 3, EPISODE, variant="path"),
    ],
    "choronological_understanding": [
        _mcq("Did the visit to the store happen before the dinner?", ["Yes", "No", IDK], "1", EPISODE),
        _mcq("Did the argument happen before the store?", ["Yes", "No", IDK], 0, EPISODE),
    ],
    "local_visual_questions": [
        _mcq("Who knocks on the door?", ["Sheldon", "Leonard", "Penny", "Howard", "Raj"], 2, EPISODE),
        _mcq("What is on the table?", ["a laptop", "a pizza", "a book", "a lamp", "a chessboard"], 4, EPISODE),
    ],
    "character_actions": [
        _mcq("What does Penny do, in order?", ["knocks, enters", "enters, knocks", "leaves, knocks", IDK], 0,
             EPISODE),
        _open("Describe what Penny does after she enters.", "She sits down and asks for food.", EPISODE),
    ],
    "deep_context_understanding": [
        _open("Why does Sheldon refuse to go?", "He dislikes changes to his schedule.", EPISODE),
        _open("What motivates the final decision?", "Friendship outweighs his routine.", MOVIE),
    ],
    "summarization": [
        _open("Summarize the movie.", "Friends visit a store and then a cafeteria.", MOVIE),
    ],
}


def write_qa_files(root: Path, skills: list[str] | None = None) -> list[Path]:
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for skill, records in QA.items():
        if skills is not None and skill not in skills:
            continue
        p = root / f"{skill}.json"
        p.write_text(json.dumps(records, indent=1), encoding="utf-8")
        paths.append(p)
    return paths


def judge_reply(body: dict) -> str:
    """A stand-in InfiniBench judge: v1 MCQ decisions name option 2; open-ended replies are scored by whether
    the prediction equals the gold (v2's JSON reply, v1's Python-dict reply)."""
    user = body["messages"][-1]["content"]
    if "'decision'" in user:
        return "{'decision': 2}"
    gold = re.search(r"Correct answer: (.*)", user).group(1)  # type: ignore[union-attr]
    prediction = re.search(r"Predicted answer: (.*)", user).group(1)  # type: ignore[union-attr]
    same = gold.strip() == prediction.strip()
    if '"justification"' in user:
        return json.dumps({"score": 10 if same else 3, "justification": "compared"})
    return "{'score': 5}" if same else "{'score': 1.9}"


def cli_ok(*args: str) -> str:
    """``support.cli.invoke_ok`` where a judge pass may also end with 3 (its gullible or guarded replies do not
    all parse: failed verdicts are stored)."""
    from support.cli import invoke_ok

    return invoke_ok(list(args), (0, 3) if args[0] == "judge" else (0,))

def run_replying(tmp_path: Path, reply: str) -> Path:
    """An InfiniBench run over the fixture QA files (videos in ``tmp_path/videos``) whose every reply is
    ``reply``: what a judge test feeds its judge."""
    write_videos(tmp_path / "videos")
    write_qa_files(tmp_path / "qa")
    cli_ok("import", "infinibench", str(tmp_path / "qa"), "--media-root", str(tmp_path / "videos"), "--out",
           str(tmp_path / "ds"))
    run = tmp_path / "run"
    cli_ok("run", str(tmp_path / "ds"), "--model", "baseline:random", "--out", str(run), "--no-progress",
           "--media-root", str(tmp_path / "videos"), "--max-frames", "1")
    rows = [json.loads(line) for line in (run / "responses.jsonl").read_text().splitlines()]
    for row in rows:
        row["response"] = reply
    (run / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run
