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
- every answer slot draws from a generated pool (an open vocabulary, below), so no question fixes its answer
  and no list of values covers the answers; every closed pool holds four draws of each template's slots (the
  sample's and its decoys');
- pool values are unique (after the official scorer's normalization), non-empty after it (the oracle reply,
  the gold itself, must score), free of braces, and no value is a whole-word part of another value of its pool
  (otherwise a gold could be matched by a reply naming another value).

Per sample (:func:`fill`), a draw whose answer also appears, as whole words, in the question or in another slot
value is drawn again; whether the answer also occurs in the haystack is checked by the builder after assembly
(:func:`mentions`), which then draws the sample again.

**Open vocabularies.** A closed pool of 30-50 answers let a reply that lists the pool's most frequent values
score without reading anything (10-20 within 16 new tokens, 100 with no cap, which the official rule allows).
Every answer slot therefore draws from a *generated* pool (``"generated"`` in ``slot_values.json``): a made-up,
pronounceable word of 2-3 syllables (:func:`made_up_word`: 1,344 syllables, so 1.8 million two-syllable
words and 2.4 billion of three), alone (names, pet names, code words), before a suffix (streets, tunes) or before
a value of the closed pool of the same name (``"Velkor saffron"``, ``"the Drissa bell tower"``). No list a reply
can hold covers more than a vanishing share, and two values of one sample never share a made-up word.
:func:`value_kind` and :func:`find_values` recognise the generated values in a text (for audits and benches).

**Decoys** (reasoning): :func:`decoys` restates statements of the sample's own template with fresh values
(other people, places and things), so that the answer is not the one value of its type mentioned once among the
needles; only the chain the question names leads to it.
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
from niah.build.english import format_with_articles
from niah.scoring.metrics.vqa import ARTICLES, CONTRACTIONS, NUMBER_WORDS, has_word, normalize_vqa
from niah.util.errors import DataError

#: The slot whose value is the answer.
ANSWER_SLOT = "answer"
#: Kinds of reasoning templates (each needs all three statements to reach the answer).
REASONING_KINDS: tuple[str, ...] = ("family", "spatial", "logic", "comparison")

_FILES = {"values": "slot_values.json", "retrieval": "retrieval_templates.json",
          "reasoning": "reasoning_templates.json"}
_FILL_TRIES = 200
#: Forms of generated pools (see the module docstring).
FORMS: tuple[str, ...] = ("name", "word", "phrase")

# The syllables of made-up words (onset, vowel, coda): pronounceable, and each word is tokenised into a few
# ordinary pieces. The empty coda is listed three times so that most syllables are open (short, easy names).
_ONSETS = ("b", "br", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "r", "s", "sh", "t", "th", "tr",
           "v", "w", "y", "z", "c")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou")
_CODAS = ("", "", "", "n", "r", "l", "s", "m", "nd")


def _alternation(parts: tuple[str, ...]) -> str:
    return "|".join(sorted({re.escape(p) for p in parts if p}, key=lambda p: (-len(p), p)))


_SYLLABLE = f"(?:{_alternation(_ONSETS)})(?:{_alternation(_VOWELS)})(?:{_alternation(_CODAS)})?"
#: A made-up word as :func:`made_up_word` spells it (case-blind): 2 or 3 syllables.
MADE_UP_WORD = re.compile(rf"(?:{_SYLLABLE}){{2,3}}", re.IGNORECASE)


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
    #: the needle statements that may be restated with fresh values as decoys (reasoning; see :func:`decoys`)
    decoy_frames: tuple[int, ...] = ()

    @property
    def answer_pool(self) -> str:
        return dict(self.slots)[ANSWER_SLOT]


@dataclass(frozen=True)
class Generated:
    """How a generated pool makes a value: ``form`` (``name``, ``word``, ``phrase``); ``suffixes`` (a name form:
    one of them follows the made-up word); ``heads`` (the phrase form: the closed pool's values)."""

    pool: str
    form: str
    suffixes: tuple[str, ...] = ()
    heads: tuple[str, ...] = ()


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


@lru_cache(maxsize=1 << 16)
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


def parse_generated(file: str, doc: dict[str, Any], pools: dict[str, tuple[str, ...]]) -> dict[str, Generated]:
    """Validate the generated pools (``{"generated": {name: {"form": ..., "suffixes": [...]}}}``): a phrase's
    heads are the closed pool of the same name; a generated pool is never also a closed one otherwise."""
    raw = doc.get("generated", {})
    if not isinstance(raw, dict):
        raise DataError("'generated' must map pool names to their form", file=file, field="generated")
    out: dict[str, Generated] = {}
    for name, spec in raw.items():
        where = f"generated.{name}"
        form = spec.get("form") if isinstance(spec, dict) else None
        if form not in FORMS:
            raise DataError(f"form must be one of {FORMS}, got {form!r}", file=file, field=where)
        suffixes = spec.get("suffixes", [])
        if (not isinstance(suffixes, list) or not all(isinstance(x, str) and x.strip() == x and x for x in suffixes)
                or (suffixes and form != "name")):
            raise DataError("suffixes: a list of words, for the name form only", file=file, field=where)
        heads: tuple[str, ...] = ()
        if form == "phrase":
            if name not in pools:
                raise DataError(f"a phrase pool takes its heads from the closed pool {name!r}, which is missing",
                                file=file, field=where)
            heads = pools[name]
        elif name in pools:
            raise DataError(f"{name!r} is both a closed and a generated pool", file=file, field=where)
        out[name] = Generated(name, str(form), tuple(suffixes), heads)
    return out


def parse_templates(file: str, doc: dict[str, Any], pools: dict[str, tuple[str, ...]], *,
                    statements: int, generated: dict[str, Generated] | None = None) -> tuple[Template, ...]:
    """Validate templates with ``statements`` needle texts each (1: retrieval, 3: reasoning)."""
    generated = {} if generated is None else generated
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
            if pool not in pools and pool not in generated:
                raise DataError(f"{tid}: slot {slot!r} names unknown pool {pool!r}", file=file, field="slots")
        if slots[ANSWER_SLOT] not in generated:
            raise DataError(f"{tid}: the answer slot must draw from a generated pool (a closed list of answers "
                            "can be listed in a reply)", file=file, field="slots")
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
            # a decoy restates statements with fresh values: a closed pool must hold four draws of its slots
            if pool not in generated and len(pools[pool]) < 4 * n:
                raise DataError(f"{tid}: pool {pool!r} is too small for its slots and their decoys", file=file,
                                field="slots")
        choices = item.get("choices")
        if choices is not None:
            if (not isinstance(choices, list) or len(choices) != 4 or len(set(choices)) != 4
                    or ANSWER_SLOT not in choices or not all(c in slots for c in choices)):
                raise DataError(f"{tid}: choices must list four distinct declared slots, the answer among them",
                                file=file, field="choices")
            choices = tuple(choices)
        frames = item.get("decoy_frames", list(range(statements)))
        if (not isinstance(frames, list) or not frames or len(set(frames)) != len(frames)
                or not all(isinstance(f, int) and not isinstance(f, bool) and 0 <= f < statements for f in frames)):
            raise DataError(f"{tid}: decoy_frames must list distinct needle indices 0..{statements - 1}", file=file,
                            field="decoy_frames")
        out.append(Template(tid, str(kind), tuple(raw_needles), question,
                            tuple(sorted(slots.items())), choices, tuple(frames)))
    return tuple(out)


@lru_cache(maxsize=1)
def load_pools() -> dict[str, tuple[str, ...]]:
    """The closed pools (lists of values)."""
    return parse_pools(*_read("values"))


@lru_cache(maxsize=1)
def load_generated() -> dict[str, Generated]:
    """The generated pools (open vocabularies), by name."""
    return parse_generated(*_read("values"), load_pools())


@lru_cache(maxsize=1)
def load_retrieval_templates() -> tuple[Template, ...]:
    """Retrieval-text templates: one needle fact, its question, the answer slot in the fact."""
    return parse_templates(*_read("retrieval"), load_pools(), statements=1, generated=load_generated())


@lru_cache(maxsize=1)
def load_reasoning_templates() -> tuple[Template, ...]:
    """Reasoning-text templates: three statements that must all be combined, and the question."""
    return parse_templates(*_read("reasoning"), load_pools(), statements=3, generated=load_generated())


# --------------------------------------------------------------------------------------------- generated values


def made_up_word(rng: random.Random) -> str:
    """A pronounceable made-up word of 2 or 3 syllables, lowercase, that the official normalization leaves as
    it is (never a number word, an article or a contraction)."""
    while True:
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS)
                       for _ in range(rng.choice((2, 2, 3))))
        # a word of plain letters is changed by the normalization only where it is one of these (tested)
        if word not in NUMBER_WORDS and word not in ARTICLES and word not in CONTRACTIONS:
            return word


def _generate(spec: Generated, rng: random.Random) -> tuple[str, str]:
    """(value, its made-up word) of a generated pool."""
    word = made_up_word(rng)
    if spec.form == "word":
        return word, word
    name = word.capitalize()
    if spec.form == "phrase":
        return f"{name} {rng.choice(spec.heads)}", word
    return (f"{name} {rng.choice(spec.suffixes)}" if spec.suffixes else name), word


def value_kind(value: str) -> str | None:
    """The shape of a generated value: the phrase pool whose head ends it, ``"name+SUFFIX_POOL"`` for a name
    with a suffix, ``"name"`` or ``"word"``; None for a value no generated pool makes."""
    words = value.split(" ", 1)
    if not MADE_UP_WORD.fullmatch(words[0]):
        return None
    if len(words) == 1:
        return "word" if words[0].islower() else "name"
    for spec in load_generated().values():
        if words[1] in spec.heads or words[1] in spec.suffixes:
            return spec.pool
    return None


def find_values(text: str, kind: str) -> list[str]:
    """Every generated value of shape ``kind`` (see :func:`value_kind`) in ``text``, in order, repeats kept; a
    made-up word that begins a phrase or a suffixed name is not also counted as a name."""
    tails = sorted({t for spec in load_generated().values() for t in (*spec.heads, *spec.suffixes)},
                   key=lambda t: (-len(t), t))
    tail = "|".join(re.escape(t) for t in tails)
    found: list[str] = []
    for m in re.finditer(rf"\b([A-Za-z]+)(?: ({tail})\b)?", text):
        word, rest = m.group(1), m.group(2)
        if not MADE_UP_WORD.fullmatch(word) or (word[:1].isupper() and kind == "word"):
            continue
        value = f"{word} {rest}" if rest else word
        if value_kind(value) == kind:
            found.append(value)
    return found


# --------------------------------------------------------------------------------------------- filling


def _draw(pool: str, n: int, rng: random.Random, pools: dict[str, tuple[str, ...]], taken: set[str]) -> list[str]:
    """``n`` distinct values of ``pool`` whose made-up word (generated) or normalized value (closed) is not in
    ``taken``; adds them to it."""
    spec = load_generated().get(pool)
    out: list[str] = []
    if spec is not None:
        while len(out) < n:
            value, word = _generate(spec, rng)
            if word not in taken:
                taken.add(word)
                out.append(value)
        return out
    free = [v for v in pools[pool] if _norm(v) not in taken]
    if len(free) < n:
        raise DataError(f"pool {pool!r} has too few values left for a sample", field="slots")
    out = rng.sample(free, n)
    taken.update(_norm(v) for v in out)
    return out


def fill(template: Template, rng: random.Random, pools: dict[str, tuple[str, ...]] | None = None) -> Filled:
    """The template with every slot drawn (slots of one pool get distinct values, generated values distinct
    made-up words), such that the answer is named neither by the question nor by another slot's value."""
    pools = load_pools() if pools is None else pools
    by_pool: dict[str, list[str]] = {}
    for slot, pool in template.slots:
        by_pool.setdefault(pool, []).append(slot)
    for _ in range(_FILL_TRIES):
        values: dict[str, str] = {}
        taken: set[str] = set()
        for pool, slots in by_pool.items():
            for slot, value in zip(slots, _draw(pool, len(slots), rng, pools, taken), strict=True):
                values[slot] = value
        answer = values[ANSWER_SLOT]
        question = format_with_articles(template.question, values)
        if contains(question, answer) or any(contains(v, answer) or contains(answer, v)
                                             for s, v in values.items() if s != ANSWER_SLOT):
            continue
        needles = tuple(format_with_articles(n, values) for n in template.needles)
        return Filled(template, needles, question, answer, values)
    raise DataError(f"{template.id}: no draw keeps the answer out of the question", field="slots")


def decoys(filled: Filled, rng: random.Random, count: int,
           pools: dict[str, tuple[str, ...]] | None = None) -> list[tuple[str, dict[str, str]]]:
    """``count`` decoy statements: statements of the sample's template (its ``decoy_frames``, each once before
    any twice, in a random order) with every slot drawn afresh, distinct from every value of the sample and
    of the other decoys. A decoy is about other people, places and things, so it never changes what the
    chain implies; it only puts more values of each type in the needles (the answer's among them), mentioned
    as the chain's are. Returns (statement, its slot values) pairs."""
    pools = load_pools() if pools is None else pools
    template = filled.template
    slot_pool = dict(template.slots)
    taken: set[str] = set()
    for slot, value in filled.values.items():
        spec = load_generated().get(slot_pool[slot])
        taken.add(value.split(" ", 1)[0].lower() if spec is not None else _norm(value))
    frames: list[int] = []
    while len(frames) < count:
        frames.extend(rng.sample(template.decoy_frames, len(template.decoy_frames)))
    out: list[tuple[str, dict[str, str]]] = []
    for frame in frames[:count]:
        text = template.needles[frame]
        names = list(dict.fromkeys(_slot_names(text)))
        for _ in range(_FILL_TRIES):
            trial = set(taken)
            values = {name: _draw(slot_pool[name], 1, rng, pools, trial)[0] for name in names}
            if any(contains(v, filled.answer) or contains(filled.answer, v) or contains(filled.question, v)
                   for v in values.values()):
                continue
            taken = trial
            out.append((format_with_articles(text, values), values))
            break
        else:
            raise DataError(f"{template.id}: no decoy draw keeps clear of the sample's values", field="slots")
    return out


def choice_values(filled: Filled, rng: random.Random, pools: dict[str, tuple[str, ...]] | None = None,
                  answer_for: Callable[[int], int] | None = None,
                  decoy_values: list[str] | None = None) -> tuple[list[str], int]:
    """Four options in a random order and the answer's index: the template's ``choices`` slots, or else the
    answer and three other values of its pool: first values the decoys name (``decoy_values``, so that the
    answer is not the one option the needles mention), then fresh ones. ``answer_for`` (the option count ->
    the answer's index; a build deals it from a balanced deck) places the answer, else it lands at random."""
    pools = load_pools() if pools is None else pools
    if filled.template.choices is not None:
        options = [filled.values[s] for s in filled.template.choices]
    else:
        pool = filled.template.answer_pool
        others = [v for v in dict.fromkeys(decoy_values or []) if v != filled.answer]
        others = rng.sample(others, min(3, len(others)))
        taken = {v.split(" ", 1)[0].lower() for v in [*filled.values.values(), *others]}
        text = " ".join(filled.needles) + " " + filled.question
        while len(others) < 3:
            value = _draw(pool, 1, rng, pools, taken)[0]
            if not contains(text, value):
                others.append(value)
        options = [filled.answer, *others]
    rng.shuffle(options)
    if answer_for is not None:
        at = answer_for(len(options))
        options.remove(filled.answer)
        options.insert(at, filled.answer)
    return options, options.index(filled.answer)
