"""InfiniBench skills (v1: nine, v2: eight), their official file names, and the paper's four question types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Version = Literal["v1", "v2"]
VERSIONS: tuple[str, ...] = ("v1", "v2")
QuestionType = Literal["global_visual", "global_contextual", "global_vision_text", "local"]

#: The four high-level types of the paper (Section 3.2, Table 3), in the paper's order.
QUESTION_TYPES: dict[str, str] = {
    "global_visual": "Global visual",
    "global_contextual": "Global contextual",
    "global_vision_text": "Global vision + text",
    "local": "Local vision + context",
}


@dataclass(frozen=True, slots=True)
class Skill:
    id: str
    title: str
    qtype: str  # a QUESTION_TYPES key
    formats: tuple[str, ...]  # "mcq", "open": the question formats its files may hold
    versions: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    #: the formats the paper averages (Table 2): open-ended character actions, global appearance and scene
    #: transitions files exist (the generator scripts write them) but are reported apart, not averaged.
    scored: tuple[str, ...] = ("mcq", "open")

    def counts(self, fmt: str) -> bool:
        """Whether this skill's ``fmt`` items enter the per-type and overall averages."""
        return fmt in self.scored


SKILLS: tuple[Skill, ...] = (
    Skill("global_appearance", "Global Appearance", "global_visual", ("mcq", "open"), ("v1", "v2"),
          ("global_apperance", "global_apprerance", "global_appreance", "outfits"), scored=("mcq",)),
    Skill("scene_transitions", "Scene Transitions", "global_visual", ("mcq", "open"), ("v1", "v2"),
          ("scene_transition",), scored=("mcq",)),
    Skill("character_actions", "Character Actions", "global_vision_text", ("mcq", "open"), ("v1", "v2"),
          ("sequence_of_character_actions",), scored=("mcq",)),
    # v2's file name keeps the official spelling "choronological"; v1 called the skill temporal questions.
    Skill("chronological_understanding", "Temporal / Chronological Understanding", "global_vision_text", ("mcq",),
          ("v1", "v2"), ("choronological_understanding", "temporal_questions", "temporal_events",
                         "temporal_order_of_events", "temporal")),
    Skill("deep_context_understanding", "Deep Context Understanding", "global_contextual", ("open",), ("v1", "v2"),
          ("context_understanding",)),
    Skill("linking_multiple_events", "Linking Multiple Events", "global_vision_text", ("open",), ("v1", "v2"),
          ("linking_events",)),
    Skill("spoiler_questions", "Spoiler Questions", "global_contextual", ("open",), ("v1", "v2"),
          ("movie_spoiler_questions", "spoilers")),
    Skill("summarization", "Summarization", "global_vision_text", ("open",), ("v1", "v2"), ("summary",)),
    Skill("local_visual_questions", "Local Visual + Context", "local", ("mcq",), ("v1",),
          ("local_vision_context", "local_visual_context", "local_questions", "tvqa", "long_tvqa_questions")),
)

_BY_NAME: dict[str, Skill] = {}
for _s in SKILLS:
    for _name in (_s.id, *_s.aliases):
        _BY_NAME[_name] = _s


#: Source prefixes and format suffixes of the official generator scripts' file names
#: (``tvqa_character_actions_open_ended.json``, ``movienet_temporal_events.json``, ...).
_PREFIXES = ("tvqa_", "movienet_")
_SUFFIXES = ("_open_ended", "_mcq")

#: The QA file names the official generator scripts write (v1 release), and v2's per-skill names.
OFFICIAL_FILE_NAMES: tuple[str, ...] = (
    "global_appreance.json", "global_appreance_open_ended.json", "scene_transitions.json",
    "scene_transitions_open_ended.json", "tvqa_character_actions.json", "tvqa_character_actions_open_ended.json",
    "movienet_character_actions.json", "movienet_character_actions_open_ended.json", "tvqa_temporal_events.json",
    "movienet_temporal_events.json", "tvqa_deep_context_understanding.json",
    "movienet_deep_context_understanding.json", "tvqa_linking_events.json", "movienet_linking_events.json",
    "spoiler_questions.json", "summarization.json", "long_tvqa_questions.json",
)
V2_FILE_NAMES: tuple[str, ...] = (
    "global_appearance.json", "scene_transitions.json", "character_actions.json",
    "choronological_understanding.json", "deep_context_understanding.json", "linking_multiple_events.json",
    "spoiler_questions.json", "summarization.json",
)


def skill_by_name(name: str) -> Skill | None:
    """A skill by id, official file stem or alias (case and separators ignored; the generator scripts'
    ``tvqa_`` / ``movienet_`` prefixes and ``_open_ended`` / ``_mcq`` suffixes are dropped)."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key in _BY_NAME:
        return _BY_NAME[key]
    for prefix in _PREFIXES:
        key = key.removeprefix(prefix)
    for suffix in _SUFFIXES:
        key = key.removesuffix(suffix)
    return _BY_NAME.get(key)


def skills_of(version: str) -> list[Skill]:
    return [s for s in SKILLS if version in s.versions]
