"""InfiniBench QA files in every record shape and under every file name the official generator scripts (and v2)
write, with our own content: tiny episodes and movies, frame folders (TVQA at 3 fps), SRT files (one movie's
subtitles run past its video's end, as MovieNet's do).

Each file is written the way its script writes it (``json.dump(..., indent=4)``, scene transitions on one
line, v2 with ``indent=2`` and unescaped non-ASCII text), so a round trip through import and export can be
compared byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from support.infinibench_fixtures import IDK, SRT
from support.videos import barcode_video

MCQ = "Choose the correct option for the following question: "
EPISODE = "bbt/season_1/episode_1"  # a TVQA episode: 6 s, frames at 3 fps
MOVIE = "tt0000001"  # a MovieNet movie: 6 s, frames at 1 fps, a subtitle cue at 8 s
V2_EPISODE = "TV_shows/videos/castle/season_1/episode_2"
V2_SUBS = "TV_shows/subtitles/castle/season_1/episode_2.srt"

SRT_PAST_END = SRT + """
4
00:00:08,000 --> 00:00:09,000
A line from the longer cut.
"""


def write_media(root: Path) -> None:
    for stem, fps, srt in ((EPISODE, 3, SRT), (MOVIE, 1, SRT_PAST_END), (V2_EPISODE, None, SRT)):
        target = root / stem
        target.parent.mkdir(parents=True, exist_ok=True)
        barcode_video(target.with_suffix(".mp4"), seconds=6, fps=4, keyframe_interval=1, width=160, height=120)
        if fps is not None:
            target.mkdir(exist_ok=True)
            for i in range(6 * fps):
                Image.new("RGB", (16, 12), (10 * i, 0, 0)).save(target / f"{i + 1}.jpg")
            target.with_suffix(".srt").write_text(srt, encoding="utf-8")
    (root / V2_SUBS).parent.mkdir(parents=True, exist_ok=True)
    (root / V2_SUBS).write_text(SRT, encoding="utf-8")


def _tv(video_key: str = "video_path_mp4", *, subs_slash: bool = True) -> dict[str, Any]:
    out = {video_key: f"/{EPISODE}.mp4", "video_path_frames": f"/{EPISODE}",
           "video_subtitles": f"{'/' if subs_slash else ''}{EPISODE}.srt"}
    return out


def _movie(video_key: str = "video_path_mp4", *, subtitles: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {video_key: f"/{MOVIE}.mp4", "video_path_frames": f"/{MOVIE}"}
    if subtitles:
        out["video_subtitles"] = f"/{MOVIE}.srt"
    return out


EPI = {"show": "bbt", "season": "season_1", "episode": "episode_1"}
OUTFITS = [["grey hoodie", "blue suit"], ["blue suit", "grey hoodie"], ["pink pajamas", "red dress", "black coat"],
           ["green jersey", "khaki pants"], ["navy shorts", "white tank top", "gown"]]
PLACES = [["apartment", "stairwell", "comic book store"], ["stairwell", "apartment", "comic book store"],
          ["comic book store", "apartment", "stairwell"], ["pottery class", "farmers' market"],
          ["planetarium", "arcade"]]
ACTIONS = [["knocks on the door", "sits down", "orders food"], ["sits down", "knocks on the door", "orders food"],
           ["reads a novel", "jogs on a trail"], ["plays the piano", "walks the dogs"]]
EVENTS = [["the dinner", "the argument", "the apology"], ["the argument", "the dinner", "the apology"],
          ["a yoga class", "a guided tour"], ["a cooking class", "a dance class"]]


def _with_idk(options: list[Any], at: int) -> list[Any]:
    return [*options[:at], IDK, *options[at:]]


def _yes_no(a: str, b: str, answer: int, **video: Any) -> dict[str, Any]:
    return {"question": f"Did the event '{a}' happen before the event '{b}'?", **EPI, **video,
            "answer_idx": answer, "options": ["Yes", "No"]}


FILES: dict[str, Any] = {
    # shape 6: ordering options (lists of strings) with the literal "I don't know"; extra fields kept
    "global_appreance.json": [
        {"answer_idx": 1, "options": _with_idk(OUTFITS, 3), "question": MCQ + "What does Leonard wear, in order?",
         **EPI, "source": "tvqa", "character": "Leonard", **_tv()},
    ],
    "scene_transitions.json": [  # written on one line, as its script does
        {"answer_idx": 0, "options": _with_idk(PLACES, 5), "question": MCQ + "Where does the episode go?",
         **EPI, "source": "tvqa", **_tv()},
    ],
    # shape 3: open-ended, video_path_mp4 (open-ended files of MCQ-scored skills included)
    "global_appreance_open_ended.json": [
        {"question": "What does Leonard wear, in order?", **EPI, "source": "tvqa", "character": "Leonard",
         "answer": "First the appearance is blue suit then grey hoodie", **_tv()},
    ],
    "scene_transitions_open_ended.json": [
        {"question": "Where does the episode go?", "answer": "apartment then stairwell then comic book store",
         **EPI, "source": "tvqa", **_tv()},
    ],
    # shape 7: character actions, ordering options, video_path and subtitles without the leading "/"
    "tvqa_character_actions.json": [
        {"answer_idx": 2, "options": _with_idk(ACTIONS, 1), "question": MCQ + "What does Penny do, in order?",
         **{"season": "season_1", "episode": "episode_1", "show": "bbt"}, **_tv("video_path", subs_slash=False)},
    ],
    "movienet_character_actions.json": [
        {"answer_idx": 0, "options": _with_idk(ACTIONS, 4), "question": MCQ + "What does the hero do, in order?",
         **_movie("video_path", subtitles=False)},
    ],
    # shape 4: open-ended with video_path
    "tvqa_character_actions_open_ended.json": [
        {"question": "What does Penny do, in order?", "answer": "knocks on the door then, sits down then, orders food",
         "season": "season_1", "episode": "episode_1", "show": "bbt", **_tv("video_path", subs_slash=False)},
    ],
    "movienet_character_actions_open_ended.json": [
        {"question": "What does the hero do, in order?", "answer": "reads a novel then, jogs on a trail",
         **_movie("video_path", subtitles=False)},
    ],
    # shapes 2 and 8: Yes/No items and event orderings (the first ordering item has only the mp4)
    "tvqa_temporal_events.json": [
        {"answer_idx": 3, "options": _with_idk(EVENTS, 2), "question": MCQ + "What is the order of events?",
         "season": "season_1", "episode": "episode_1", "show": "bbt", "video_path_mp4": f"/{EPISODE}.mp4"},
        _yes_no("the dinner", "the argument", 0, video_path_mp4=f"/{EPISODE}.mp4",
                video_path_frames=f"/{EPISODE}", video_subtitles=f"{EPISODE}.srt"),
        {"answer_idx": 0, "options": _with_idk(EVENTS, 4),
         "question": MCQ + "Given these events ['the argument', 'the dinner', 'the apology'], what is the order?",
         "season": "season_1", "episode": "episode_1", "show": "bbt", **_tv(subs_slash=False)},
    ],
    "movienet_temporal_events.json": [
        {"answer_idx": 1, "options": _with_idk(EVENTS, 0), "question": MCQ + "What is the order of events?",
         **_movie(subtitles=False)},
        {"question": "Did the event 'the dinner' happen after the event 'the apology'?",
         **_movie(subtitles=False), "answer_idx": 1, "options": ["Yes", "No"]},
    ],
    # shape 5: the GPT-4 output records (Q, A, episode_neme) with paths added
    "tvqa_deep_context_understanding.json": [
        {"Q": "Why does Sheldon refuse to go?", "A": "He dislikes changes to his schedule.",
         "episode_neme": "bbt_season_01_episode_01", **EPI, **_tv()},
    ],
    "movienet_deep_context_understanding.json": [
        {"question": "What motivates the final decision?", **_movie(),
         "answer": "Friendship outweighs his routine."},
    ],
    "tvqa_linking_events.json": [
        {"question": "How does the dinner lead to the apology?", "answer": "The argument at dinner forces it.",
         "season": "season_1", "episode": "episode_1", "show": "bbt", **_tv("video_path", subs_slash=False)},
    ],
    "movienet_linking_events.json": [
        {"question": "How does the opening scene connect to the ending?", **_movie(),
         "answer": "The letter read at the start is answered at the end."},
    ],
    "spoiler_questions.json": [
        {"question": "Who wins the race?", **_movie(), "answer": "The underdog."},
    ],
    "summarization.json": [
        {"question": "Summarize the episode.", **_tv(), "answer": "Friends visit a store and then a cafeteria."},
        {"question": "Summarize the movie.", **_movie(), "answer": "A hero finds a letter and answers it."},
    ],
    # shape 1: plain string options (local questions: five, no "I don't know")
    "long_tvqa_questions.json": [
        {"question": "Who knocks on the door?", "video_path_mp4": f"/{EPISODE}.mp4",
         "video_path_frames": f"/{EPISODE}", "video_subtitles": f"/{EPISODE}.srt", "answer_idx": 2,
         "options": ["Sheldon", "Leonard", "Penny", "Howard", "Raj"]},
    ],
}

# shape 9: v2, an object keyed by question id; skill_name names the skill; options as a list or as its text
V2_BY_ID: dict[str, Any] = {
    "q-0001": {"question_id": "q-0001", "skill_name": "choronological_understanding", "split": "dev",
               "question": MCQ + "Did the café scene come first?", "options": ["Yes", "No"], "answer_idx": "0",
               "video_path_mp4": V2_EPISODE + ".mp4", "video_subtitles": V2_SUBS},
    "q-0002": {"question_id": "q-0002", "skill_name": "global_appearance", "split": "dev",
               "question": MCQ + "What does Beckett wear, in order?",
               "options": str([["black coat", "grey scarf"], "I don't know", ["grey scarf", "black coat"]]),
               "answer_idx": 0, "video_path_mp4": V2_EPISODE + ".mp4", "video_subtitles": V2_SUBS},
    "q-0003": {"question_id": "q-0003", "skill_name": "summarization", "split": "dev",
               "question": "Summarize the episode.", "answer": "Castle and Beckett solve a café murder.",
               "video_path_mp4": V2_EPISODE + ".mp4", "video_subtitles": V2_SUBS},
}
# v2, an object keyed by skill name holding record lists
V2_BY_SKILL: dict[str, Any] = {
    "spoiler_questions": [{"question": "Who is the killer?", "answer": "The neighbour.",
                           "video_path_mp4": V2_EPISODE + ".mp4", "video_subtitles": V2_SUBS}],
    "scene_transitions": [{"question": MCQ + "Where does the episode go?", "options": [
        ["precinct", "morgue"], ["morgue", "precinct"], IDK], "answer_idx": 1,
        "video_path_mp4": V2_EPISODE + ".mp4", "video_subtitles": V2_SUBS}],
}

#: The record shapes, each with a file that holds it (for measuring which load).
SHAPES: dict[str, str] = {
    "string options": "long_tvqa_questions.json",
    "yes/no": "movienet_temporal_events.json",
    "open-ended, video_path_mp4": "spoiler_questions.json",
    "open-ended, video_path": "tvqa_linking_events.json",
    "open-ended, Q/A": "tvqa_deep_context_understanding.json",
    "ordering options: outfits / places": "global_appreance.json",
    "ordering options: character actions": "tvqa_character_actions.json",
    "ordering options: temporal events": "tvqa_temporal_events.json",
    "v2 object by question id": "v2_by_id.json",
}


def write_files(qa: Path) -> list[Path]:
    qa.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, records in FILES.items():
        indent = None if name == "scene_transitions.json" else 4
        (qa / name).write_text(json.dumps(records, indent=indent), encoding="utf-8")
        paths.append(qa / name)
    v2 = qa / "v2"
    v2.mkdir(exist_ok=True)
    (v2 / "v2_by_id.json").write_text(json.dumps(V2_BY_ID, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (v2 / "v2_by_skill.json").write_text(json.dumps(V2_BY_SKILL, indent=4), encoding="utf-8")
    return paths
