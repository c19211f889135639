"""ROUGE-L F exactly as the ``rouge`` package, version 1.0.1, computes it (``Rouge().get_scores(h, r)``).

Official scorers that call that package get its particular definition, so that is what is reproduced here
(and checked against the package in the tests) rather than a textbook ROUGE-L:

* Sentences are the pieces of ``text.split(".")`` that are non-empty *before* whitespace is collapsed, each
  re-joined with single spaces; a piece of only spaces therefore becomes an empty sentence whose one "word" is
  the empty string. Words are ``sentence.split(" ")``.
* ``m`` and ``n`` are the numbers of DISTINCT words in the reference and the hypothesis (the package counts
  n-grams in sets), not token counts.
* Summary-level union LCS: for every reference sentence, one LCS with each hypothesis sentence is reconstructed
  (ties broken as the package does: move up only when the cell above is strictly larger, otherwise left), and
  the words of all those LCSs go into ONE set shared across all reference sentences. The overlap is the size of
  that set, so a word counts once however often it is matched.
* ``F = 2 * (P * R) / (P + R + 1e-8)`` with ``P = overlap / n`` and ``R = overlap / m``.

The package raises ``ValueError`` when either side has no sentence (e.g. the text is only periods); so does
:func:`rouge_l_summary_level`. The package reconstructs the LCS recursively and hits Python's recursion limit on
sentences of about a thousand words; this version is iterative and has no such limit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RougeScore:
    f: float
    p: float
    r: float


def split_sentences(text: str) -> list[str]:
    """The package's sentence split: pieces between periods, non-empty before whitespace collapsing."""
    return [" ".join(piece.split()) for piece in text.split(".") if len(piece) > 0]


def _words(sentences: list[str]) -> list[str]:
    return [word for sentence in sentences for word in sentence.split(" ")]


def lcs_words(reference: list[str], hypothesis: list[str]) -> list[str]:
    """One longest common subsequence of two word lists, reconstructed with the package's tie-breaking."""
    n, m = len(reference), len(hypothesis)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, above = table[i], table[i - 1]
        ref_word = reference[i - 1]
        for j in range(1, m + 1):
            if ref_word == hypothesis[j - 1]:
                row[j] = above[j - 1] + 1
            else:
                row[j] = max(above[j], row[j - 1])
    out: list[str] = []
    i, j = n, m
    while i > 0 and j > 0:
        if reference[i - 1] == hypothesis[j - 1]:
            out.append(reference[i - 1])
            i -= 1
            j -= 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    out.reverse()
    return out


def rouge_l_summary_level(hypothesis_sentences: list[str], reference_sentences: list[str]) -> RougeScore:
    """The package's ``rouge_l_summary_level`` with ``exclusive=True`` (its default)."""
    if len(hypothesis_sentences) <= 0 or len(reference_sentences) <= 0:
        raise ValueError("Collections must contain at least 1 sentence.")
    reference_distinct = len(set(_words(reference_sentences)))
    hypothesis_distinct = len(set(_words(hypothesis_sentences)))
    hypothesis_word_lists = [sentence.split(" ") for sentence in hypothesis_sentences]
    union: set[str] = set()
    for reference_sentence in reference_sentences:
        reference_words = reference_sentence.split(" ")
        for hypothesis_words in hypothesis_word_lists:
            union.update(lcs_words(reference_words, hypothesis_words))
    overlap = len(union)
    recall = overlap / reference_distinct
    precision = overlap / hypothesis_distinct
    f = 2.0 * ((precision * recall) / (precision + recall + 1e-8))
    return RougeScore(f=f, p=precision, r=recall)


def rouge_l(hypothesis: str, reference: str) -> RougeScore:
    """``Rouge().get_scores(hypothesis, reference)[0]["rouge-l"]`` of rouge 1.0.1."""
    return rouge_l_summary_level(split_sentences(hypothesis), split_sentences(reference))
