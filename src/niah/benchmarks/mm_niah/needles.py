"""MM-NIAH text needle pools (retrieval, counting, reasoning), shipped as package data.

The builder takes its counting statements from here; retrieval-text and reasoning-text are built from the
templates of :mod:`niah.benchmarks.mm_niah.templates` (answers drawn per sample), and the fixed retrieval and
reasoning pools below are kept loadable for callers that want them.

The official release never published its needles, so niah ships its own, written by hand in
``niah/benchmarks/mm_niah/data/needles/*.json``. This module loads them into frozen dataclasses and validates every entry at
load time, so that a bad edit to the JSON fails loudly (naming file and field) instead of producing
unanswerable samples:

- retrieval: the answer must occur in the needle as whole words after the same kind of normalisation the
  official open-ended scorer applies (case, punctuation, number words, articles), and must not occur in
  the question (otherwise the model could copy it without finding the needle);
- counting: the template must contain exactly one ``{n}`` and render for every n in ``COUNT_RANGE``;
- reasoning: exactly three distinct statements; with choices, four distinct options and an in-range int
  answer; without, a non-empty str answer that the question does not contain (the open-ended scorer
  matches whole words anywhere in the response, so an echoed question must not score).

Whether each triple really needs all three statements was checked by hand when it was written (each
statement is a link on the only path from the question to the answer; comparison triples name all four
candidates and are multiple choice, since otherwise the statement at the far end of the chain would not
be needed). That property cannot be checked mechanically here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from niah.util.errors import DataError

#: Smallest and largest count a counting statement may carry (inclusive).
COUNT_RANGE: tuple[int, int] = (1, 10)
#: Smallest and largest number of cartoons pasted into one counting-image document image (inclusive); each
#: image's count is uniform on this range, so no constant count beats a blind guess.
IMAGE_COUNT_RANGE: tuple[int, int] = (0, 3)

#: Inference types used by the reasoning pool (``ReasoningTriple.kind``).
REASONING_KINDS: tuple[str, ...] = ("comparison", "family", "spatial", "arithmetic", "schedule", "logic")

#: The package the needle pools ship in (as package data), and their folder inside it.
_DATA_PACKAGE = "niah.benchmarks.mm_niah"
_DATA_PARTS = ("data", "needles")


@dataclass(frozen=True)
class RetrievalNeedle:
    """One retrieval-text needle: a random fact, a question that asks for it, and the short answer."""

    id: str
    needle: str
    question: str
    answer: str


@dataclass(frozen=True)
class CountingVariant:
    """One wording of the counting-text statement ("The little penguin counted {n} needles.").

    ``template_one`` is the grammatical singular form used when n == 1; both contain one ``{n}``.
    """

    id: str
    template: str
    template_one: str
    question: str

    def render(self, n: int) -> str:
        """The statement for count ``n`` (digits), refusing counts outside ``COUNT_RANGE``."""
        low, high = COUNT_RANGE
        if isinstance(n, bool) or not isinstance(n, int) or not low <= n <= high:
            raise ValueError(f"count must be an int in {low}..{high}, got {n!r}")
        return (self.template_one if n == 1 else self.template).format(n=n)


@dataclass(frozen=True)
class ReasoningTriple:
    """Three statements that must all be combined to answer ``question``.

    ``answer`` is the open-ended short answer (str) when ``choices`` is None, else the 0-based index (int)
    of the correct option in ``choices``.
    """

    id: str
    kind: str
    needles: tuple[str, str, str]
    question: str
    choices: tuple[str, ...] | None
    answer: str | int

    @property
    def answer_text(self) -> str:
        """The correct answer as text, whichever form ``answer`` takes (for open-ended use of any triple)."""
        if isinstance(self.answer, int):
            assert self.choices is not None
            return self.choices[self.answer]
        return self.answer


# --------------------------------------------------------------------------------------------- validation

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
    "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
    "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
    "seventy": "70", "eighty": "80", "ninety": "90",
}
_ARTICLES = {"a", "an", "the"}


def _loose_words(text: str) -> list[str]:
    """Words as the official open-ended scorer roughly sees them: lowercase, no punctuation, number words
    as digits, no articles. Good enough to check that an answer is stated verbatim by its needle."""
    words = re.sub(r"[^\w\s]", " ", text.lower()).split()
    return [_NUMBER_WORDS.get(w, w) for w in words if w not in _ARTICLES]


def _contains_words(haystack: str, phrase: str) -> bool:
    """True if the word sequence of ``phrase`` occurs contiguously in ``haystack`` (whole words only)."""
    hay, needle = _loose_words(haystack), _loose_words(phrase)
    if not needle:
        return False
    return any(hay[i:i + len(needle)] == needle for i in range(len(hay) - len(needle) + 1))


def read_data_json(filename: str, what: str) -> tuple[str, Any]:
    """Load a JSON file of the family's needle data (``what`` names it in errors); returns (display path,
    document). Shared by the needle pools here and the slot templates (``templates.py``)."""
    resource = resources.files(_DATA_PACKAGE).joinpath(*_DATA_PARTS, filename)
    display = "/".join((*_DATA_PACKAGE.split("."), *_DATA_PARTS, filename))
    try:
        return display, json.loads(resource.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(f"{what} file is missing from the package", file=display) from exc
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=display, line=exc.lineno) from exc


def _read_items(filename: str) -> tuple[str, list[dict[str, Any]]]:
    """Load ``{"items": [...]}`` from the package data file; returns (display path, items)."""
    display, doc = read_data_json(filename, "needle pool")
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataError("expected an object with a non-empty 'items' list", file=display, field="items")
    return display, items


def _text(item: dict[str, Any], key: str, file: str, index: int) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"item {index} ({item.get('id')!r}) needs a non-empty string", file=file, field=key)
    return value


def _check_unique_ids(ids: list[str], file: str) -> None:
    seen: set[str] = set()
    for item_id in ids:
        if item_id in seen:
            raise DataError(f"duplicate id {item_id!r}", file=file, field="id")
        seen.add(item_id)


# ------------------------------------------------------------------------------------------------ loaders


@lru_cache(maxsize=1)
def load_retrieval_needles() -> tuple[RetrievalNeedle, ...]:
    """All retrieval-text needles, validated (answer stated by the needle, absent from the question)."""
    return parse_retrieval_needles(*_read_items("retrieval.json"))


def parse_retrieval_needles(file: str, items: list[dict[str, Any]]) -> tuple[RetrievalNeedle, ...]:
    """Validate raw retrieval items (``file`` only names the source in errors)."""
    needles: list[RetrievalNeedle] = []
    for index, item in enumerate(items):
        needle = RetrievalNeedle(
            id=_text(item, "id", file, index),
            needle=_text(item, "needle", file, index),
            question=_text(item, "question", file, index),
            answer=_text(item, "answer", file, index),
        )
        if not _contains_words(needle.needle, needle.answer):
            raise DataError(f"{needle.id}: answer {needle.answer!r} is not stated in the needle as whole words",
                            file=file, field="answer")
        if _contains_words(needle.question, needle.answer):
            raise DataError(f"{needle.id}: the question gives the answer {needle.answer!r} away",
                            file=file, field="question")
        needles.append(needle)
    _check_unique_ids([n.id for n in needles], file)
    answers = [" ".join(_loose_words(n.answer)) for n in needles]
    if len(set(answers)) != len(answers):
        raise DataError("two retrieval needles share an answer; answers must tell needles apart",
                        file=file, field="answer")
    return tuple(needles)


@lru_cache(maxsize=1)
def load_counting_variants() -> tuple[CountingVariant, ...]:
    """All counting-text statement variants, validated (one ``{n}`` each, render for every allowed n)."""
    return parse_counting_variants(*_read_items("counting.json"))


def parse_counting_variants(file: str, items: list[dict[str, Any]]) -> tuple[CountingVariant, ...]:
    """Validate raw counting items (``file`` only names the source in errors)."""
    variants: list[CountingVariant] = []
    for index, item in enumerate(items):
        variant = CountingVariant(
            id=_text(item, "id", file, index),
            template=_text(item, "template", file, index),
            template_one=_text(item, "template_one", file, index),
            question=_text(item, "question", file, index),
        )
        for key in ("template", "template_one"):
            template = getattr(variant, key)
            if template.count("{n}") != 1 or template.replace("{n}", "").count("{") != 0:
                raise DataError(f"{variant.id}: template must contain exactly one '{{n}}' and no other braces",
                                file=file, field=key)
        low, high = COUNT_RANGE
        for n in range(low, high + 1):
            if str(n) not in variant.render(n).split():
                raise DataError(f"{variant.id}: rendering n={n} does not show it as a word",
                                file=file, field="template")
        variants.append(variant)
    _check_unique_ids([v.id for v in variants], file)
    return tuple(variants)


@lru_cache(maxsize=1)
def load_reasoning_triples() -> tuple[ReasoningTriple, ...]:
    """All reasoning-text triples, validated (three distinct statements, well-formed choices/answer)."""
    return parse_reasoning_triples(*_read_items("reasoning.json"))


def parse_reasoning_triples(file: str, items: list[dict[str, Any]]) -> tuple[ReasoningTriple, ...]:
    """Validate raw reasoning items (``file`` only names the source in errors)."""
    triples: list[ReasoningTriple] = []
    for index, item in enumerate(items):
        item_id = _text(item, "id", file, index)
        kind = _text(item, "kind", file, index)
        if kind not in REASONING_KINDS:
            raise DataError(f"{item_id}: unknown kind {kind!r}; expected one of {REASONING_KINDS}",
                            file=file, field="kind")
        raw_needles = item.get("needles")
        if (not isinstance(raw_needles, list) or len(raw_needles) != 3
                or not all(isinstance(s, str) and s.strip() for s in raw_needles)
                or len(set(raw_needles)) != 3):
            raise DataError(f"{item_id}: needles must be three distinct non-empty strings",
                            file=file, field="needles")
        raw_choices = item.get("choices")
        answer = item.get("answer")
        choices: tuple[str, ...] | None
        question = _text(item, "question", file, index)
        if raw_choices is None:
            choices = None
            if not isinstance(answer, str) or not answer.strip():
                raise DataError(f"{item_id}: an open-ended triple needs a non-empty string answer",
                                file=file, field="answer")
            if _contains_words(question, answer):
                raise DataError(f"{item_id}: the question contains the open-ended answer {answer!r}, so an "
                                "echo of the question would score as correct", file=file, field="question")
        else:
            if (not isinstance(raw_choices, list) or len(raw_choices) != 4
                    or not all(isinstance(c, str) and c.strip() for c in raw_choices)
                    or len({c.strip().lower() for c in raw_choices}) != 4):
                raise DataError(f"{item_id}: choices must be four distinct non-empty strings",
                                file=file, field="choices")
            choices = tuple(raw_choices)
            if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(choices):
                raise DataError(f"{item_id}: a multiple-choice answer must be an option index 0..3",
                                file=file, field="answer")
        triples.append(ReasoningTriple(
            id=item_id,
            kind=kind,
            needles=(raw_needles[0], raw_needles[1], raw_needles[2]),
            question=question,
            choices=choices,
            answer=answer,
        ))
    _check_unique_ids([t.id for t in triples], file)
    return tuple(triples)


@lru_cache(maxsize=1)
def open_ended_triples() -> tuple[ReasoningTriple, ...]:
    """The triples usable with an open-ended answer (the paper's reasoning-text format): every open-ended
    triple, and the multiple-choice ones whose correct option is not named by the question itself (a
    comparison question lists its candidates, so echoing it would score under whole-word matching)."""
    return tuple(t for t in load_reasoning_triples()
                 if t.choices is None or not _contains_words(t.question, t.answer_text))
