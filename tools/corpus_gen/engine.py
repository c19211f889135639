"""A tiny template language for the procedurally written part of niah's embedded corpus.

Why a template language: the embedded corpus needs hundreds of thousands of tokens of readable prose that
ships with the package and never changes between versions. Writing all of it by hand is not practical, and
a plain slot-filler reads like a form letter. Templates here combine three kinds of variation, so that a
few hundred hand-written sentence frames give tens of thousands of distinct sentences:

* ``{a|b|c}``   choose one alternative (nesting allowed); ``{|b}`` makes ``b`` optional.
* ``$name``     a fact of the current document (kept consistent inside one document).
* ``@list``     a fresh pick from a vocabulary list (two picks from one list in one sentence differ).
* ``A_``        the English indefinite article, resolved to "a" or "an" from the word after it.

Grammar is the template writer's job, and the rules that keep the output clean are: an alternative set
``{a|b}`` only where every alternative fits every neighbour it can meet (same number, tense and part of
speech), so a subject and its verb are chosen together; articles before a variable word through ``A_``;
facts carry their own grammar (pronouns, plural forms). ``tools/corpus_gen/lint.py`` checks the output for
the mechanical slips these rules prevent.

Every choice is drawn from one ``random.Random`` seeded per document, so the output is a pure function of
the seed and of these files (the generated corpus is shipped as data, so later edits cannot silently change
datasets built with an earlier niah version).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence

_VAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_LIST = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)")
_ARTICLE = re.compile(r"\bA_ +(\W*)(\w+)")
_AN_EXCEPTIONS_A = ("uni", "use", "usu", "eu", "one", "once", "ewe", "uti", "ure", "uro")
_AN_EXCEPTIONS_AN = ("hour", "honest", "honou", "heir")


def parse_bank(text: str) -> list[str]:
    """One template per non-blank line; lines starting with '#' are comments."""
    return [ln.strip() for ln in text.strip().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def parse_banks(text: str) -> dict[str, list[str]]:
    """Sections introduced by a line ``== name`` each hold one template per line."""
    banks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            current = banks.setdefault(line[3:].strip(), [])
            continue
        if current is None:
            raise ValueError(f"template line before any '== section': {line!r}")
        current.append(line)
    return banks


def _choose(text: str, rng: random.Random) -> str:
    """Resolve ``{a|b}`` choices from the innermost outwards."""
    while True:
        end = text.find("}")
        if end < 0:
            return text
        start = text.rfind("{", 0, end)
        if start < 0:
            raise ValueError(f"unbalanced '}}' in template: {text!r}")
        options = text[start + 1:end].split("|")
        text = text[:start] + rng.choice(options) + text[end + 1:]


def _article(match: re.Match[str]) -> str:
    lead, word = match.group(1), match.group(2)
    low = word.lower()
    if low.startswith(_AN_EXCEPTIONS_AN):
        art = "an"
    elif low.startswith(_AN_EXCEPTIONS_A):
        art = "a"
    else:
        art = "an" if low[:1] in "aeiou" or (len(word) > 1 and word.isupper() and low[0] in "aefhilmnorsx") else "a"
    return f"{art} {lead}{word}"


def with_article(phrase: str) -> str:
    """``phrase`` led by "a" or "an" as its first word's sound wants (for text built outside templates)."""
    return _ARTICLE.sub(_article, f"A_ {phrase}")


def tidy_en(sentence: str) -> str:
    """Whitespace, punctuation spacing and a capital first letter."""
    s = re.sub(r"\s+", " ", sentence).strip()
    s = re.sub(r" +([,.;:!?])", r"\1", s)
    s = re.sub(r",,+", ",", s)
    s = re.sub(r"\.\.+", ".", s)
    s = re.sub(r"\( +", "(", s)
    s = re.sub(r" +\)", ")", s)
    # A template line may hold two sentences; the second starts with a capital too.
    s = re.sub(r"([.!?][\"'”’]? )([a-z])", lambda m: m.group(1) + m.group(2).upper(), s)
    for idx, ch in enumerate(s):
        if ch.isalpha():
            s = s[:idx] + ch.upper() + s[idx + 1:]
            break
        if ch not in "\"'“‘(":
            break
    return s


def tidy_zh(sentence: str) -> str:
    """Chinese text has no spaces between words; drop those the template lines carried."""
    s = re.sub(r"\s+", "", sentence)
    s = re.sub(r"，，+", "，", s)
    s = re.sub(r"。。+", "。", s)
    return s


# How often each template has been used by accepted documents so far in this build (see ``Filler.pick``).
# Filled through ``commit``: a document the builder rejects leaves no trace, so the counts, and therefore the
# text, depend only on the accepted documents, which are generated in a fixed order.
USAGE: dict[str, int] = {}
_PENDING: list[str] = []


def commit() -> None:
    """Count the templates of the last document as used (call when the builder accepts it)."""
    for t in _PENDING:
        USAGE[t] = USAGE.get(t, 0) + 1
    _PENDING.clear()


def discard() -> None:
    """Forget the templates of the last document (call when the builder rejects it)."""
    _PENDING.clear()


def reset_usage() -> None:
    USAGE.clear()
    _PENDING.clear()


class Filler:
    """Expands templates against one document's facts and shared vocabularies."""

    def __init__(
        self,
        rng: random.Random,
        facts: Mapping[str, str],
        vocab: Mapping[str, Sequence[str]],
        tidy: Callable[[str], str],
    ) -> None:
        self.rng = rng
        self.facts = dict(facts)
        self.vocab = vocab
        self.tidy = tidy
        self.used: set[str] = set()

    def fill(self, template: str) -> str:
        text = template
        picked: dict[str, set[str]] = {}
        # Vocabulary picks and facts may themselves contain choices and further picks (bounded depth).
        for _ in range(6):
            before = text
            text = _LIST.sub(lambda m: self._pick_word(m.group(1), picked), text)
            text = _VAR.sub(lambda m: self._fact(m.group(1)), text)
            text = _choose(text, self.rng)
            if text == before:
                break
        text = _ARTICLE.sub(_article, text)
        return self.tidy(text)

    def _pick_word(self, name: str, picked: dict[str, set[str]]) -> str:
        """A word from list ``name`` not yet picked in this sentence ("oak and oak" reads as a glitch)."""
        words = self._list(name)
        taken = picked.setdefault(name, set())
        fresh = [w for w in words if w not in taken] or list(words)
        word = self.rng.choice(fresh)
        taken.add(word)
        return word

    def _list(self, name: str) -> Sequence[str]:
        try:
            return self.vocab[name]
        except KeyError:
            raise KeyError(f"unknown vocabulary list @{name}") from None

    def _fact(self, name: str) -> str:
        try:
            return self.facts[name]
        except KeyError:
            raise KeyError(f"unknown fact ${name}") from None

    def pick(self, bank: Sequence[str], k: int) -> list[str]:
        """Up to ``k`` templates from ``bank`` not yet used in this document, expanded.

        A template is never used twice in one document, even when that leaves fewer than ``k`` (possibly
        none): two expansions of one frame read as the same sentence said twice with different words.
        """
        fresh = [t for t in dict.fromkeys(bank) if t not in self.used]
        # Least-used templates first (ties in random order): across the corpus every frame of a bank is used
        # about equally often, so two documents of one genre share as few frames as the bank allows.
        keyed = sorted(fresh, key=lambda t: (USAGE.get(t, 0), self.rng.random()))
        chosen = set(keyed[:min(k, len(fresh))])
        self.used.update(chosen)
        _PENDING.extend(chosen)
        # Keep the bank's own order: banks are written so that earlier lines introduce and later ones follow.
        ordered = [t for t in dict.fromkeys(bank) if t in chosen]
        return [self.fill(t) for t in ordered]

    def one(self, bank: Sequence[str]) -> str:
        """Exactly one fresh template from ``bank`` (the bank must still have one)."""
        got = self.pick(bank, 1)
        if not got:
            raise ValueError(f"bank used up: {bank[:1]}...")
        return got[0]

    def paragraph(self, bank: Sequence[str], k: int, joiner: str = " ") -> str:
        """Up to ``k`` fresh templates of ``bank`` joined into a paragraph ("" when the bank is used up)."""
        return joiner.join(self.pick(bank, k))


def structure(blocks: Sequence[str]) -> tuple[list[str], list[list[int | str]], list[str]]:
    """Split generator blocks into (paragraphs, headings, kinds).

    A block ``"## text"`` is a heading placed before the next paragraph (recorded as ``[index, text]``, not
    as a paragraph: headings have no sentence end, and the haystack is built from sentences); a block
    ``"- text"`` is an item of a bulleted list, kept as a paragraph of kind ``"li"``; ``"1. text"`` is an item of a
    numbered list (steps to follow in order), kind ``"ol"``, numbered when rendered; every other block is kind
    ``"p"``.
    """
    paragraphs: list[str] = []
    headings: list[list[int | str]] = []
    kinds: list[str] = []
    for block in blocks:
        if block.startswith("## "):
            headings.append([len(paragraphs), block[3:].strip()])
        elif block.startswith("- "):
            paragraphs.append(block[2:].strip())
            kinds.append("li")
        elif block.startswith("1. "):
            paragraphs.append(block[3:].strip())
            kinds.append("ol")
        else:
            paragraphs.append(block)
            kinds.append("p")
    return paragraphs, headings, kinds
