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
    # the earlier scripts called these "tricky questions" (CU_tricky_questions_qa.json)
    Skill("deep_context_understanding", "Deep Context Understanding", "global_contextual", ("open",), ("v1", "v2"),
          ("context_understanding", "cu_tricky_questions", "tricky_questions")),
    Skill("linking_multiple_events", "Linking Multiple Events", "global_vision_text", ("open",), ("v1", "v2"),
          ("linking_events",)),
    Skill("spoiler_questions", "Spoiler Questions", "global_contextual", ("open",), ("v1", "v2"),
          ("movie_spoiler_questions", "movies_spoiler_questions", "spoilers")),
    Skill("summarization", "Summarization", "global_vision_text", ("open",), ("v1", "v2"), ("summary",)),
    Skill("local_visual_questions", "Local Visual + Context", "local", ("mcq",), ("v1",),
          ("local_vision_context", "local_visual_context", "local_questions", "tvqa", "long_tvqa_questions")),
)

_BY_NAME: dict[str, Skill] = {}
for _s in SKILLS:
    for _name in (_s.id, *_s.aliases):
        _BY_NAME[_name] = _s


#: The two video sources of the official scripts. A file name may carry one, before the skill
#: (``movienet_character_actions.json``, the current scripts) or after it (``character_actions_movienet.json``,
#: ``temporal_questions_tvqa.json``, earlier ones), and a format suffix (``_open_ended``, ``_mcq``) before or after
#: the source (``character_actions_movienet_open_ended.json``, the scripts' own ``..._mcq_movienet`` order).
SOURCES: tuple[str, ...] = ("tvqa", "movienet")
_FORMAT_SUFFIXES = ("_open_ended", "_mcq")
#: Words the earlier scripts put after the skill (``global_appreance_benchmark.json``, ``character_actions_qa.json``).
_MARKERS = ("_benchmark", "_qa")

#: The QA file names the official generator scripts write (v1 release), and v2's per-skill names.
OFFICIAL_FILE_NAMES: tuple[str, ...] = (
    "global_appreance.json", "global_appreance_open_ended.json", "scene_transitions.json",
    "scene_transitions_open_ended.json", "tvqa_character_actions.json", "tvqa_character_actions_open_ended.json",
    "movienet_character_actions.json", "movienet_character_actions_open_ended.json", "tvqa_temporal_events.json",
    "movienet_temporal_events.json", "tvqa_deep_context_understanding.json",
    "movienet_deep_context_understanding.json", "tvqa_linking_events.json", "movienet_linking_events.json",
    "spoiler_questions.json", "summarization.json", "long_tvqa_questions.json",
)
#: The QA file names earlier versions of the same generator scripts wrote (the skill first, then the source or
#: a marker), each a record list as the current scripts write.
EARLIER_FILE_NAMES: tuple[str, ...] = (
    "global_appreance_benchmark.json", "global_appreance_benchmark_open_ended.json",
    "scene_transitions_benchmark.json", "scene_transitions_benchmark_open_ended.json", "character_actions_qa.json",
    "character_actions_qa_movienet_mcq.json", "character_actions_movienet_open_ended.json",
    "temporal_questions_tvqa.json", "temporal_questions_movienet.json", "CU_tricky_questions_qa.json",
    "context_understanding_movienet.json", "linking_events_tvqa.json", "linking_events_movienet.json",
)
#: The scraped spoiler questions the official scraping script writes before the generator script turns them
#: into ``spoiler_questions.json`` (an object keyed by movie: container ``by-movie``).
SCRAPED_FILE_NAMES: tuple[str, ...] = ("movies_spoiler_questions.json",)
V2_FILE_NAMES: tuple[str, ...] = (
    "global_appearance.json", "scene_transitions.json", "character_actions.json",
    "choronological_understanding.json", "deep_context_understanding.json", "linking_multiple_events.json",
    "spoiler_questions.json", "summarization.json",
)


def parse_name(name: str) -> tuple[Skill, str | None] | None:
    """(skill, video source or None) of a file stem, skill id or alias, or None when it names no skill. Case
    and separators are ignored; one source (``tvqa_`` / ``movienet_`` before the skill, or ``_tvqa`` /
    ``_movienet`` after it), one format suffix (``_open_ended`` / ``_mcq``) and the earlier scripts' ``_qa`` /
    ``_benchmark`` may surround the skill's name, each at most once."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key in _BY_NAME:
        return _BY_NAME[key], None
    source: str | None = None
    for src in SOURCES:
        if key.startswith(src + "_"):
            source, key = src, key[len(src) + 1:]
            break
    kinds_left = {"format": _FORMAT_SUFFIXES, "marker": _MARKERS,
                  "source": () if source else tuple("_" + src for src in SOURCES)}
    while key not in _BY_NAME:
        for kind, suffixes in kinds_left.items():
            suffix = next((x for x in suffixes if key.endswith(x) and len(key) > len(x)), None)
            if suffix is not None:
                key = key[:-len(suffix)]
                source = suffix[1:] if kind == "source" else source
                del kinds_left[kind]
                break
        else:
            return None
    return _BY_NAME[key], source


def skill_by_name(name: str) -> Skill | None:
    """A skill by id, official file stem or alias (see :func:`parse_name`: a source before or after the skill,
    a format suffix and the earlier ``_qa`` / ``_benchmark`` words are dropped)."""
    parsed = parse_name(name)
    return parsed[0] if parsed is not None else None


def skills_of(version: str) -> list[Skill]:
    return [s for s in SKILLS if version in s.versions]
