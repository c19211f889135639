"""Mechanical checks of the generated corpus text: the template glitches a reader would stumble over.

Run from the repository root:
    .venv/bin/python tools/corpus_gen/lint.py                 # lint the shipped corpus
    .venv/bin/python tools/corpus_gen/lint.py --extra 40      # also lint 40 more documents per genre
                                                              # from seeds the shipped corpus does not use
    .venv/bin/python tools/corpus_gen/lint.py --show 5        # print up to 5 examples of each kind

Why a checker rather than an output filter: each glitch class found here is fixed where it comes from (the
grammar of a template slot, a vocabulary list, a plan that reused a template inside one document), and the
test suite runs these checks on the shipped text so that an edit to a template cannot quietly bring a class
back. The checks are deliberately narrow patterns with (almost) no false positives on good prose; they catch
mechanical errors only, not style.

English, per sentence: a/an before the following sound, doubled words ("the the", "brook brooks"),
subject-verb agreement in the patterns templates produce ("visitors brings", "it may joins", "males has"),
"every" with a plural ("every Tuesday evenings"), a sentence opening on a bare preposition and year followed
by a verb ("In 1934 brought disaster"), present tense with a past date ("is put up after 1897"), "the" before
a place name the document otherwise uses bare ("The Coldmouth lies"), left-over template markup, stray
punctuation. Chinese, per sentence: doubled function characters, broken punctuation and left-over markup.
Both languages, per document: the same sentence twice, and near-duplicates (same opening words, or most of
the words shared).
"""

from __future__ import annotations

import argparse
import json
import lzma
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from niah.corpus.text import split_sentences  # noqa: E402


@dataclass(frozen=True)
class Issue:
    """One glitch: which document, which check, and the offending text."""

    doc_id: str
    kind: str
    text: str


# ---------------------------------------------------------------------------------------------- English
_AN_WORDS = ("hour", "honest", "honou", "heir")
_A_WORDS = ("uni", "use", "usu", "eu", "one", "once", "ewe", "uti", "ure", "uro", "ubiq", "uvu")
_ARTICLE = re.compile(r"\b([Aa]n?) [\"'“‘(]?([A-Za-z][\w'-]*)")


def _wants_an(word: str) -> bool | None:
    """True for 'an', False for 'a', None when the word does not decide (acronyms, digits)."""
    low = word.lower()
    if word.isupper() and len(word) > 1:
        return None
    if low.startswith(_AN_WORDS):
        return True
    if low.startswith(_A_WORDS):
        return False
    return low[0] in "aeiou"


_DOUBLE = re.compile(r"\b(\w+)(?:\s+|-)\1(?:e?s)?\b", re.I)
_DOUBLE_OK = {"that that", "had had", "high high", "low low"}  # tide tables do say "high high water"
# Nouns of one kind that a template could stack ("narrow brook streams").
_KIND_GROUPS = [
    {"brook", "brooks", "stream", "streams", "beck", "becks", "rill", "rills", "runnel", "runnels", "millrace",
     "channel", "channels", "spring", "springs"},
    {"ridge", "escarpment", "fell", "moor", "scarp", "brow"},
    {"town", "village", "hamlet", "city"},
]

_PLURAL_SUBJECT = (
    r"(?:they|we|visitors|males|females|adults|birds|trees|people|residents|streets|records|pairs|"
    r"seedlings|caterpillars|larvae|eggs|flowers|leaves|fruits|seeds|roots|shops|houses|buildings|"
    r"fields|meadows|woods|lanes|roads|families|farmers|ringers|members|wages|tools|children|women|men|"
    r"traders|boats|years|winters|summers|hills|valleys|highlands|mountains|parents|young|juveniles|shoals|"
    r"individuals|specimens)"
)
_AGREEMENT = [
    # modal or "to" + a third-person form: "it may joins", "to keeps"
    re.compile(r"\b(?:may|might|can|could|will|would|shall|should|must|did|does|do|to) "
               r"(?:joins|has|is|was|keeps|gives|brings|makes|takes|grows|feeds|lives|remains|appears|"
               r"gathers|helps|shows|looks|seems|becomes|stays|holds|runs|lies|stands|goes)\b"),
    # one subject, two number forms of "to be"/"to have" in a row: "males has", "the clutch are"
    re.compile(r"\b(?:[Tt]he|[Aa]n?) (?:clutch|nest|flock|crowd|band|building|front|year|family) "
               r"(?:are|were|have)\b"),
]
# plural subject + singular verb: "Visitors brings", "males has", "the Calisa hills is" (not after a
# preposition: "the food of the Calisa hills is" is right)
_PLURAL_SINGULAR_VERB = re.compile(
    rf"(?:(\w+) )?((?:^|\b(?:[Tt]he|[Ii]ts|[Tt]heir|[Mm]any|[Mm]ost|[Ss]ome|[Ss]everal|[Tt]hese|[Tt]hose|[Oo]lder|"
    rf"[Yy]oung) )(?:[A-Z][a-z]+ )?{_PLURAL_SUBJECT} (?:is|was|has|does|brings|remains|lies|stands|seems|appears|"
    rf"makes)\b)", re.I)
# singular subject + plural verb: "it join", "the species are" (the word before is checked separately, so
# that "as if it were", "helps it grow" and "the fields by the river are" pass)
_SINGULAR_PLURAL_VERB = re.compile(
    r"(?:(\w+) )?\b((?:[Ii]t|[Hh]e|[Ss]he|[Tt]he (?:species|bird|tree|plant|moth)) (?:are|were|have|do|join|"
    r"feed|grow|live|remain|appear|gather|nest|breed|fly|migrate|stay|rest))\b")
_NOT_A_SUBJECT_AFTER = {
    "if", "make", "makes", "let", "lets", "help", "helps", "see", "watch", "hear", "of", "by", "on", "in", "to",
    "at", "for", "from", "with", "near", "beside", "along", "around", "over", "under", "about", "than",
}
# a singular body with plural verbs ("A firm based in Penstow were appointed ... and say"), a mass noun with a
# plural verb ("Traffic on Fore Street face")
_BODY_PLURAL_VERB = re.compile(
    r"\b[Aa] (?:firm|company|contractor|builder)\b(?: (?:based in|from) [A-Z][a-z]+)? (?:were|are|have|say)\b|"
    r"\b[Aa] (?:firm|company|contractor|builder)\b[^.;]*, and (?:say|have promised|were)\b|"
    r"\bTraffic (?:on|in|through) (?:[A-Z][a-z]+ ){1,3}(?:face|are|were|have)\b")
# a plural thing given a singular verb: "The best thing is the lacing hooks, which is better", "the flashbacks is"
_PLURAL_THING_IS = re.compile(
    r"\b[Tt]he (?:[a-z]+ ){0,2}(?:scones|seats|stairs|tables|hooks|rooms|walls|brakes|lights|fingerprints|characters|"
    r"flashbacks|pages)(?: on the steel)?,? (?:which is|and it is|is|was|has|seems|stood|let it down)\b")
# "everything ... the way they came apart": "everything" is singular
_EVERYTHING_THEY = re.compile(r"\beverything\b[^.;,]* the way they\b")
# "Drivers should know that, parking ...": no comma between "that" and the clause it introduces
_THAT_COMMA = re.compile(r"\b(?:know|knows|note|remember|say|says|said|agree|agreed) that, ")
# "who" after a thing: "a sharp wit and a long memory who could name every family"
_THING_WHO = re.compile(r"\b(?:wit|memory|humour|laugh|temper|voice|smile) who\b")
_EVERY_PLURAL = re.compile(
    r"\b(?:every|each) (?!(?:two|three|four|five|six|few|other|several|\d+) )(?:\w+ )?"
    r"(?:Mondays|Tuesdays|Wednesdays|Thursdays|Fridays|Saturdays|Sundays|mornings|evenings|nights|"
    r"afternoons|weekends|days|weeks|months|years|summers|winters)\b")
_ONE_OF_SINGULAR = re.compile(r"\bone of (?:a|an) \w+")
_PREP_YEAR_VERB = re.compile(
    r"^(?:In|By|During|After|Before|Since|Until|From) (?:the )?(?:winter of |summer of )?\d{4}s?,? "
    r"(?:brought|was|were|is|are|had|has|saw|proved|became|came|went|made)\b")
_TENSE = [
    re.compile(r"\b(?:is|are) (?:erected|put up|built|founded|opened|recorded|collected|written down|"
               r"established|destroyed|closed|restored)\b[^.;:]*\b(?:in|after|by|before) (?:the )?\d{4}"),
    re.compile(r"\b(?:has|have) (?:been )?(?:\w+ed|built|put up|begun) (?:in|after) (?:the )?\d{4}\b"),
    re.compile(r"\bonce (?:believe|say|think|call|use|keep|hold)\b"),
    re.compile(r"\b(?:was|were) now (?:a|an|used|home|the)\b"),
    re.compile(r"\b(?:was|were) \w+ (?:are|is) now\b"),
]
# "it follows Jade, a widowed schoolteacher and returns home": an appositive cannot take the verb ("who returns")
_APPOSITIVE_VERB = re.compile(r"\b[A-Z][a-z]+, an? (?:[a-z]+ ){0,2}[a-z]+ and (?:[a-z]+s) (?:home|a|an|the|after|to|up)\b")
# "Over the last year, my partner wants ...": a span of time up to now wants a present perfect ("has wanted")
_SPAN_PRESENT = re.compile(
    r"^(?:For (?:about |nearly |almost )?\w+ \w+ now|Since the \w+|Over the (?:last|past) \w+|For longer than I care "
    r"to admit), (?:[a-z]+ ){1,3}(?!(?:has|have|had|is|are|was|were)\b)[a-z]+s\b")
# "The first step, pick a time": a comma where the sentence needs "is to" (or "As a first step,")
_STEP_SPLICE = re.compile(r"^The (?:first|next|second|third|last|final) (?:step|thing), (?!is\b|was\b)")
# "..., and Will Walhurst winning all three of his games": a clause after "and" needs a verb ("with ... winning")
_VERBLESS_AND = re.compile(
    r", and (?:(?:[A-Z][a-z]+ ){1,2}(?:the pick|the best|in fine form|winning|top-scoring|impressing|making the)\b|"
    r"[^,;:.]* (?:the only real threat|the nearest thing to a goal)\b)")
# "whenever her is off the page": an object pronoun as a subject
_PRONOUN_CASE = re.compile(r"\b(?:whenever|when|while|if|until|because|once) (?:him|her|them|me|us) (?:is|was|are|were|has|have)\b")
# "after 1 kilometres", "1 points behind": one of a thing is singular
_ONE_PLURAL = re.compile(
    r"(?<![\d.,£$])\b1 (?:kilometres|miles|metres|points|games|years|hours|minutes|days|pages|members|legs|runs|"
    r"goals|shots|rounds|sets|pins|boards|overs|quarters)\b")
_MARKUP = re.compile(r"[{}|$@]|\bA_")
_PUNCT = re.compile(r" [,.;:!?]|[,;:] ?[,.;:!?]|\.\.|\( | \)|^[a-z]|, (?:and|but|or|while),")
_THE_NAME = re.compile(r"\b[Tt]he ([A-Z][a-z]+)\b(?! [A-Z]| family)")  # not "The Fenwood Mechanics' Institute"
_THE_NAME_OK = {"Earth", "Moon", "Sun"}
_BARE_NAME_AFTER = ("the ", "The ", "River ", "St ", "of the ")


def _en_sentence_issues(sentence: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for m in _ARTICLE.finditer(sentence):
        want = _wants_an(m.group(2))
        if want is not None and want != (m.group(1).lower() == "an"):
            found.append(("en-article", m.group(0)))
    for m in _DOUBLE.finditer(sentence):
        if m.group(0).lower() not in _DOUBLE_OK and not m.group(1).isdigit():
            found.append(("en-doubled-word", m.group(0)))
    words = re.findall(r"[A-Za-z]+", sentence.lower())
    for a, b in zip(words, words[1:], strict=False):
        if any(a in g and b in g for g in _KIND_GROUPS):
            found.append(("en-doubled-word", f"{a} {b}"))
    for pattern in _AGREEMENT:
        found += [("en-agreement", m.group(0)) for m in pattern.finditer(sentence)]
    found += [("en-agreement", m.group(2)) for m in _PLURAL_SINGULAR_VERB.finditer(sentence)
              if (m.group(1) or "").lower() not in _NOT_A_SUBJECT_AFTER]
    found += [("en-agreement", m.group(2)) for m in _SINGULAR_PLURAL_VERB.finditer(sentence)
              if (m.group(1) or "").lower() not in _NOT_A_SUBJECT_AFTER]
    found += [("en-agreement", m.group(0)) for m in _EVERY_PLURAL.finditer(sentence)]
    found += [("en-agreement", m.group(0)) for m in _BODY_PLURAL_VERB.finditer(sentence)]
    found += [("en-relative", m.group(0)) for m in _THING_WHO.finditer(sentence)]
    found += [("en-agreement", m.group(0)) for m in _EVERYTHING_THEY.finditer(sentence)]
    found += [("punctuation", m.group(0)) for m in _THAT_COMMA.finditer(sentence)]
    found += [("en-agreement", m.group(0)) for m in _PLURAL_THING_IS.finditer(sentence)]
    found += [("en-agreement", m.group(0)) for m in _ONE_OF_SINGULAR.finditer(sentence)]
    found += [("en-missing-subject", m.group(0)) for m in _PREP_YEAR_VERB.finditer(sentence)]
    for pattern in _TENSE:
        found += [("en-tense", m.group(0)) for m in pattern.finditer(sentence)]
    found += [("en-tense", m.group(0)) for m in _SPAN_PRESENT.finditer(sentence)]
    found += [("en-appositive-verb", m.group(0)) for m in _APPOSITIVE_VERB.finditer(sentence)]
    found += [("en-comma-splice", m.group(0)) for m in _STEP_SPLICE.finditer(sentence)]
    found += [("en-verbless-clause", m.group(0)) for m in _VERBLESS_AND.finditer(sentence)]
    found += [("en-pronoun-case", m.group(0)) for m in _PRONOUN_CASE.finditer(sentence)]
    found += [("en-number", m.group(0)) for m in _ONE_PLURAL.finditer(sentence)]
    found += [("markup", m.group(0)) for m in _MARKUP.finditer(sentence)]
    found += [("punctuation", sentence[max(0, m.start() - 15):m.end() + 15]) for m in _PUNCT.finditer(sentence)]
    return found


def _the_before_bare_names(text: str) -> list[tuple[str, str]]:
    """Names the document uses bare ("Chalden is ...") but once with an article ("The Chalden lies")."""
    found = []
    for name in sorted({m.group(1) for m in _THE_NAME.finditer(text)} - _THE_NAME_OK):
        bare = 0
        for m in re.finditer(rf"\b{name}\b", text):
            before = text[max(0, m.start() - 7):m.start()]
            if not before.endswith(_BARE_NAME_AFTER):
                bare += 1
        if bare >= 2:
            found += [("en-article-name", m.group(0)) for m in re.finditer(rf"\b[Tt]he {name}\b(?! [A-Z]| family)", text)]
    return found


# A team sheet: "Lamworth Town: Halwick, Kirkwood, ..., Oakfield. Subs: Mossgate, Lidwick (Kirkwood, 58)."
_LINEUP = re.compile(r"^(?P<team>[A-Z][\w' ]+): (?P<xi>(?:[A-Z][\w'-]+, ){10}[A-Z][\w'-]+)\. Subs: (?P<subs>[^(]+?) \(")
# Events whose two players must be on opposite sides, and a keeper who must be on the side he keeps in the game.
_OPPONENTS = [re.compile(r"\b(?P<a>[A-Z][a-z]+) (?:cleared|blocked) off the line (?:from|to deny) (?P<b>[A-Z][a-z]+)\b"),
              re.compile(r"\b(?P<a>[A-Z][a-z]+) after a clash with (?P<b>[A-Z][a-z]+)\b")]
_KEEPER_FOR = re.compile(r"\b(?P<keeper>[A-Z][a-z]+) kept (?P<team>[A-Z][\w' ]+?) in the game\b")


def _roster_issues(paragraphs: Sequence[str]) -> list[tuple[str, str]]:
    """A match report's team sheets name each player once, and its events put players on the right side."""
    sides: dict[str, set[str]] = {}
    for p in paragraphs:
        m = _LINEUP.match(p)
        if m:
            sides[m.group("team")] = {*m.group("xi").split(", "), *m.group("subs").split(", ")}
    if len(sides) < 2:
        return []
    found: list[tuple[str, str]] = []
    owner: dict[str, str] = {}
    for team, names in sides.items():
        for name in sorted(names):
            if name in owner:
                found.append(("en-roster", f"{name} plays for both {owner[name]} and {team}"))
            owner.setdefault(name, team)
    text = "\n".join(paragraphs)
    for pattern in _OPPONENTS:
        for m in pattern.finditer(text):
            a, b = owner.get(m.group("a")), owner.get(m.group("b"))
            if a is not None and a == b:
                found.append(("en-roster", f"{m.group(0)} (both {a})"))
    for m in _KEEPER_FOR.finditer(text):
        side = owner.get(m.group("keeper"))
        if side is not None and m.group("team") in sides and side != m.group("team"):
            found.append(("en-roster", f"{m.group(0)} (keeper of {side})"))
    return found


_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_DATED_DAY = re.compile(
    rf"\b({'|'.join(_WEEKDAYS)}) (\d{{1,2}}) (January|February|March|April|May|June|July|August|September|October|"
    r"November|December)\b")


def _calendar_issues(text: str) -> list[tuple[str, str]]:
    """Weekday-and-date pairs in one document must fit one calendar: "Wednesday 16 October" and "Thursday 16
    October" (or "Sunday 8 October" with "Wednesday 10 October") cannot both be right."""
    first: dict[str, tuple[int, str]] = {}
    found: list[tuple[str, str]] = []
    for m in _DATED_DAY.finditer(text):
        offset = (int(m.group(2)) - _WEEKDAYS.index(m.group(1))) % 7
        if m.group(3) not in first:
            first[m.group(3)] = (offset, m.group(0))
        elif first[m.group(3)][0] != offset:
            found.append(("en-calendar", f"{first[m.group(3)][1]} || {m.group(0)}"))
    return found


# ---------------------------------------------------------------------------------------------- Chinese
_ZH_DOUBLE = re.compile(r"(的|了|是|在|于|也|就|便|都|又|把|被|将|和|与|地|得|很|从|到|向|为|才|还|出)\1|溪溪|江江|岭岭|峰峰|岗岗")
_ZH_DOUBLE_OK = ("了了之",)
_ZH_PUNCT = re.compile(r"[，、；：][，。、；：！？]|[。！？][，、；]|^[，。、；：]|“”|（）")
_ZH_MARKUP = re.compile(r"[{}|$@]|A_|(?<![A-Za-z])\s|\s(?![A-Za-z])")  # a space only inside Latin names
_ZH_LATIN_RUN = re.compile(r"[A-Za-z]{15,}")  # "Impatiensborealis": a binomial that lost its space


def _zh_sentence_issues(sentence: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for m in _ZH_DOUBLE.finditer(sentence):
        if not any(ok in sentence[max(0, m.start() - 2):m.end() + 2] for ok in _ZH_DOUBLE_OK):
            found.append(("zh-doubled-char", sentence[max(0, m.start() - 6):m.end() + 6]))
    found += [("punctuation", sentence[max(0, m.start() - 6):m.end() + 6]) for m in _ZH_PUNCT.finditer(sentence)]
    found += [("markup", repr(m.group(0))) for m in _ZH_MARKUP.finditer(sentence)]
    found += [("zh-latin-name", m.group(0)) for m in _ZH_LATIN_RUN.finditer(sentence)]
    return found


# ------------------------------------------------------------------------------------------ duplicates
_EN_FUNCTION_WORDS = set("""that this with have been which there their from were they into than then when what more
most only also some such them those these over under about after before while where would could should every
each other""".split())


def _en_key_words(sentence: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", sentence.lower())


def _zh_key_chars(sentence: str) -> str:
    return re.sub(r"[^\u4e00-\u9fffA-Za-z0-9]", "", sentence)


def _similar(a: set, b: set) -> float:
    return len(a & b) / max(1, min(len(a), len(b)))


def _duplicate_issues(sentences: Sequence[str], lang: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    openings: dict[str, str] = {}
    shapes: list[tuple[set, str]] = []
    for s in sentences:
        norm = s.strip().lower()
        if norm in seen:
            found.append(("duplicate-sentence", s[:80]))
            continue
        seen.add(norm)
        if lang == "zh":
            chars = _zh_key_chars(s)
            if len(chars) < 12:
                continue
            opening = chars[:8]
            shape = {chars[i:i + 2] for i in range(len(chars) - 1)}
            threshold = 0.7
        else:
            words = _en_key_words(s)
            if len(words) < 8:
                continue
            opening = " ".join(words[:6])
            shape = {w for w in words if len(w) > 3 and w not in _EN_FUNCTION_WORDS}
            threshold = 0.75
        if opening in openings:
            found.append(("near-duplicate-opening", f"{openings[opening][:60]} || {s[:60]}"))
        else:
            openings[opening] = s
        for other_shape, other in shapes:
            if min(len(shape), len(other_shape)) >= 6 and _similar(shape, other_shape) >= threshold:
                found.append(("near-duplicate-words", f"{other[:60]} || {s[:60]}"))
                break
        shapes.append((shape, s))
    return found


# ------------------------------------------------------------------------------------------------ API
def lint_document(doc_id: str, title: str, paragraphs: Sequence[str], lang: str) -> list[Issue]:
    """Every issue in one document."""
    sentences = [s for p in paragraphs for s in split_sentences(p, lang)]
    found: list[tuple[str, str]] = []
    check = _zh_sentence_issues if lang == "zh" else _en_sentence_issues
    for s in [title, *sentences]:
        found += check(s)
    if lang != "zh":
        found += _the_before_bare_names("\n".join([title, *paragraphs]))
        found += _roster_issues(paragraphs)
        found += _calendar_issues("\n".join(paragraphs))
    found += _duplicate_issues(sentences, lang)
    return [Issue(doc_id, kind, text) for kind, text in found]


def lint_documents(docs: Iterable[dict]) -> list[Issue]:
    """Issues in documents given as the shipped JSON objects ({"id","lang","title","paragraphs"})."""
    issues: list[Issue] = []
    for d in docs:
        issues += lint_document(d["id"], d["title"], d["paragraphs"], d["lang"])
    return issues


def shipped_documents(lang: str, folder: Path | None = None) -> list[dict]:
    """The shipped (or given folder's) documents of one language."""
    path = (folder or ROOT / "src" / "niah" / "data" / "corpus") / f"{lang}.jsonl.xz"
    return [json.loads(line) for line in lzma.decompress(path.read_bytes()).decode("utf-8").splitlines() if line]


def extra_documents(n_per_genre: int) -> list[dict]:
    """Documents from seeds the shipped corpus never reaches, to exercise more template combinations."""
    sys.path.insert(0, str(ROOT / "tools"))
    import random

    import make_corpus

    from corpus_gen.engine import structure

    docs = []
    for lang, plan in (("en", make_corpus.EN_PLAN), ("zh", make_corpus.ZH_PLAN)):
        for genre, _n, make in plan:
            for i in range(n_per_genre):
                title, blocks = make(random.Random(f"niah-corpus-lint/{lang}/{genre}/{i}"))
                paragraphs, _headings, _kinds = structure(blocks)
                docs.append({"id": f"extra-{lang}-{genre}-{i}", "lang": lang, "title": title,
                             "paragraphs": paragraphs})
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extra", type=int, default=0, help="also lint N generated documents per genre")
    parser.add_argument("--show", type=int, default=3, help="examples to print per kind")
    parser.add_argument("--folder", type=Path, default=None, help="corpus folder (default: the shipped one)")
    args = parser.parse_args()
    docs = shipped_documents("en", args.folder) + shipped_documents("zh", args.folder)
    issues = lint_documents(docs)
    if args.extra:
        issues += lint_documents(extra_documents(args.extra))
    counts = Counter(i.kind for i in issues)
    for kind, n in sorted(counts.items()):
        print(f"{kind}: {n}")
        for issue in [i for i in issues if i.kind == kind][:args.show]:
            print(f"    {issue.doc_id}: {issue.text}")
    print(f"total: {len(issues)} issues in {len(docs)} shipped documents" + (
        f" and {args.extra} extra documents per genre" if args.extra else ""))
    return 1 if issues else 0


if __name__ == "__main__":
    raise SystemExit(main())
