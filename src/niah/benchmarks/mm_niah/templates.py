"""Needle templates with slots for retrieval-text and reasoning-text, filled per sample (package data).

A fixed needle pool ties every question to one answer, so a question -> answer table learned from any other
build answers most samples without reading the document. Templates break that tie: a template is a needle (or
three, for reasoning) and a question with ``{slot}`` placeholders, and every sample fills the slots with values
drawn from named value pools (``data/needles/slot_values.json``). The answer is the value of one slot
(``answer``), so the same question text comes with as many answers as the answer slot's pool holds, and the
question itself changes with its other slots (names, places).

Validated when loaded (a bad edit fails loudly, naming file and field):

- every ``{slot}`` used is declared and every declared slot is used; each slot names a pool; slots drawing from
  one pool get distinct values (so a pool must hold at least as many values as slots use it);
- the answer slot stands in the needle text(s) and never in the question;
- every answer pool holds at least ``MIN_ANSWERS`` values, so no question fixes its answer (a model that
  guesses from the pool hits at most one time in ``MIN_ANSWERS``);
- pool values are unique (after the official scorer's normalization), non-empty after it (the oracle reply,
  the gold itself, must score), free of braces, and no value is a whole-word part of another value of its pool
  (otherwise a gold could be matched by a reply naming another value).

Per sample (:func:`fill`), a draw whose answer also appears, as whole words, in the question or in another slot
value is drawn again; whether the answer also occurs in the haystack is checked by the builder after assembly
(:func:`mentions`), which then draws the sample again.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from niah.benchmarks.mm_niah.needles import read_data_json
from niah.english import format_with_articles
from niah.errors import DataError
from niah.metrics.vqa import has_word, normalize_vqa

#: Fewest values an answer pool may hold (a guess from the pool scores at most 1 / MIN_ANSWERS).
MIN_ANSWERS = 30
#: The slot whose value is the answer.
ANSWER_SLOT = "answer"
#: Kinds of reasoning templates (each needs all three statements to reach the answer).
REASONING_KINDS: tuple[str, ...] = ("family", "spatial", "logic", "comparison")

_FILES = {"values": "slot_values.json", "retrieval": "retrieval_templates.json",
          "reasoning": "reasoning_templates.json"}
_FILL_TRIES = 200


@dataclass(frozen=True)
class Template:
    """Needle statements and a question with ``{slot}`` placeholders; ``slots`` maps each slot to its pool.

    ``choices`` (reasoning only) lists the slots whose values are the four options of the multiple-choice form;
    None: the options are the answer and three other values of the answer's pool.
    """

    id: str
    kind: str
    needles: tuple[str, ...]
    question: str
    slots: tuple[tuple[str, str], ...]
    choices: tuple[str, ...] | None = None

    @property
    def answer_pool(self) -> str:
        return dict(self.slots)[ANSWER_SLOT]


@dataclass(frozen=True)
class Filled:
    """One template filled for one sample: needle texts, question, the answer and the slot values."""

    template: Template
    needles: tuple[str, ...]
    question: str
    answer: str
    values: dict[str, str]


def _slot_names(text: str) -> list[str]:
    return [name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None]


def _norm(text: str) -> str:
    return normalize_vqa(text)


def contains(text: str, value: str) -> bool:
    """``value`` occurs in ``text`` as whole words after the official open-ended normalization (what the scorer
    would match if ``text`` were the reply)."""
    gold = _norm(value)
    return bool(gold) and has_word(_norm(text), gold)


def mentions(text: str, value: str) -> bool:
    """Fast whole-word, case-blind search of ``value`` in a long ``text`` (a haystack), words separated by any
    run of non-word characters (the normalization turns punctuation into spaces)."""
    words = re.findall(r"\w+", value)
    if not words:
        return False
    pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


# --------------------------------------------------------------------------------------------- loading


def _read(key: str) -> tuple[str, dict[str, Any]]:
    display, doc = read_data_json(_FILES[key], "needle template")
    if not isinstance(doc, dict):
        raise DataError("expected a JSON object", file=display)
    return display, doc


def parse_pools(file: str, doc: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Validate the value pools (``{"pools": {name: [values]}}``)."""
    raw = doc.get("pools")
    if not isinstance(raw, dict) or not raw:
        raise DataError("expected a non-empty 'pools' object", file=file, field="pools")
    pools: dict[str, tuple[str, ...]] = {}
    for name, values in raw.items():
        where = f"pools.{name}"
        if not isinstance(values, list) or not values:
            raise DataError("a pool must be a non-empty list of strings", file=file, field=where)
        seen: dict[str, str] = {}
        for value in values:
            if not isinstance(value, str) or not value.strip() or value != value.strip():
                raise DataError(f"bad value {value!r}: a non-empty string without outer spaces", file=file,
                                field=where)
            if "{" in value or "}" in value:
                raise DataError(f"value {value!r} holds a brace", file=file, field=where)
            norm = _norm(value)
            if not norm:
                raise DataError(f"value {value!r} is empty after the official normalization, so no reply "
                                "could match it", file=file, field=where)
            if norm in seen:
                raise DataError(f"values {seen[norm]!r} and {value!r} are the same answer", file=file, field=where)
            seen[norm] = value
        for na, a in seen.items():
            for nb, b in seen.items():
                if a != b and has_word(nb, na):
                    raise DataError(f"value {a!r} is part of {b!r}: a reply naming one would match the other",
                                    file=file, field=where)
        pools[name] = tuple(values)
    return pools


def parse_templates(file: str, doc: dict[str, Any], pools: dict[str, tuple[str, ...]], *,
                    statements: int) -> tuple[Template, ...]:
    """Validate templates with ``statements`` needle texts each (1: retrieval, 3: reasoning)."""
    items = doc.get("items")
    if not isinstance(items, list) or not items:
        raise DataError("expected a non-empty 'items' list", file=file, field="items")
    out: list[Template] = []
    ids: set[str] = set()
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise DataError(f"item {index} is not an object", file=file, field="items")
        tid = item.get("id")
        if not isinstance(tid, str) or not tid or tid in ids:
            raise DataError(f"item {index}: a unique non-empty id is required", file=file, field="id")
        ids.add(tid)
        kind = item.get("kind", "fact")
        if statements == 3 and kind not in REASONING_KINDS:
            raise DataError(f"{tid}: unknown kind {kind!r}; expected one of {REASONING_KINDS}", file=file,
                            field="kind")
        raw_needles = item.get("needles") if statements == 3 else [item.get("needle")]
        if (not isinstance(raw_needles, list) or len(raw_needles) != statements
                or not all(isinstance(s, str) and s.strip() for s in raw_needles)
                or len(set(raw_needles)) != statements):
            raise DataError(f"{tid}: needs {statements} distinct non-empty needle text(s)", file=file,
                            field="needles" if statements == 3 else "needle")
        question = item.get("question")
        if not isinstance(question, str) or not question.strip():
            raise DataError(f"{tid}: a non-empty question is required", file=file, field="question")
        slots = item.get("slots")
        if not isinstance(slots, dict) or ANSWER_SLOT not in slots:
            raise DataError(f"{tid}: 'slots' must map slot names to pools and include {ANSWER_SLOT!r}",
                            file=file, field="slots")
        for slot, pool in slots.items():
            if pool not in pools:
                raise DataError(f"{tid}: slot {slot!r} names unknown pool {pool!r}", file=file, field="slots")
        try:
            used_needles = {n for s in raw_needles for n in _slot_names(s)}
            used_question = set(_slot_names(question))
        except ValueError as exc:
            raise DataError(f"{tid}: bad placeholder: {exc}", file=file, field="needles") from None
        used = used_needles | used_question
        if used != set(slots):
            raise DataError(f"{tid}: slots used {sorted(used)} differ from slots declared {sorted(slots)}",
                            file=file, field="slots")
        if ANSWER_SLOT not in used_needles:
            raise DataError(f"{tid}: the answer slot must stand in a needle", file=file, field="needles")
        if ANSWER_SLOT in used_question:
            raise DataError(f"{tid}: the question must not show the answer slot", file=file, field="question")
        per_pool: dict[str, int] = {}
        for pool in slots.values():
            per_pool[pool] = per_pool.get(pool, 0) + 1
        for pool, n in per_pool.items():
            if len(pools[pool]) < n + (3 if pool == slots[ANSWER_SLOT] else 0):
                raise DataError(f"{tid}: pool {pool!r} is too small for its slots", file=file, field="slots")
        if len(pools[slots[ANSWER_SLOT]]) < MIN_ANSWERS:
            raise DataError(f"{tid}: answer pool {slots[ANSWER_SLOT]!r} holds {len(pools[slots[ANSWER_SLOT]])} "
                            f"values; at least {MIN_ANSWERS} keep a question from fixing its answer", file=file,
                            field="slots")
        choices = item.get("choices")
        if choices is not None:
            if (not isinstance(choices, list) or len(choices) != 4 or len(set(choices)) != 4
                    or ANSWER_SLOT not in choices or not all(c in slots for c in choices)):
                raise DataError(f"{tid}: choices must list four distinct declared slots, the answer among them",
                                file=file, field="choices")
            choices = tuple(choices)
        out.append(Template(tid, str(kind), tuple(raw_needles), question,
                            tuple(sorted(slots.items())), choices))
    return tuple(out)


@lru_cache(maxsize=1)
def load_pools() -> dict[str, tuple[str, ...]]:
    return parse_pools(*_read("values"))


@lru_cache(maxsize=1)
def load_retrieval_templates() -> tuple[Template, ...]:
    """Retrieval-text templates: one needle fact, its question, the answer slot in the fact."""
    return parse_templates(*_read("retrieval"), load_pools(), statements=1)


@lru_cache(maxsize=1)
def load_reasoning_templates() -> tuple[Template, ...]:
    """Reasoning-text templates: three statements that must all be combined, and the question."""
    return parse_templates(*_read("reasoning"), load_pools(), statements=3)


# --------------------------------------------------------------------------------------------- filling


def fill(template: Template, rng: random.Random, pools: dict[str, tuple[str, ...]] | None = None) -> Filled:
    """The template with every slot drawn (slots of one pool get distinct values), such that the answer is
    named neither by the question nor by another slot's value."""
    pools = load_pools() if pools is None else pools
    by_pool: dict[str, list[str]] = {}
    for slot, pool in template.slots:
        by_pool.setdefault(pool, []).append(slot)
    for _ in range(_FILL_TRIES):
        values: dict[str, str] = {}
        for pool, slots in by_pool.items():
            for slot, value in zip(slots, rng.sample(pools[pool], len(slots)), strict=True):
                values[slot] = value
        answer = values[ANSWER_SLOT]
        question = format_with_articles(template.question, values)
        if contains(question, answer) or any(contains(v, answer) or contains(answer, v)
                                             for s, v in values.items() if s != ANSWER_SLOT):
            continue
        needles = tuple(format_with_articles(n, values) for n in template.needles)
        return Filled(template, needles, question, answer, values)
    raise DataError(f"{template.id}: no draw keeps the answer out of the question", field="slots")


def choice_values(filled: Filled, rng: random.Random, pools: dict[str, tuple[str, ...]] | None = None,
                  answer_for: Callable[[int], int] | None = None) -> tuple[list[str], int]:
    """Four options in a random order and the answer's index: the template's ``choices`` slots, or else the
    answer and three other values of its pool that the needles and the question do not name. ``answer_for``
    (the option count -> the answer's index; a build deals it from a balanced deck) places the answer, else it
    lands at random."""
    pools = load_pools() if pools is None else pools
    if filled.template.choices is not None:
        options = [filled.values[s] for s in filled.template.choices]
    else:
        text = " ".join(filled.needles) + " " + filled.question
        others = [v for v in pools[filled.template.answer_pool]
                  if v != filled.answer and not contains(text, v) and not contains(v, filled.answer)]
        options = [filled.answer, *rng.sample(others, 3)]
    rng.shuffle(options)
    if answer_for is not None:
        at = answer_for(len(options))
        options.remove(filled.answer)
        options.insert(at, filled.answer)
    return options, options.index(filled.answer)
