"""The corpus checker (tools/corpus_gen/lint.py) catches template glitches, and the shipped text has none.

The embedded corpus is the haystack users see by default, so it must read as clean prose: these tests run the
checker on the shipped files and on documents from seeds the shipped corpus never used (so a template that
only misbehaves for some choices is still caught), and show on hand-made examples that each check fires on the
glitch it is for and stays quiet on correct prose.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "corpus_gen"))

import lint  # noqa: E402
from corpus_gen import en_vocab  # noqa: E402
from corpus_gen.engine import Filler, tidy_en, with_article  # noqa: E402


def kinds(text: str, lang: str = "en", title: str = "A title") -> set[str]:
    paragraphs = [p for p in text.split("\n") if p]
    return {issue.kind for issue in lint.lint_document("doc", title, paragraphs, lang)}


def test_shipped_corpus_has_no_glitches():
    docs = lint.shipped_documents("en") + lint.shipped_documents("zh")
    issues = lint.lint_documents(docs)
    assert not issues, "\n".join(f"{i.doc_id} {i.kind}: {i.text}" for i in issues[:20])


def test_documents_from_unused_seeds_have_no_glitches():
    issues = lint.lint_documents(lint.extra_documents(6))
    assert not issues, "\n".join(f"{i.doc_id} {i.kind}: {i.text}" for i in issues[:20])


@pytest.mark.parametrize(("glitch", "kind"), [
    ("The old barn became A old tithe barn by the river in the end of it all.", "en-article"),
    ("It was an small town on the river with a market and a church.", "en-article"),
    ("Two or three narrow brook brooks run down from the hills to the river.", "en-doubled-word"),
    ("The the church stands on the hill above the market place and the river.", "en-doubled-word"),
    ("Visitors brings a good deal of trade to the town in the summer months.", "en-agreement"),
    ("During the festival the streets is filled with stalls and music all day.", "en-agreement"),
    ("After the breeding season it may joins small parties with other birds.", "en-agreement"),
    ("A band of ringers still practises every Tuesday evenings in the tower.", "en-agreement"),
    ("In 1934 brought disaster: the River Darach flooded one night in March.", "en-missing-subject"),
    ("The clock tower in the market place is put up after 1897 by the council.", "en-tense"),
    ("Country people once believe that its song foretold rain within three days.", "en-tense"),
    ("Some {leftover|choice} remains in this sentence about the town and river.", "markup"),
    ("The town lies on the river , and the market is held on a Thursday.", "punctuation"),
    ("Taking place in Saley in 1983, it follows Jade, a widowed schoolteacher and returns home after ten years.",
     "en-appositive-verb"),
    ("Over the last year, my partner wants to move to the coast and I do not, and I no longer know what to do.",
     "en-tense"),
    ("For about eight months now, my sister borrows money and never pays it back, and I am at my wits' end.",
     "en-tense"),
    ("The first step, pick a time when neither of you is rushed for a proper conversation about it.",
     "en-comma-splice"),
    ("Penby Bears beat Dunden Foxes by 187 runs to 26, and Will Walhurst winning all three of his games.",
     "en-verbless-clause"),
    ("Chances were few for long periods, and Calshaw's long-range effort the only real threat of the half.",
     "en-verbless-clause"),
    ("Sian is the heart of the book, and I missed her whenever her is off the page in the middle.",
     "en-pronoun-case"),
    ("A firm based in Penstow were appointed in May, ahead of two larger companies, to do the work.",
     "en-agreement"),
    ("A firm based in Penstow won the contract in May, and say they expect to keep disruption low.",
     "en-agreement"),
    ("Traffic on Fore Street face restrictions on weekdays until the work is done, the council said.",
     "en-agreement"),
    ("Those who knew her remember a sharp wit and a long memory who could name every family on the street.",
     "en-relative"),
    ("The best thing about the Tarn Lite is the lacing hooks, which is better than it has any right to be.",
     "en-agreement"),
    ("It is not perfect, though. The flashbacks is a real nuisance, and I kept noticing it every time.",
     "en-agreement"),
    ("Last of all, put everything back the way they came apart, and note anything you would do differently.",
     "en-agreement"),
    ("Drivers should know that, parking in the centre is limited on market days; it is a short walk in.",
     "punctuation"),
    ("Go over the stile into woodland; after 1 kilometres you come out at a water trough by the lane.", "en-number"),
    ("The win lifts Lamworth Town to 3rd in the table, 1 points behind the leaders, and the run goes on.", "en-number"),
])
def test_each_english_check_fires(glitch, kind):
    assert kind in kinds(glitch)


def test_new_english_checks_stay_quiet_on_the_corrected_forms():
    text = ("Taking place in Saley in 1983, it follows Jade, a widowed schoolteacher who returns home after ten years.\n"
            "Over the last year, my partner has been set on moving to the coast while I am not, and I am tired.\n"
            "For about eight months now, my sister has been borrowing money and never paying it back.\n"
            "As a first step, pick a time when neither of you is rushed. The first step is to listen to them.\n"
            "Penby Bears beat Dunden Foxes by 187 runs to 26, with Will Walhurst winning all three of his games.\n"
            "Sian is the heart of the book, and I missed her whenever she is off the page in the middle.\n"
            "After 1 kilometre you come out at a water trough; after 2 kilometres the lane ends at 1.5 metres wide.\n"
            "Sharp secateurs, a pruning saw and gloves cover nearly everything, and a neighbour has the rest.\n"
            "A firm based in Penstow was appointed in May, and says it expects to keep disruption to a minimum.\n"
            "Traffic on Fore Street will face restrictions; friends remember a man with a sharp wit, who smiled.")
    assert kinds(text) == set()


def _report(events: str, home: list[str], away: list[str]) -> str:
    sheet = "{}: {}. Subs: {}, {} ({}, 60)."
    return "\n".join([events, sheet.format("Lamworth Town", ", ".join(home[:11]), home[11], home[12], home[3]),
                      sheet.format("Coldby United", ", ".join(away[:11]), away[11], away[12], away[4])])


HOME = [f"Home{c}" for c in "abcdefghijklm"]
AWAY = [f"Away{c}" for c in "abcdefghijklm"]


@pytest.mark.parametrize("events", [
    "Homea kept Lamworth Town in the game, tipping a shot from Awayc over the bar with a fine save.",
    "Awayd cleared off the line to deny Homee with Homea beaten, and Coldby United survived a nervy spell.",
    "The referee booked Homef after a clash with Awayg midway through the half, and the game went on.",
])
def test_roster_check_passes_a_consistent_match_report(events):
    assert "en-roster" not in kinds(_report(events, HOME, AWAY))


@pytest.mark.parametrize(("events", "away"), [
    # "Rosgate" on both team sheets
    ("The referee booked Homef for a late challenge midway through the half, and the game went on.",
     [*AWAY[:5], "Homeb", *AWAY[6:]]),
    # the away keeper keeping the home side in the game
    ("Awaya kept Lamworth Town in the game, tipping a shot from Homec over the bar with a fine save.", AWAY),
    # a clearance off the line to deny a team-mate, a clash between team-mates
    ("Homed cleared off the line to deny Homee with Awaya beaten, and Coldby United survived a nervy spell.", AWAY),
    ("The referee booked Homef after a clash with Homeg midway through the half, and the game went on.", AWAY),
])
def test_roster_check_fires_on_a_contradictory_match_report(events, away):
    assert "en-roster" in kinds(_report(events, HOME, away))


def test_weekdays_and_dates_of_one_document_fit_one_calendar():
    good = ("Open gardens on Wednesday 16 October, teas in the school.\n"
            "A talk at the library on Thursday 24 October at 7pm. A quiz on Sunday 6 October, and Monday 3 March.")
    assert "en-calendar" not in kinds(good)
    assert "en-calendar" in kinds("Open gardens on Wednesday 16 October.\nA choir sings on Thursday 16 October.")
    assert "en-calendar" in kinds("A quiz on Sunday 8 October.\nA film on Wednesday 10 October at the hall.")


def test_article_before_a_place_name_used_bare():
    text = ("Coldmouth is a small town. Coldmouth has a market every week in the square.\n"
            "The Coldmouth lies on the main road between the coast and the hills.")
    assert "en-article-name" in kinds(text, title="Coldmouth")
    # A name that is part of a longer proper name, or a family, keeps its article.
    text = ("Fenwood is a town. Fenwood grew. The Fenwood Mechanics' Institute opened in 1830. "
            "The Vickery family built it, and Vickery paid.")
    assert "en-article-name" not in kinds(text, title="The Fenwood Mechanics' Institute")


def test_duplicate_and_near_duplicate_sentences_in_one_document():
    text = ("In 1929 disaster struck: the River Ison flooded one night, and much of the building was lost.\n"
            "Later the work went on as before.\n"
            "In 1929 disaster struck: the River Ison flooded one night, and much of the building was lost.")
    assert "duplicate-sentence" in kinds(text)
    text = ("During the war many of the glassblowers left to serve in the forces, and the work stopped.\n"
            "During the war many of the glassblowers left to work elsewhere, and the old men carried on.")
    assert "near-duplicate-opening" in kinds(text)
    text = ("The species enjoys legal protection in parts of the Arisa peninsula, and several reserves were set up.\n"
            "In some districts of the Arisa peninsula the species enjoys legal protection, and reserves were set up.")
    assert "near-duplicate-words" in kinds(text)


def test_correct_prose_passes():
    text = ("An hour later a heron rose from the bank, and an old man waved from a one-way street.\n"
            "The fields by the river are flooded every winter, and the species is protected by law.\n"
            "It was as if it were nothing; the food of the Calisa hills is plain and good.\n"
            "Tide tables list high high water and low low water, and had had is grammatical too.")
    assert kinds(text) == set()


@pytest.mark.parametrize(("glitch", "kind"), [
    ("它常生于于山坡的阴湿处，耐寒，生命力很强。", "zh-doubled-char"),
    ("大家浑身湿透，却都笑了了。", "zh-doubled-char"),
    ("其中最大的一条名叫湖川溪溪，源出山中。", "zh-doubled-char"),
    ("黄尾鱊（学名Impatiensborealis）是一种鱼。", "zh-latin-name"),
    ("镇上的老街，，沿河而建。", "punctuation"),
    ("镇上的老街{沿河|依山}而建。", "markup"),
])
def test_each_chinese_check_fires(glitch, kind):
    assert kind in kinds(glitch, "zh", title="标题")


def test_chinese_duplicates_and_correct_text():
    text = "镇上的人话不多，心里却什么都有数。\n镇上的人话不多，心里却什么都有数。"
    assert "duplicate-sentence" in kinds(text, "zh", title="标题")
    good = "银鳅（学名Culter rivularis）是一种分布较广的鱼。河水慢慢地流着，孩子们常常到河边玩。"
    assert kinds(good, "zh", title="标题") == set()


def test_filler_never_repeats_a_template_in_one_document():
    bank = [f"Sentence number {i} of the bank." for i in range(5)]
    fill = Filler(random.Random(1), {}, en_vocab.V, tidy_en)
    first = fill.pick(bank, 3)
    second = fill.pick(bank, 3)
    assert len(first) == 3 and len(second) == 2  # the bank ran out: fewer sentences, never a repeat
    assert not set(first) & set(second)
    assert fill.pick(bank, 2) == [] and fill.paragraph(bank, 2) == ""


def test_filler_picks_differ_within_a_sentence_and_articles_agree():
    fill = Filler(random.Random(3), {"month": "April"}, {"two": ["oak", "ash"]}, tidy_en)
    for _ in range(20):
        first, second = fill.fill("@two and @two").split(" and ")
        assert first != second
    assert fill.fill("a journey in A_ $month") == "A journey in an April"
    assert with_article("old barn") == "an old barn" and with_article("one-way street") == "a one-way street"
    assert tidy_en("it was late. the bells rang.") == "It was late. The bells rang."
