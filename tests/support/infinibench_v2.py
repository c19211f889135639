"""InfiniBench v2 QA files under each of v2's per-skill file names (``skills.V2_FILE_NAMES``), with our own
content, in each container v2 files are read in:

- ``by-id``: an object keyed by question id, each record naming its skill in ``skill_name`` and carrying
  ``question_id`` and ``split`` (written with ``indent=2``, non-ASCII text unescaped, a final newline);
- ``by-skill``: an object keyed by the skill's file stem holding a record list (``indent=4``);
- ``list``: a plain record list whose file name alone tells the skill (``indent=4``, no final newline).

An MCQ skill's file holds ordering options (lists of strings beside "I don't know", ``answer_idx`` an int),
plain options written as the text of a Python list (``answer_idx`` a digit string) and, for the temporal skill,
a Yes/No item; an open-ended skill's file holds question/answer records. Records use the videos of
``support.infinibench_official.write_media`` (an episode, and a movie for spoilers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from niah.benchmarks.infinibench.skills import V2_FILE_NAMES, Skill, skill_by_name
from support.infinibench_fixtures import IDK
from support.infinibench_official import MCQ, MOVIE, V2_EPISODE, V2_SUBS

CONTAINERS = ("by-id", "by-skill", "list")

#: Per skill: (ordering options, the correct ordering's index) for its ordering question, and plain options with
#: the correct one's index for its second question. Skills not listed (a v2 name added later) get GENERIC.
_MCQ_CONTENT: dict[str, tuple[str, list[list[str]], int, str, list[str], int]] = {
    "global_appearance": ("What does Beckett wear, in order?",
                          [["black coat", "grey scarf"], ["grey scarf", "black coat"], ["red dress", "café apron"]],
                          1, "What colour is Castle's first shirt?", ["white", "blue", "green", IDK], 1),
    "scene_transitions": ("Where does the episode go, in order?",
                          [["precinct", "morgue", "loft"], ["loft", "precinct", "morgue"], ["morgue", "loft"]],
                          0, "Where does the episode end?", ["the loft", "the morgue", "a café", IDK], 0),
    "character_actions": ("What does Esposito do, in order?",
                          [["opens the file", "calls Ryan"], ["calls Ryan", "opens the file"],
                           ["drives away", "reads a note"]], 2,
                          "What does Ryan do after the call?", ["runs", "sits down", "leaves the precinct", IDK], 2),
    "chronological_understanding": ("What is the order of events?",
                                    [["the alibi", "the arrest", "the confession"],
                                     ["the arrest", "the alibi", "the confession"], ["the confession", "the alibi"]],
                                    0, "Which event comes last?", ["the alibi", "the arrest", "the confession", IDK],
                                    2),
}
_OPEN_CONTENT: dict[str, tuple[str, str, str, str]] = {
    "deep_context_understanding": ("Why does Beckett distrust the witness?", "Her story changes twice.",
                                   "What drives Castle to stay on the case?", "He owes the victim a favour."),
    "linking_multiple_events": ("How does the café receipt lead to the arrest?", "It breaks the suspect's alibi.",
                                "How is the opening call tied to the ending?", "The caller is the killer."),
    "spoiler_questions": ("Who is behind the letters?", "The hero's brother.",
                          "Why does the hero leave town?", "To protect his family."),
    "summarization": ("Summarize the episode.", "Castle and Beckett solve a murder at a café.",
                      "Summarize the episode in one sentence.", "A receipt breaks an alibi."),
}
GENERIC_MCQ = ("What happens first, in order?", [["a knock", "a call"], ["a call", "a knock"]], 0,
               "Who speaks first?", ["Castle", "Beckett", IDK], 1)
GENERIC_OPEN = ("What happens in the episode?", "A case is solved.", "Who solves it?", "Beckett.")


def skill_of_name(name: str) -> Skill:
    found = skill_by_name(name.removesuffix(".json"))
    assert found is not None, f"{name}: the file-name table names no skill"
    return found


def format_of(skill: Skill) -> str:
    """The format a v2 file of this skill holds: MCQ where the skill is scored by MCQ, else open-ended."""
    return "mcq" if "mcq" in skill.formats and skill.counts("mcq") else "open"


def _video(skill: Skill) -> dict[str, Any]:
    if skill.id == "spoiler_questions":  # spoilers are asked about movies
        return {"video_path_mp4": f"/{MOVIE}.mp4", "video_subtitles": f"/{MOVIE}.srt"}
    return {"video_path_mp4": V2_EPISODE + ".mp4", "video_subtitles": V2_SUBS}


def records_for(name: str) -> list[dict[str, Any]]:
    """The records a v2 file of this name holds (without the by-id container's own fields)."""
    skill = skill_of_name(name)
    video = _video(skill)
    show = {"show": "castle", "season": "season_1", "episode": "episode_2"}
    if format_of(skill) == "mcq":
        order_q, orderings, order_answer, plain_q, plain, plain_answer = _MCQ_CONTENT.get(skill.id, GENERIC_MCQ)
        records: list[dict[str, Any]] = [
            {"question": MCQ + order_q, "options": [*orderings, IDK], "answer_idx": order_answer, **video, **show},
            {"question": MCQ + plain_q, "options": str(plain), "answer_idx": str(plain_answer), **video},
        ]
        if skill.id == "chronological_understanding":
            records.append({"question": MCQ + "Did the arrest happen before the confession?", **video,
                            "answer_idx": 0, "options": ["Yes", "No"]})
        return records
    q1, a1, q2, a2 = _OPEN_CONTENT.get(skill.id, GENERIC_OPEN)
    return [{"question": q1, "answer": a1, **video, **show}, {"question": q2, **video, "answer": a2}]


def v2_text(name: str, container: str) -> str:
    """The file's text, written as the container's files are."""
    stem = name.removesuffix(".json")
    records = records_for(name)
    if container == "by-id":
        doc = {f"{stem[:4]}-{k:04d}": {"question_id": f"{stem[:4]}-{k:04d}", "skill_name": stem, "split": "test",
                                        **rec} for k, rec in enumerate(records, 1)}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if container == "by-skill":
        return json.dumps({stem: records}, indent=4)
    return json.dumps(records, indent=4)


def write_v2_files(qa: Path, container: str) -> list[Path]:
    """Every v2 file name in one container's shape, in the folder ``qa``."""
    qa.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in V2_FILE_NAMES:
        path = qa / name
        path.write_text(v2_text(name, container), encoding="utf-8")
        paths.append(path)
    return paths
