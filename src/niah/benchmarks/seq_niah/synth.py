"""Synthetic-temporal QA: generated people, diary titles, dated events, in the official templates.

A QA record has the official QA-source shape (``md5, question, answer, needles, extrainfo_diary, meta``):
``extrainfo_diary`` rows are ``[name, title, date as written, canonical date, year, month, day, event]`` and
``needles`` are in gold (chronological) order. Every choice comes from one ``random.Random``, so a seed gives
the same records, and the pools multiply out to far more distinct questions than any build needs.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from niah.benchmarks.seq_niah.dates import DATE_STYLES, answer_date, format_date

EN_GIVEN = (
    "James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth",
    "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
    "Daniel", "Nancy", "Matthew", "Lisa", "Anthony", "Margaret", "Mark", "Sandra", "Steven", "Ashley",
    "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle", "Kevin", "Carol", "Brian", "Amanda",
    "George", "Melissa", "Edward", "Deborah", "Ronald", "Stephanie", "Timothy", "Rebecca", "Jason", "Laura",
)
EN_SURNAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
    "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
    "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
)
ZH_SURNAMES = ("王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭", "何",
               "高", "林", "罗", "郑", "梁", "谢", "宋", "唐", "许", "韩", "冯", "邓", "曹")
ZH_GIVEN_CHARS = ("伟", "芳", "娜", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟", "涛", "明",
                  "超", "秀", "霞", "平", "刚", "桂", "慧", "聪", "建", "华", "文", "博", "宇", "欣", "佳", "琳",
                  "浩", "然", "思", "婷", "晨", "子", "雨", "泽")

EN_TITLES = ("Diary of {name}", "Record of {name}", "Daily summary of {name}")
ZH_TITLES = ("{name}记事", "{name}的日记", "{name}日记")

#: Between title and date, and between date and event, as the official needles write them.
#: Whitespace inside a needle is only what the haystack also has (one space between words; line breaks, which the
#: haystack's layout draws from the same two runs): the official three-space separator is left out in English,
#: and Chinese needles take no space at all (the Chinese haystack has almost none), so neither their separators
#: nor their date formats put one in.
EN_TITLE_SEPS = ("\n\n", "\n", "-", " :", ":", " ")
EN_DATE_SEPS = (":", "\n", "\n\n", ", ", " :")
ZH_TITLE_SEPS = ("\n\n", "\n", "-", "：")
ZH_DATE_SEPS = ("，", "：", "\n", "\n\n")
#: Date formats of Chinese needles: the official ones without a space (``2010-11-06``, ``2010/11/06``,
#: ``November-06-2010``, ``2006年02月04日``).
ZH_DATE_STYLES = ("iso", "slash", "month-dash", "zh")
#: How often a separator is a line break (blank line or newline, evenly), per language. A broken needle puts a
#: line without a sentence end (its title, its date) in the text; at these rates such lines are as common among
#: needle lines as headings and titles are among the embedded corpus's lines (about 1 in 2 English, 1 in 2.6
#: Chinese, per sentence-ending line), so that a line lacking a full stop says nothing about being a needle.
LINE_BREAK_SHARE = {"en": 0.25, "zh": 0.2}
#: Lines without a sentence end (titles, headings; list items aside) per line with one, in the embedded corpus
#: LINE_BREAK_SHARE was set for (measured: 0.569 English, 0.368 Chinese; a little under, so that the embedded
#: corpus keeps the full share).
EMBEDDED_BARE_LINES = {"en": 0.56, "zh": 0.36}


def line_break_share(lang: str, bare_lines: float) -> float:
    """How often a separator breaks the line in a haystack whose lines without a sentence end number
    ``bare_lines`` per line with one: LINE_BREAK_SHARE where the corpus has as many as the embedded one, less
    where it has fewer, none where it has none. A corpus of plain prose (no title or heading) had every short
    line without a full stop in its haystacks come from a needle: the audit's whitespace finder read 41.2
    against 2.0 on a build from one."""
    return LINE_BREAK_SHARE[lang] * min(1.0, bare_lines / EMBEDDED_BARE_LINES[lang])


def _separator(rng: random.Random, options: tuple[str, ...], share: float) -> str:
    breaks = [o for o in options if "\n" in o]
    inline = [o for o in options if "\n" not in o]
    return rng.choice(breaks if rng.random() < share else inline)

_DISHES = ("Japanese sushi", "a new Chinese dish", "homemade Italian pasta", "Mexican tacos", "an Indian curry",
           "French crepes", "Korean bibimbap", "a Thai green curry", "a Spanish paella", "Greek moussaka")
_TOPICS = ("artificial intelligence", "climate change", "ancient Roman history", "marine biology",
           "urban planning", "modern poetry", "space exploration", "renewable energy", "behavioural economics",
           "medieval architecture")
_PLACES = ("the city museum", "a historic mansion", "the botanical garden", "the old harbour", "a local winery",
           "the science centre", "a hilltop monastery", "the riverside market", "the national library",
           "an abandoned lighthouse")

#: English events: each template is one kind of day; a sample never uses a kind twice.
EN_EVENTS = (
    "I tried making {dish} at home{when} and was quite proud of the result.",
    "I attended a lecture on {topic} at the university{when}.",
    "I practiced yoga at home{when} to stay fit and relaxed.",
    "I watched a live theater performance at the city center{when}.",
    "I volunteered at a local food bank{when} to help those in need.",
    "I visited {place}{when} and took plenty of photographs.",
    "I went for a long bike ride along the coastal trail{when}.",
    "I participated in a photography workshop and learned about composition and lighting.",
    "I joined a virtual book club meeting{when} and discussed a gripping mystery novel.",
    "I went hiking with friends in the hills{when} and enjoyed the scenery.",
    "I spent the afternoon at the library reading about {topic}.",
    "I went to a jazz concert downtown{when} and stayed until the last encore.",
    "I repaired the old wooden fence in the back garden{when}.",
    "I had dinner with my parents at a small seafood restaurant{when}.",
    "I started learning to play the violin with an online course.",
    "I planted tomatoes and basil in the vegetable patch{when}.",
    "I went swimming at the public pool{when} and managed forty lengths.",
    "I wrote a long letter to an old school friend{when}.",
    "I attended a pottery class{when} and shaped my first bowl.",
    "I helped my neighbour move furniture into her new flat.",
    "I went to the farmers market{when} and bought fresh strawberries.",
    "I watched a documentary about {topic}{when}.",
    "I cleaned out the attic and found a box of childhood drawings.",
    "I took my nephew to the zoo{when} to see the new panda cubs.",
    "I went ice skating at the outdoor rink{when}.",
    "I baked a chocolate cake for a colleague's birthday.",
    "I joined a charity run in the park{when} and finished in under an hour.",
    "I went fishing at the lake with my uncle{when}.",
    "I attended a wine tasting event at a vineyard{when}.",
    "I visited my grandmother in the countryside and helped her pick apples.",
    "I went to a board game night at a friend's house{when}.",
    "I gave a presentation about {topic} at work{when}.",
    "I went camping by the river and watched the stars.",
    "I took a cooking class and learned to make {dish}.",
    "I explored the antique shops in the old town{when}.",
    "I attended a friend's wedding in a seaside chapel.",
    "I went to the dentist{when} for a routine check-up.",
    "I spent the day painting watercolour landscapes on the balcony.",
    "I went to see a football match at the stadium{when}.",
    "I visited an art gallery{when} and admired the contemporary sculptures.",
)
_EN_WHEN = ("", " in the morning", " in the afternoon", " in the evening", " this morning", " tonight")

_ZH_DISHES = ("红烧肉", "宫保鸡丁", "日式寿司", "意大利面", "麻婆豆腐", "韩式拌饭", "法式可丽饼", "西班牙海鲜饭")
_ZH_TOPICS = ("人工智能", "气候变化", "古罗马历史", "海洋生物", "城市规划", "现代诗歌", "太空探索", "可再生能源")
_ZH_PLACES = ("城市博物馆", "一座古老的庄园", "植物园", "老码头", "一家本地酒庄", "科技馆", "山顶的寺庙", "河边的集市",
              "国家图书馆", "一座废弃的灯塔")
ZH_EVENTS = (
    "{when}在家尝试做了{dish}，味道相当不错。",
    "{when}去大学听了一场关于{topic}的讲座。",
    "{when}在家练习瑜伽，让身体保持放松。",
    "{when}在市中心看了一场话剧演出。",
    "{when}去社区食物银行做志愿者，帮助有需要的人。",
    "{when}参观了{place}，拍了很多照片。",
    "{when}沿着海边的步道骑了很久的自行车。",
    "参加了一个摄影工作坊，学习了构图和用光。",
    "{when}参加了线上读书会，讨论了一本悬疑小说。",
    "{when}和朋友去爬山，欣赏了沿途的风景。",
    "下午在图书馆阅读了有关{topic}的书。",
    "{when}去听了一场爵士音乐会，一直待到最后。",
    "{when}修好了后院那道旧木栅栏。",
    "{when}和父母在一家海鲜小馆吃了晚饭。",
    "开始通过网课学习拉小提琴。",
    "{when}在菜园里种下了番茄和罗勒。",
    "{when}去公共泳池游泳，游了四十个来回。",
    "{when}给一位老同学写了一封长信。",
    "{when}上了一节陶艺课，做出了第一个碗。",
    "帮邻居把家具搬进了她的新公寓。",
    "{when}去农贸市场买了新鲜的草莓。",
    "{when}看了一部关于{topic}的纪录片。",
    "收拾阁楼时找到了一箱小时候的画。",
    "{when}带侄子去动物园看新出生的熊猫宝宝。",
    "{when}去户外冰场滑冰。",
    "为同事的生日烤了一个巧克力蛋糕。",
    "{when}在公园参加了慈善跑，不到一小时就跑完了。",
    "{when}和叔叔去湖边钓鱼。",
    "{when}去一家酒庄参加了品酒会。",
    "去乡下看望奶奶，帮她摘了苹果。",
    "{when}在朋友家玩了一晚上桌游。",
    "{when}在公司做了一场关于{topic}的报告。",
    "在河边露营，晚上看了星星。",
    "上了一节烹饪课，学会了做{dish}。",
    "{when}逛了老城区的古董店。",
    "参加了朋友在海边教堂举行的婚礼。",
    "{when}去牙医那里做了例行检查。",
    "在阳台上画了一整天水彩风景画。",
    "{when}去体育场看了一场足球比赛。",
    "{when}去美术馆欣赏了当代雕塑作品。",
)
_ZH_WHEN = ("", "今天", "上午", "下午", "晚上", "早上")


@dataclass(frozen=True, slots=True)
class DiaryEntry:
    name: str
    title: str
    written_date: str
    day: date
    event: str
    needle: str

    def extrainfo(self, lang: str) -> list[Any]:
        # the canonical date in the record's language, as the official records have it (November 6, 2010 in
        # English, 2006年02月04日 in Chinese)
        canonical = answer_date(self.day, lang)
        return [self.name, self.title, self.written_date, canonical, self.day.year, self.day.month,
                self.day.day, self.event]


def random_name(rng: random.Random, lang: str) -> str:
    if lang == "zh":
        given = "".join(rng.sample(ZH_GIVEN_CHARS, rng.choice((1, 2))))
        return rng.choice(ZH_SURNAMES) + given
    return f"{rng.choice(EN_GIVEN)} {rng.choice(EN_SURNAMES)}"


def same_surname_name(rng: random.Random, name: str, lang: str) -> str:
    """Another person with ``name``'s surname (the official semantic-noise rule)."""
    while True:
        other = random_name(rng, lang)
        other = name[0] + other[1:] if lang == "zh" else other.split()[0] + " " + name.split()[-1]
        if other != name:
            return other


def random_event(rng: random.Random, lang: str, template: str) -> str:
    if lang == "zh":
        return template.format(when=rng.choice(_ZH_WHEN), dish=rng.choice(_ZH_DISHES),
                               topic=rng.choice(_ZH_TOPICS), place=rng.choice(_ZH_PLACES))
    return template.format(when=rng.choice(_EN_WHEN), dish=rng.choice(_DISHES), topic=rng.choice(_TOPICS),
                           place=rng.choice(_PLACES))


def render_needle(rng: random.Random, title: str, day: date, event: str, lang: str,
                  break_share: float | None = None) -> tuple[str, str]:
    """(needle text, date as written): title, a separator, the date in a random official format, a
    separator, the event; a separator breaks the line ``break_share`` of the time (default the embedded
    corpus's, ``LINE_BREAK_SHARE``)."""
    share = LINE_BREAK_SHARE[lang] if break_share is None else break_share
    # ZH needles use the official formats without a space (English ones included); EN never the Chinese one
    style = rng.choice(ZH_DATE_STYLES if lang == "zh" else tuple(s for s in DATE_STYLES if s != "zh"))
    written = format_date(day, style)
    if lang == "zh":
        return (title + _separator(rng, ZH_TITLE_SEPS, share) + written + _separator(rng, ZH_DATE_SEPS, share)
                + event, written)
    return (title + _separator(rng, EN_TITLE_SEPS, share) + written + _separator(rng, EN_DATE_SEPS, share) + event,
            written)


def question_text(title: str, lang: str) -> str:
    """The official synthetic-temporal question."""
    return f"按日期罗列{title}的内容" if lang == "zh" else f"List the specific contents of {title} in order."


def answer_text(title: str, entries: list[tuple[date, str]], lang: str) -> str:
    """The official gold answer: intro line, then ``- {date}：{event}`` per entry (full-width colon)."""
    head = f"按日期罗列{title}的内容如下：" if lang == "zh" else f"The specific contents of {title} are as follows:"
    return head + "".join(f"\n- {answer_date(d, lang)}：{e}" for d, e in entries)


def qa_md5(question: str, answer: str) -> str:
    return hashlib.md5((question + answer).encode("utf-8")).hexdigest()


def synthetic_temporal_qa(rng: random.Random, lang: str, num_needles: int,
                          break_share: float | None = None) -> dict[str, Any]:
    """One synthetic-temporal QA record in the official QA-source shape (needles in gold order); ``break_share``
    as :func:`render_needle` takes it."""
    events = ZH_EVENTS if lang == "zh" else EN_EVENTS
    if not 1 <= num_needles <= len(events):
        raise ValueError(f"num_needles must be 1..{len(events)}")
    name = random_name(rng, lang)
    title = rng.choice(ZH_TITLES if lang == "zh" else EN_TITLES).format(name=name)
    start = date(1990, 1, 1) + timedelta(days=rng.randrange(365 * 35))
    span = max(30, num_needles + 5)  # dates increase within about a month
    offsets = sorted(rng.sample(range(span), num_needles))
    kinds = rng.sample(events, num_needles)
    entries: list[DiaryEntry] = []
    for off, kind in zip(offsets, kinds, strict=True):
        day = start + timedelta(days=off)
        event = random_event(rng, lang, kind)
        needle, written = render_needle(rng, title, day, event, lang, break_share)
        entries.append(DiaryEntry(name, title, written, day, event, needle))
    question = question_text(title, lang)
    answer = answer_text(title, [(e.day, e.event) for e in entries], lang)
    return {
        "md5": qa_md5(question, answer),
        "question": question,
        "answer": answer,
        "needles": [e.needle for e in entries],
        "extrainfo_diary": [e.extrainfo(lang) for e in entries],
        "meta": {"source": "syn", "ppl": "syn", "lang": lang},
    }
