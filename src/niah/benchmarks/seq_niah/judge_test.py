"""The judge self-test: the paper's synthetic judge test set, built from gold answers, and its tables.

Groups (paper Section 4, Tables 4 and 7): for each QA, a candidate answer is the gold items (GT), GT with
items dropped (Missing), GT with items added (Redundant) or GT with items dropped and added (Incorrect),
each either in gold order or shuffled. Needle types: temporal (synthetic diaries and relation timelines;
questions with and without an order requirement) and logical (ordered procedures; order always required).
Expected verdict: correct only for GT in gold order, and for shuffled GT when the question does not ask for
order.

The candidates are written the way models write answers, not the way the gold is written: bullets,
numbering, ``Step N``, Chinese numbering or none; intros and closing remarks; ``date: event``,
``On {date}, {event}``, ``{event} ({date})``, a date line with the event on the next line; every date format
the judge claims to read; light paraphrase (synonyms, subject dropped or named, articles dropped, a trailing
clause cut). The wrong items are hard on purpose: another person with the subject's surname, a gold event
under a nearby date, a new event on a nearby date, a different event on a gold date, a plausible extra step
on the same topic.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from niah.benchmarks.seq_niah import synth
from niah.benchmarks.seq_niah.dates import MONTH_NAMES, answer_date
from niah.benchmarks.seq_niah.judge import judge
from niah.benchmarks.seq_niah.procedures import procedures

ANSWER_GROUPS = ("GT", "Missing", "Redundant", "Incorrect")
SHUFFLES = ("w/o shuffle", "w/ shuffle")
#: (needle type, question) rows of paper Table 7
ROWS = (("Temporal order", "w/ order"), ("Temporal order", "w/o order"), ("Logical order", "w/ order"))

# --- relation timelines (real-temporal style) -------------------------------------------------------------

_PAIRS_EN = (("Serbia", "Kosovo"), ("Japan", "Iran"), ("Brazil", "Argentina"), ("Canada", "Mexico"),
             ("the European Union", "Turkey"), ("India", "Pakistan"), ("Egypt", "Ethiopia"),
             ("South Korea", "North Korea"), ("Chile", "Peru"), ("Kenya", "Somalia"))
_PAIRS_ZH = (("塞尔维亚", "科索沃"), ("日本", "伊朗"), ("巴西", "阿根廷"), ("加拿大", "墨西哥"), ("欧盟", "土耳其"),
             ("印度", "巴基斯坦"), ("埃及", "埃塞俄比亚"), ("韩国", "朝鲜"), ("智利", "秘鲁"), ("肯尼亚", "索马里"))
_RELATIONS = (
    ("{a} held consultations with {b}.", "{a}与{b}举行了磋商。"),
    ("{a} engaged in negotiations with {b}.", "{a}与{b}进行了谈判。"),
    ("{a} signed a trade agreement with {b}.", "{a}与{b}签署了贸易协定。"),
    ("{a} imposed economic sanctions on {b}.", "{a}对{b}实施了经济制裁。"),
    ("{a} accused {b} of violating the ceasefire.", "{a}指责{b}违反了停火协议。"),
    ("{a} hosted a visit by the foreign minister of {b}.", "{a}接待了{b}外交部长的访问。"),
    ("{a} expelled diplomats from {b}.", "{a}驱逐了{b}的外交官。"),
    ("{a} provided humanitarian aid to {b}.", "{a}向{b}提供了人道主义援助。"),
    ("{a} threatened {b} with a trade boycott.", "{a}威胁要对{b}实行贸易抵制。"),
    ("{a} praised the election held in {b}.", "{a}称赞了{b}举行的选举。"),
    ("{a} denied responsibility for an attack on {b}.", "{a}否认对针对{b}的袭击负责。"),
    ("{a} closed its border with {b}.", "{a}关闭了与{b}的边境。"),
    ("{a} reopened its embassy in {b}.", "{a}重新开放了驻{b}大使馆。"),
    ("{a} demanded the release of prisoners held by {b}.", "{a}要求{b}释放被关押的人员。"),
    ("{a} carried out joint military exercises with {b}.", "{a}与{b}举行了联合军事演习。"),
    ("{a} criticized the new border policy of {b}.", "{a}批评了{b}的新边境政策。"),
)

_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(slots=True)
class Case:
    """One judgement: question, gold text, the candidate response and the expected score."""

    needle_type: str  # "Temporal order" | "Logical order"
    question_order: str  # "w/ order" | "w/o order"
    group: str  # ANSWER_GROUPS
    shuffled: bool
    lang: str
    question: str
    gold: str
    response: str
    expected: int

    @property
    def column(self) -> tuple[str, str]:
        return self.group, SHUFFLES[int(self.shuffled)]


@dataclass(slots=True)
class _Qa:
    """A gold QA for the test: items as (date or None, event text), plus generators of wrong items."""

    lang: str
    kind: str  # "syn" | "tkg" | "logical"
    question: str
    gold: str
    items: list[tuple[date | None, str]]
    subject: str | None
    make_extra: Callable[[random.Random], tuple[date | None, str]]
    make_wrong: Callable[[random.Random, int], tuple[date | None, str]] | None = None


def _nearby_free_date(rng: random.Random, items: list[tuple[date | None, str]]) -> date:
    """A date 1-3 days from a gold date that is no gold date (a base with free neighbours is drawn)."""
    taken = {d for d, _ in items if d is not None}
    bases = sorted(taken)  # sorted: the set order of dates changes with the hash seed
    rng.shuffle(bases)
    for base in bases:
        free = [base + timedelta(days=o) for o in (-3, -2, -1, 1, 2, 3) if base + timedelta(days=o) not in taken]
        if free:
            return rng.choice(free)
    return max(taken) + timedelta(days=1)


def _syn_qa(rng: random.Random, lang: str, ordered: bool) -> _Qa:
    n = rng.randint(3, 15)
    rec = synth.synthetic_temporal_qa(rng, lang, n)
    rows = rec["extrainfo_diary"]
    name, title = rows[0][0], rows[0][1]
    items: list[tuple[date | None, str]] = [(date(r[4], r[5], r[6]), r[7]) for r in rows]
    if ordered:
        question = rec["question"]
    else:
        question = f"{title}的内容有哪些？" if lang == "zh" else f"What are the specific contents of {title}?"
    events = synth.ZH_EVENTS if lang == "zh" else synth.EN_EVENTS
    used = {e for _d, e in items}

    def new_event(r: random.Random) -> str:
        while True:
            ev = synth.random_event(r, lang, r.choice(events))
            # a new kind of day, not a gold event with a different slot filler
            if ev not in used and not any(_same_kind(ev, u) for u in used):
                return ev

    def extra(r: random.Random) -> tuple[date | None, str]:
        kind = r.random()
        if kind < 0.35:  # another person with the same surname (the official semantic noise)
            other = synth.same_surname_name(r, name, lang)
            d = _nearby_free_date(r, items)
            ev = new_event(r)
            if lang == "zh":
                return d, other + re.sub(r"^(今天|上午|下午|晚上|早上)", "", ev)
            return d, other + " " + ev[2:] if ev.startswith("I ") else other + ": " + ev
        if kind < 0.7:  # a new event on a nearby free date
            return _nearby_free_date(r, items), new_event(r)
        # a gold event again, under a nearby date it did not happen on
        _d, ev = r.choice(items)
        return _nearby_free_date(r, items), ev

    def wrong(r: random.Random, i: int) -> tuple[date | None, str]:
        d, ev = items[i]
        if r.random() < 0.5:  # the gold date with a different event
            return d, new_event(r)
        return _nearby_free_date(r, items), ev  # the gold event with a changed date

    return _Qa(lang, "syn", question, rec["answer"], items, name, extra, wrong)


def _same_kind(a: str, b: str) -> bool:
    """Two synthetic events from the same template (they differ only in slot fillers)."""
    if not re.search(r"[a-z]", a):  # Chinese: the same template once the time-of-day slot is taken off
        def strip(x: str) -> str:
            return re.sub(r"^(今天|上午|下午|晚上|早上)", "", x)
        return strip(a)[:4] == strip(b)[:4]
    wa, wb = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    return bool(wa and wb) and len(wa & wb) / min(len(wa), len(wb)) > 0.6


def _tkg_qa(rng: random.Random, lang: str, ordered: bool) -> _Qa:
    a, b = rng.choice(_PAIRS_ZH if lang == "zh" else _PAIRS_EN)
    n = rng.randint(3, 10)
    rels = rng.sample(_RELATIONS, n + 3)
    start = date(2000, 1, 1) + timedelta(days=rng.randrange(365 * 20))
    days = sorted(start + timedelta(days=o) for o in rng.sample(range(1, 365 * 8), n))
    li = 1 if lang == "zh" else 0

    def sentence(d: date, rel: tuple[str, str]) -> str:
        body = rel[li].format(a=a, b=b)
        return f"{answer_date(d, 'zh').replace('年0', '年').replace('月0', '月')}，{body}" if lang == "zh" \
            else f"On {answer_date(d, 'en')}, {body}"

    items: list[tuple[date | None, str]] = [(d, rel[li].format(a=a, b=b)) for d, rel in zip(days, rels, strict=False)]
    y1, y2 = days[0].year, days[-1].year
    if lang == "zh":
        question = (f"按时间顺序列出{y1}年至{y2}年间{a}与{b}之间的互动。" if ordered
                    else f"{y1}年至{y2}年间，{a}与{b}之间有哪些互动？")
        intro = f"{y1}年至{y2}年间，{a}与{b}之间的互动包括：\n"
    else:
        question = (f"List the interactions between {a} and {b} from {y1} to {y2} in chronological order."
                    if ordered else f"What were the key interactions between {a} and {b} from {y1} to {y2}?")
        intro = f"From {y1} to {y2}, {a} and {b} had the following interactions:\n"
    gold = intro + "\n".join(f"- {sentence(d, rel)}" for d, rel in zip(days, rels, strict=False))
    spare = rels[n:]

    def extra(r: random.Random) -> tuple[date | None, str]:
        if r.random() < 0.5:  # an event that did not happen, on a date near a gold one
            return _nearby_free_date(r, items), r.choice(spare)[li].format(a=a, b=b)
        _d, ev = r.choice(items)  # a gold event under a nearby wrong date
        return _nearby_free_date(r, items), ev

    def wrong(r: random.Random, i: int) -> tuple[date | None, str]:
        d, ev = items[i]
        if r.random() < 0.5:
            return d, r.choice(spare)[li].format(a=a, b=b)
        return _nearby_free_date(r, items), ev

    return _Qa(lang, "tkg", question, gold, items, None, extra, wrong)


def _logical_qa(rng: random.Random, lang: str) -> _Qa:
    proc = rng.choice(procedures(lang))
    items: list[tuple[date | None, str]] = [(None, s) for s in proc.steps]
    gold = proc.intro + "".join(f"\n{i}. {s}" for i, s in enumerate(proc.steps, 1))
    others = [s for p in procedures(lang) if p is not proc for s in p.steps]

    def extra(r: random.Random) -> tuple[date | None, str]:
        if r.random() < 0.75:
            return None, r.choice(proc.distractors)
        return None, r.choice(others)

    return _Qa(lang, "logical", proc.question, gold, items, None, extra, None)


# --- surface forms ----------------------------------------------------------------------------------------

_EN_SYNONYMS = (
    ("attended", "joined"), ("visited", "toured"), ("watched", "saw"), ("tried", "attempted"),
    ("bought", "purchased"), ("went for", "took"), ("participated in", "took part in"),
    ("photographs", "photos"), ("film", "movie"), ("lecture", "talk"), ("class", "lesson"),
    ("friends", "pals"), ("started", "began"), ("practiced", "practised"), ("held consultations", "consulted"),
    ("provided", "gave"), ("criticized", "criticised"), ("closed", "shut"), ("large", "big"),
    ("Fill", "Fill up"), ("Choose", "Pick"), ("Remove", "Take off"), ("Bring", "Get"), ("slowly", "gently"),
    ("completely", "fully"), ("gently", "carefully"),
)
_ZH_SYNONYMS = (("参观了", "游览了"), ("看了", "观看了"), ("买了", "购买了"), ("参加了", "参与了"), ("学习", "学"),
                ("阅读了", "读了"), ("尝试", "试着"), ("朋友", "好友"), ("进行了", "开展了"), ("选一个", "挑选一个"),
                ("慢慢", "缓缓"), ("立即", "马上"), ("轻轻", "慢慢地"))


def _paraphrase(rng: random.Random, text: str, lang: str, subject: str | None) -> str:
    """A light paraphrase: one or two of synonym swap, subject dropped or named, articles dropped, a
    trailing clause cut, punctuation changed."""
    out = text
    ops = rng.sample(range(6), rng.choice((1, 2)))
    for op in ops:
        if lang == "zh":
            if op == 0:
                pairs = [p for p in _ZH_SYNONYMS if p[0] in out]
                if pairs:
                    a, b = rng.choice(pairs)
                    out = out.replace(a, b, 1)
            elif op == 1 and subject:
                out = subject + out
            elif op == 2:
                out = out.rstrip("。")
            elif op == 3:
                out = out.replace("了", "", 1)
            elif op == 4:
                out = out.replace("，", ",")
            elif op == 5:
                out = re.sub(r"^(今天|上午|下午|晚上|早上)", "", out)
        else:
            if op == 0:
                pairs = [p for p in _EN_SYNONYMS if re.search(rf"\b{re.escape(p[0])}\b", out)]
                if pairs:
                    a, b = rng.choice(pairs)
                    out = re.sub(rf"\b{re.escape(a)}\b", b, out, count=1)
            elif op == 1 and out.startswith("I "):
                out = subject + " " + out[2:] if subject and rng.random() < 0.5 else out[2].upper() + out[3:]
            elif op == 2:
                out = re.sub(r"\b(a|an|the) ", "", out, count=2)
            elif op == 3 and " and " in out and out.index(" and ") > len(out) // 2:
                out = out[:out.index(" and ")] + "."
            elif op == 4:
                out = out.rstrip(".")
            elif op == 5 and out.startswith("I "):
                out = "Today I" + out[1:]
    return out or text


def _date_text(rng: random.Random, d: date, lang: str) -> str:
    month = MONTH_NAMES[d.month - 1]
    day_suffix = "th" if 11 <= d.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    en = (
        f"{d.year}-{d.month:02d}-{d.day:02d}", f"{d.year}/{d.month}/{d.day}", f"{d.year}.{d.month:02d}.{d.day:02d}",
        f"{month} {d.day}, {d.year}", f"{month} {d.day}{day_suffix}, {d.year}", f"{d.day} {month} {d.year}",
        f"{_EN_WEEKDAYS[d.weekday()]}, {month} {d.day}, {d.year}", f"{month[:3]}. {d.day}, {d.year}",
        f"{d.day}{day_suffix} of {month}, {d.year}", f"{month}-{d.day}-{d.year}",
    )
    zh = (f"{d.year}年{d.month}月{d.day}日", f"{d.year}年{d.month:02d}月{d.day:02d}日", f"{d.year}年{d.month}月{d.day}号",
          f"{d.year}-{d.month:02d}-{d.day:02d}", f"{d.year}/{d.month:02d}/{d.day:02d}")
    return rng.choice(zh if lang == "zh" else en)


def _render_item(rng: random.Random, d: date | None, event: str, lang: str, layout: int) -> str:
    if d is None:
        return event
    ds = _date_text(rng, d, lang)
    if lang == "zh":
        return (f"{ds}：{event}", f"{ds}，{event}", f"{event}（{ds}）", f"**{ds}**\n   - {event}",
                f"{ds} - {event}")[layout % 5]
    forms = (f"{ds}: {event}", f"On {ds}, {event}", f"{event.rstrip('.')} ({ds})", f"**{ds}**\n   - {event}",
             f"{ds} - {event}", f"{ds}：{event}")
    return forms[layout % len(forms)]


def _render_response(rng: random.Random, qa: _Qa, items: list[tuple[date | None, str]]) -> str:
    lang = qa.lang
    layout = rng.randrange(6)
    marker = rng.randrange(7 if qa.kind == "logical" else 6)
    lines: list[str] = []
    intros_en = ("", "Here are the entries in order:", "Based on the document, the items are:",
                 "The specific contents are as follows:")
    intros_zh = ("", "根据文档，内容如下：", "按时间顺序整理如下：", "相关内容如下：")
    intro = rng.choice(intros_zh if lang == "zh" else intros_en)
    if intro:
        lines.append(intro)
        if rng.random() < 0.5:
            lines.append("")
    for i, (d, ev) in enumerate(items, 1):
        body = _render_item(rng, d, _paraphrase(rng, ev, lang, qa.subject) if rng.random() < 0.6 else ev,
                            lang, layout)
        if marker == 0:
            lines.append(f"- {body}")
        elif marker == 1:
            lines.append(f"{i}. {body}")
        elif marker == 2:
            lines.append(f"{i}) {body}")
        elif marker == 3:
            lines.append(f"* {body}")
        elif marker == 4:
            lines.append(f"（{i}）{body}" if lang == "zh" else f"• {body}")
        elif marker == 5:
            lines.append(body if d is not None or qa.kind != "logical" else f"{i}. {body}")
        else:
            lines.append(f"第{i}步：{body}" if lang == "zh" else f"Step {i}: {body}")
    if rng.random() < 0.25:
        lines.append("")
        lines.append("以上就是全部内容。" if lang == "zh" else "These are all the items I found.")
    return "\n".join(lines)


# --- the test set -------------------------------------------------------------------------------------------

def _variant(rng: random.Random, qa: _Qa, group: str) -> list[tuple[date | None, str]]:
    items = list(qa.items)
    n = len(items)
    if group == "GT":
        return items
    if group == "Missing":
        drop = set(rng.sample(range(n), rng.randint(1, max(1, n // 3))))
        return [it for i, it in enumerate(items) if i not in drop]
    if group == "Redundant":
        out = list(items)
        for _ in range(rng.choice((1, 1, 2))):
            out.insert(rng.randrange(len(out) + 1), qa.make_extra(rng))
        return _date_sorted(out)
    # Incorrect: items dropped and items added; for dated items sometimes a gold item replaced by a wrong one
    if qa.make_wrong is not None and rng.random() < 0.5:
        i = rng.randrange(n)
        out = list(items)
        out[i] = qa.make_wrong(rng, i)
        return _date_sorted(out)
    drop = set(rng.sample(range(n), rng.randint(1, max(1, n // 3))))
    out = [it for i, it in enumerate(items) if i not in drop]
    for _ in range(rng.choice((1, 2))):
        out.insert(rng.randrange(len(out) + 1), qa.make_extra(rng))
    return _date_sorted(out)


def _date_sorted(items: list[tuple[date | None, str]]) -> list[tuple[date | None, str]]:
    """Dated items in date order (an answer that is wrong only in content, not in order); steps as they are."""
    if all(d is not None for d, _ in items):
        return sorted(items, key=lambda it: it[0] or date.min)
    return items


def _shuffle(rng: random.Random, items: list[tuple[date | None, str]]) -> list[tuple[date | None, str]]:
    if len(set(items)) < 2:
        return items
    out = list(items)
    while out == items:
        rng.shuffle(out)
    return out


def build_cases(n: int = 2000, *, seed: int = 0) -> list[Case]:
    """``n`` judgements spread evenly over rows x groups x shuffle x language, reproducible by ``seed``."""
    rng = random.Random(f"seq-niah-judge-test/{seed}")
    cells = [(row, group, shuffled, lang) for row in ROWS for group in ANSWER_GROUPS for shuffled in (False, True)
             for lang in ("en", "zh")]
    cases: list[Case] = []
    for k in range(n):
        (needle_type, q_order), group, shuffled, lang = cells[k % len(cells)]
        ordered = q_order == "w/ order"
        if needle_type == "Logical order":
            qa = _logical_qa(rng, lang)
        elif rng.random() < 0.6:
            qa = _syn_qa(rng, lang, ordered)
        else:
            qa = _tkg_qa(rng, lang, ordered)
        items = _variant(rng, qa, group)
        if shuffled:
            items = _shuffle(rng, items)
        expected = int(group == "GT" and (not shuffled or not ordered))
        cases.append(Case(needle_type, q_order, group, shuffled, lang, qa.question, qa.gold,
                          _render_response(rng, qa, items), expected))
    return cases


@dataclass(slots=True)
class JudgeTestResult:
    """Verdict counts per (row, column) of Table 7 and per (needle type, group) of Table 4."""

    cases: list[Case]
    verdicts: list[int]
    failures: list[tuple[Case, str]] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return sum(int(v == c.expected) for c, v in zip(self.cases, self.verdicts, strict=True)) / len(self.cases)

    def table7(self) -> dict[tuple[str, str], dict[tuple[str, str], tuple[int, int]]]:
        """(needle type, question) -> (group, shuffle) -> (judged incorrect, judged correct), as Table 7."""
        out: dict[tuple[str, str], dict[tuple[str, str], tuple[int, int]]] = {}
        for c, v in zip(self.cases, self.verdicts, strict=True):
            cell = out.setdefault((c.needle_type, c.question_order), {})
            inc, cor = cell.get(c.column, (0, 0))
            cell[c.column] = (inc + (v == 0), cor + (v == 1))
        return out

    def table4(self) -> dict[tuple[str, str], tuple[int, float]]:
        """(needle type, answer group) -> (number of judgements, accuracy %), as Table 4."""
        acc: dict[tuple[str, str], list[int]] = {}
        for c, v in zip(self.cases, self.verdicts, strict=True):
            acc.setdefault((c.needle_type, c.group), []).append(int(v == c.expected))
        return {k: (len(x), 100.0 * sum(x) / len(x)) for k, x in acc.items()}

    def by_language(self) -> dict[str, float]:
        acc: dict[str, list[int]] = {}
        for c, v in zip(self.cases, self.verdicts, strict=True):
            acc.setdefault(c.lang, []).append(int(v == c.expected))
        return {k: 100.0 * sum(x) / len(x) for k, x in acc.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "n": len(self.cases),
            "accuracy": 100.0 * self.accuracy,
            "table4": [{"needle_type": k[0], "group": k[1], "n": n, "accuracy": a}
                       for k, (n, a) in sorted(self.table4().items())],
            "table7": [{"needle_type": r[0], "question": r[1], "group": col[0], "shuffle": col[1],
                        "judged_incorrect": ic, "judged_correct": co}
                       for r, cells in self.table7().items() for col, (ic, co) in cells.items()],
            "by_language": self.by_language(),
        }


def run_judge_test(n: int = 2000, *, seed: int = 0,
                   judge_fn: Callable[[str, str, str], int] | None = None) -> JudgeTestResult:
    """Judge ``n`` cases (the deterministic judge unless ``judge_fn(question, gold, response) -> 0/1``)."""
    cases = build_cases(n, seed=seed)
    verdicts: list[int] = []
    failures: list[tuple[Case, str]] = []
    for c in cases:
        if judge_fn is None:
            score, reason = judge(c.question, c.gold, c.response)
        else:
            score, reason = judge_fn(c.question, c.gold, c.response), ""
        verdicts.append(score)
        if score != c.expected:
            failures.append((c, reason))
    return JudgeTestResult(cases, verdicts, failures)


def render_tables(result: JudgeTestResult) -> str:
    """Tables 4 and 7 of the paper as text, for this judge."""
    t4 = result.table4()
    lines = ["Table 4 layout: accuracy per needle type and answer group", "",
             f"{'Needle types':<16}{'Answer groups':<14}{'No.':>6}{'Acc. (%)':>10}"]
    for needle_type in ("Temporal order", "Logical order"):
        for group in ANSWER_GROUPS:
            if (needle_type, group) in t4:
                n, a = t4[(needle_type, group)]
                lines.append(f"{needle_type:<16}{group:<14}{n:>6}{a:>10.2f}")
    lines.append(f"{'Total/Avg.':<30}{len(result.cases):>6}{100 * result.accuracy:>10.2f}")
    lines += ["", "Table 7 layout: judged incorrect / judged correct per group (expected correct: GT w/o shuffle, "
              "and GT w/ shuffle when the question does not ask for order)", ""]
    header = f"{'Needle types':<16}{'Question':<11}" + "".join(
        f"{g + ' ' + s:>24}" for g in ANSWER_GROUPS for s in SHUFFLES)
    lines.append(header)
    t7 = result.table7()
    for row in ROWS:
        cells = t7.get(row, {})
        lines.append(f"{row[0]:<16}{row[1]:<11}" + "".join(
            f"{'{} / {}'.format(*cells.get((g, s), (0, 0))):>24}" for g in ANSWER_GROUPS for s in SHUFFLES))
    langs = result.by_language()
    lines += ["", "By language: " + ", ".join(f"{k.upper()} {v:.2f}%" for k, v in sorted(langs.items())),
              f"Misjudged: {len(result.failures)} of {len(result.cases)}"]
    return "\n".join(lines)


# --- hand-written answers and official model outputs -------------------------------------------------------

#: answer kinds of the hand-written set that a correct answer may take, then the kinds of wrong answers
CASE_KINDS = ("paraphrase-one", "paraphrase-all", "table", "note", "prose", "steps-paragraph", "merged", "split",
              "two-per-line", "other-language", "swapped", "replaced-counterpart", "missing", "wrong-order",
              "extra-item")


@dataclass(slots=True)
class LabelledAnswer:
    """One labelled answer: where it comes from, its kind, the expected verdict and the labeller's reason."""

    id: str
    kind: str
    question: str
    gold: str
    response: str
    expected: int
    why: str


def _data_path(name: str) -> Any:
    from importlib.resources import files

    return files("niah.benchmarks.seq_niah").joinpath("data", name)


def hand_written_cases() -> list[LabelledAnswer]:
    """The hand-written answer set (``data/judge_cases.json``): answers written for six questions (diaries,
    relation timelines and procedures, EN and ZH) in the layouts models use, labelled by the paper's rule."""
    import json

    doc = json.loads(_data_path("judge_cases.json").read_text(encoding="utf-8"))
    questions = doc["questions"]
    return [LabelledAnswer(c["id"], c["kind"], questions[c["question"]]["question"], questions[c["question"]]["answer"],
                           c["response"], int(c["expected"]), c["why"]) for c in doc["cases"]]


def official_cases(repo: Any) -> list[LabelledAnswer]:
    """The official model outputs labelled in ``data/judge_official_labels.json``, read from a checkout of the
    official repository at ``repo`` (the outputs are not shipped with niah). Kind: ``official-{model}``."""
    import json
    from pathlib import Path

    from niah.util.errors import DataError

    doc = json.loads(_data_path("judge_official_labels.json").read_text(encoding="utf-8"))
    root = Path(repo)

    def rows(rel: str) -> list[tuple[int, dict[str, Any]]]:
        path = root / rel
        if not path.is_file():
            raise DataError("not found: a checkout of the official Sequential-NIAH repository is needed",
                            file=path)
        out = []
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    out.append((lineno, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise DataError(f"invalid JSON: {exc.msg}", file=path, line=lineno) from None
        return out

    gold: dict[str, tuple[str, str]] = {}
    for lineno, row in rows(doc["gold_file"]):
        try:
            gold.setdefault(str(row["md5"]).split("_")[0], (str(row["raw_question"]), str(row["ref_answer"])))
        except KeyError as exc:
            raise DataError("missing", file=root / doc["gold_file"], line=lineno, field=exc.args[0]) from None
    answers: dict[tuple[str, str], str] = {}
    for model in sorted({lab["model"] for lab in doc["labels"]}):
        for kind, pattern in doc["result_files"].items():
            rel = pattern.format(model=model)
            key = "answer" if kind == "base" else model
            for lineno, row in rows(rel):
                if key not in row or "md5" not in row:
                    raise DataError("missing", file=root / rel, line=lineno, field=key if key not in row else "md5")
                answers[(model, str(row["md5"]))] = str(row[key])
    out = []
    for lab in doc["labels"]:
        question, answer = gold[lab["md5"].split("_")[0]]
        response = answers.get((lab["model"], lab["md5"]))
        if response is None:
            raise DataError(f"no output of {lab['model']} for md5 {lab['md5']}", file=root)
        out.append(LabelledAnswer(f"{lab['model']}/{lab['md5']}", f"official-{lab['model']}", question, answer,
                                  response, int(lab["expected"]), lab["why"]))
    return out


@dataclass(slots=True)
class AnswerSetResult:
    """Agreement of a judge with the labels, per answer kind and overall."""

    cases: list[LabelledAnswer]
    verdicts: list[int]
    reasons: list[str]

    @property
    def agreement(self) -> float:
        return sum(int(v == c.expected) for c, v in zip(self.cases, self.verdicts, strict=True)) / len(self.cases)

    def by_kind(self) -> dict[str, tuple[int, int]]:
        """kind -> (agreeing, total), in :data:`CASE_KINDS` order, then any other kinds."""
        out: dict[str, list[int]] = {}
        for c, v in zip(self.cases, self.verdicts, strict=True):
            out.setdefault(c.kind, [0, 0])
            out[c.kind][0] += int(v == c.expected)
            out[c.kind][1] += 1
        order = [k for k in CASE_KINDS if k in out] + sorted(k for k in out if k not in CASE_KINDS)
        return {k: (out[k][0], out[k][1]) for k in order}

    def disagreements(self) -> list[tuple[LabelledAnswer, int, str]]:
        return [(c, v, r) for c, v, r in zip(self.cases, self.verdicts, self.reasons, strict=True) if v != c.expected]

    def to_json(self) -> dict[str, Any]:
        return {"n": len(self.cases), "agreement": 100.0 * self.agreement,
                "by_kind": [{"kind": k, "n": n, "agreement": 100.0 * a / n} for k, (a, n) in self.by_kind().items()],
                "disagreements": [{"id": c.id, "kind": c.kind, "expected": c.expected, "verdict": v, "reason": r,
                                   "why": c.why} for c, v, r in self.disagreements()]}


def run_answer_set(cases: list[LabelledAnswer],
                   judge_fn: Callable[[str, str, str], tuple[int, str]] | None = None) -> AnswerSetResult:
    """Judge every labelled answer (the deterministic judge unless ``judge_fn`` gives ``(score, reason)``)."""
    fn = judge_fn or judge
    verdicts, reasons = [], []
    for c in cases:
        score, reason = fn(c.question, c.gold, c.response)
        verdicts.append(score)
        reasons.append(reason)
    return AnswerSetResult(cases, verdicts, reasons)


def render_answer_set(result: AnswerSetResult, title: str) -> str:
    """Agreement per answer kind as a text table, then the disagreements."""
    lines = [title, "", f"{'Answer kind':<28}{'No.':>6}{'Agree (%)':>11}"]
    for kind, (agree, n) in result.by_kind().items():
        lines.append(f"{kind:<28}{n:>6}{100.0 * agree / n:>11.1f}")
    lines.append(f"{'Total':<28}{len(result.cases):>6}{100.0 * result.agreement:>11.1f}")
    for c, v, r in result.disagreements():
        lines.append(f"  disagrees: {c.id} ({c.kind}) labelled {c.expected}, judged {v}: {r}")
    return "\n".join(lines)
