"""Small English helpers for generated text: the indefinite article a template's slot value needs."""

from __future__ import annotations

import re

#: Vowel-letter starts read with a consonant sound ("a ukulele", "a euphonium", "a one-eyed cat").
_CONSONANT_SOUND = ("uni", "use", "usu", "uku", "ute", "eu", "ewe", "one", "once")
#: Consonant-letter starts read with a vowel sound ("an hour", "an heir").
_VOWEL_SOUND = ("hour", "honest", "honou", "heir")


def article(noun: str) -> str:
    """"a" or "an" for ``noun`` by how it sounds, as far as a letter rule and its common exceptions tell."""
    word = noun.strip().lower()
    if word.startswith(_VOWEL_SOUND):
        return "an"
    if word.startswith(_CONSONANT_SOUND):
        return "a"
    return "an" if word[:1] in "aeiou" else "a"


def with_article(noun: str) -> str:
    """``noun`` with its indefinite article: "an owl", "a cat", "a ukulele"."""
    return f"{article(noun)} {noun}"


_ARTICLE_BEFORE_SLOT = re.compile(r"\b([Aa])n? \{(\w+)\}")


def format_with_articles(template: str, values: dict[str, str]) -> str:
    """``template.format(**values)`` where an "a {slot}" or "an {slot}" gets the article its value needs (a
    capital A stays capital)."""
    def fix(match: re.Match[str]) -> str:
        chosen = article(values[match.group(2)]) if match.group(2) in values else match.group(0).split()[0]
        if match.group(1) == "A":
            chosen = chosen.capitalize()
        return f"{chosen} {{{match.group(2)}}}"

    return _ARTICLE_BEFORE_SLOT.sub(fix, template).format(**values)
