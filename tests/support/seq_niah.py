"""Sequential-NIAH fixtures written from the spec (never copied from the official files)."""

import hashlib
import random


def _md5(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def official_record(seed, lang="en", noise_type=None):
    """A record the way the official builder writes one (spec: insertion algorithm and record fields)."""
    rng = random.Random(seed)
    period = "。" if lang == "zh" else "."
    sentences = [f"第{i}句话讲的是一座小镇的历史{period}" if lang == "zh" else f"Sentence {i} tells the town's story{period} "
                 for i in range(120)]
    raw_text = "".join(sentences) + ("\n\n结尾没有句号" if lang == "zh" else "\n\nThe end without a period")
    raw_needles = ([f"王明记事\n2006年02月0{d}日：晚上读了第{d}本书。" for d in range(1, 5)] if lang == "zh" else
                   [f"Diary of Ann Lee\n\n2010-11-0{d}:I read book {d}." for d in range(1, 5)])
    needles = raw_needles[:]
    rng.shuffle(needles)
    positions = [i for i, c in enumerate(raw_text) if c == period]
    cuts = sorted(rng.sample(positions, len(needles)))
    bounds = [-1] + cuts + [len(raw_text) - 1]
    shards = [raw_text[s + 1:e + 1] for s, e in zip(bounds[:-1], bounds[1:], strict=True)]
    twn = "".join(sh + "\n" + n + "\n" for sh, n in zip(shards[:-1], needles, strict=True)) + shards[-1]
    question = "按日期罗列王明记事的内容" if lang == "zh" else "List the specific contents of Diary of Ann Lee in order."
    answer = ("按日期罗列王明记事的内容如下：" + "".join(f"\n- 2006年02月0{d}日：晚上读了第{d}本书。" for d in range(1, 5))
              if lang == "zh" else "The specific contents of Diary of Ann Lee are as follows:" +
              "".join(f"\n- November {d}, 2010：I read book {d}." for d in range(1, 5)))
    doc = rng.choice(["文档：", "文档:\n", ""] if lang == "zh" else ["Document: ", "Document:\n", ""])
    qp = rng.choice(["问题：", "回答以下问题：\n"] if lang == "zh" else ["Question: ", "Please answer the question:\n"])
    inp = doc + twn + "\n\n" + qp + question
    rec = {"md5": _md5(inp + answer), "length": 1234 + seed, "lang": lang, "num_needles": 4, "input": inp,
           "output": answer, "text_with_needles": twn,
           "meta_QA": {"md5": _md5(question + answer), "question": question, "answer": answer,
                       "raw_needles": raw_needles, "needles": needles, "source": "syn", "ppl": "syn"},
           "meta_text": {"md5": _md5(raw_text), "raw_text": raw_text, "source": "fixture", "length": 999}}
    if noise_type:
        rec["md5"] += "_1"
        rec["noise_type"] = noise_type
    return rec
