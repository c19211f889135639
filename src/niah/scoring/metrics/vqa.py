"""The VQA-style answer normalization of the VQAv2 evaluation script, as official scorers copy it.

Several benchmarks' official scorers carry their own copy of the same code (each family's metrics module says
which one it follows and which of these functions it uses). It lives here once. Every quirk of the copied code is
kept on purpose, so that scores match the published numbers:

* **Punctuation rule.** For each punctuation mark in :data:`PUNCTUATION` (in that order) the mark is *deleted*
  if the ORIGINAL text has that mark next to a space (``"p "`` or ``" p"``) or if the original text contains a
  digit-comma-digit anywhere; otherwise every occurrence is *replaced by a space*. The test always looks at the
  original text, not at the text after earlier marks were handled.
* **At most 32 periods removed.** The official code calls ``periodStrip.sub("", text, re.UNICODE)``; the third
  positional argument of ``Pattern.sub`` is ``count``, and ``re.UNICODE == 32``, so only the first 32 periods
  not followed by a digit are removed. Later ones stay.
* **The period regex** is ``(?!<=\\d)(\\.)(?!\\d)``: the first group was meant as a look-behind but is a
  look-ahead for the literal ``<=`` + digit, which never matches at a ``.``; so the rule is simply
  "a period not followed by a digit" (``3.5`` keeps its period, ``end.`` loses it).
* **Number words** ``zero`` .. ``twenty`` and the tens ``thirty`` .. ``ninety`` become digits (whole
  whitespace tokens only; ``twenty-one`` is not a number word, and ``-`` is handled first anyway).
* **Articles** ``a``, ``an``, ``the`` are dropped (whole tokens, after lowercasing).
* **Contractions** are restored from a fixed table (``dont`` -> ``don't``). The table holds some keys with
  capitals (``Im``, ``Ive``, ``Id've``) that can never match because the text is lowercased first, and one
  entry that goes the wrong way (``somebody'd`` -> ``somebodyd``); both are kept as in the official table.
"""

from __future__ import annotations

import re

#: Punctuation marks handled by the punctuation rule, in the official order.
PUNCTUATION: tuple[str, ...] = (
    ";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<", "@", "`", ",", "?", "!",
)

#: Official period pattern (note the look-ahead typo; see the module docstring).
PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")
#: A digit, a comma, a digit: when present anywhere, every punctuation mark is deleted rather than spaced.
COMMA_STRIP = re.compile(r"(\d)(\,)(\d)")
#: ``re.UNICODE`` passed as ``count`` by the official code: the number of periods removed at most.
MAX_PERIODS_REMOVED = int(re.UNICODE)  # == 32

NUMBER_WORDS: dict[str, str] = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
    "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
    "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
    "seventy": "70", "eighty": "80", "ninety": "90",
}

ARTICLES: frozenset[str] = frozenset({"a", "an", "the"})

#: The official contraction table, verbatim in content (including its unreachable and backwards entries).
CONTRACTIONS: dict[str, str] = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldve": "could've", "couldnt": "couldn't",
    "couldn'tve": "couldn't've", "couldnt've": "couldn't've", "didnt": "didn't", "doesnt": "doesn't",
    "dont": "don't", "hadnt": "hadn't", "hadnt've": "hadn't've", "hadn'tve": "hadn't've", "hasnt": "hasn't",
    "havent": "haven't", "hed": "he'd", "hed've": "he'd've", "he'dve": "he'd've", "hes": "he's",
    "howd": "how'd", "howll": "how'll", "hows": "how's", "Id've": "I'd've", "I'dve": "I'd've", "Im": "I'm",
    "Ive": "I've", "isnt": "isn't", "itd": "it'd", "itd've": "it'd've", "it'dve": "it'd've", "itll": "it'll",
    "let's": "let's", "maam": "ma'am", "mightnt": "mightn't", "mightnt've": "mightn't've",
    "mightn'tve": "mightn't've", "mightve": "might've", "mustnt": "mustn't", "mustve": "must've",
    "neednt": "needn't", "notve": "not've", "oclock": "o'clock", "oughtnt": "oughtn't",
    "ow's'at": "'ow's'at", "'ows'at": "'ow's'at", "'ow'sat": "'ow's'at", "shant": "shan't",
    "shed've": "she'd've", "she'dve": "she'd've", "she's": "she's", "shouldve": "should've",
    "shouldnt": "shouldn't", "shouldnt've": "shouldn't've", "shouldn'tve": "shouldn't've",
    "somebody'd": "somebodyd", "somebodyd've": "somebody'd've", "somebody'dve": "somebody'd've",
    "somebodyll": "somebody'll", "somebodys": "somebody's", "someoned": "someone'd",
    "someoned've": "someone'd've", "someone'dve": "someone'd've", "someonell": "someone'll",
    "someones": "someone's", "somethingd": "something'd", "somethingd've": "something'd've",
    "something'dve": "something'd've", "somethingll": "something'll", "thats": "that's",
    "thered": "there'd", "thered've": "there'd've", "there'dve": "there'd've", "therere": "there're",
    "theres": "there's", "theyd": "they'd", "theyd've": "they'd've", "they'dve": "they'd've",
    "theyll": "they'll", "theyre": "they're", "theyve": "they've", "twas": "'twas", "wasnt": "wasn't",
    "wed've": "we'd've", "we'dve": "we'd've", "weve": "we've", "werent": "weren't", "whatll": "what'll",
    "whatre": "what're", "whats": "what's", "whatve": "what've", "whens": "when's", "whered": "where'd",
    "wheres": "where's", "whereve": "where've", "whod": "who'd", "whod've": "who'd've",
    "who'dve": "who'd've", "wholl": "who'll", "whos": "who's", "whove": "who've", "whyll": "why'll",
    "whyre": "why're", "whys": "why's", "wont": "won't", "wouldve": "would've", "wouldnt": "wouldn't",
    "wouldnt've": "wouldn't've", "wouldn'tve": "wouldn't've", "yall": "y'all", "yall'll": "y'all'll",
    "y'allll": "y'all'll", "yall'd've": "y'all'd've", "y'alld've": "y'all'd've", "y'all'dve": "y'all'd've",
    "youd": "you'd", "youd've": "you'd've", "you'dve": "you'd've", "youll": "you'll", "youre": "you're",
    "youve": "you've",
}


def process_punctuation(text: str) -> str:
    """Apply the official punctuation rule, then remove at most 32 periods not followed by a digit.

    Reproduces ``processPunctuation`` of the official scorers exactly; see the module docstring for the two
    quirks (the test looks at the original text; only 32 periods are removed).
    """
    out = text
    has_digit_comma_digit = COMMA_STRIP.search(text) is not None
    for mark in PUNCTUATION:
        if (mark + " " in text or " " + mark in text) or has_digit_comma_digit:
            out = out.replace(mark, "")
        else:
            out = out.replace(mark, " ")
    return PERIOD_STRIP.sub("", out, count=MAX_PERIODS_REMOVED)


def process_digit_article(text: str) -> str:
    """Lowercase, split on whitespace, map number words to digits, drop articles, restore contractions."""
    words: list[str] = []
    for word in text.lower().split():
        word = NUMBER_WORDS.get(word, word)
        if word not in ARTICLES:
            words.append(word)
    return " ".join(CONTRACTIONS.get(word, word) for word in words)


def normalize_vqa(text: str) -> str:
    """The full VQA normalization (the ``VQAEval`` class of the copies) of a response or a gold answer.

    Newlines and tabs become spaces, the text is stripped, then :func:`process_punctuation` and
    :func:`process_digit_article` run in that order.
    """
    text = text.replace("\n", " ").replace("\t", " ").strip()
    return process_digit_article(process_punctuation(text))


def has_word(sentence: str, word: str) -> bool:
    """True iff ``word`` occurs in ``sentence`` between regex word boundaries (official ``has_word``).

    Quirks kept: an empty ``word`` matches any sentence that has a word boundary (any word character), and a
    ``word`` that starts or ends with a non-word character needs a word character next to it to match.
    """
    return re.search(r"\b" + re.escape(word) + r"\b", sentence) is not None
