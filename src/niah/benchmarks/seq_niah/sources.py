"""QA sources for the real pipelines, read from user files and validated before any work starts.

Accepted, one record per JSONL line (or a JSON file holding a list of them):

* the official QA-source record: ``{"md5"?, "question", "answer", "needles": [...], "meta": {"source", "ppl",
  "lang", ...}}`` (``needles`` in gold order; ``meta.items`` for logical records, ``meta.relation_list`` for
  temporal ones) -- used as it is;
* real-temporal relations: a relation ``[head, relation, tail, "YYYY-MM-DD"]`` per line (grouped into one
  question per (head, tail) pair, in date order), or ``{"relations": [[...], ...], "lang"?}`` per question;
* real-logical items: ``{"question", "items": ["first step", ...], "needles"?: [...], "answer"?, "lang"?}``.

Every problem is a :class:`~niah.util.errors.DataError` naming file, line and field.
"""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path
from typing import Any

from niah.benchmarks.seq_niah.dates import answer_date
from niah.util.errors import DataError
from niah.util.iox import iter_jsonl, read_json_file

LANGS = ("en", "zh")
#: The official ``meta.ppl`` of each pipeline's QA records.
PPL_OF_PIPELINE = {"synthetic-temporal": "syn", "real-temporal": "tkg", "real-logical": "open"}
PIPELINE_OF_PPL = {v: k for k, v in PPL_OF_PIPELINE.items()}


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def read_records(path: str | Path) -> list[tuple[int, Any]]:
    """(line, object) for each record of a JSONL file, or (index + 1, item) for a JSON list file."""
    path = Path(path)
    if not path.is_file():
        raise DataError("source file not found", file=path)
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"["):
        try:
            data = read_json_file(path, what="source file", strict=True)
        except DataError:
            data = None  # not one JSON document: read it as JSONL (a relation array per line)
        if isinstance(data, list) and data and not all(isinstance(v, str) for v in data):
            return [(i + 1, obj) for i, obj in enumerate(data)]
    out = list(iter_jsonl(path, strict=True, what="source file"))
    if not out:
        raise DataError("the source file holds no records", file=path)
    return out


def _str(obj: dict[str, Any], name: str, file: Path, line: int, where: str = "") -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value.strip():
        raise DataError("must be a non-empty string", file=file, line=line, field=where + name)
    return value


def _str_list(value: Any, file: Path, line: int, field: str, *, min_len: int = 1) -> list[str]:
    if not isinstance(value, list) or len(value) < min_len or \
            not all(isinstance(v, str) and v.strip() for v in value):
        raise DataError(f"must be a list of at least {min_len} non-empty strings", file=file, line=line, field=field)
    return list(value)


def _lang(obj: dict[str, Any], default: str, file: Path, line: int, field: str) -> str:
    lang = obj.get("lang", default)
    if lang not in LANGS:
        raise DataError(f"must be one of {', '.join(LANGS)}, got {lang!r}", file=file, line=line, field=field)
    return str(lang)


def _relation(value: Any, file: Path, line: int, field: str) -> tuple[str, str, str, date]:
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(v, str) and v.strip() for v in value):
        raise DataError('a relation must be [head, relation, tail, "YYYY-MM-DD"] (four strings)',
                        file=file, line=line, field=field)
    try:
        d = date.fromisoformat(value[3])
    except ValueError:
        raise DataError(f"date {value[3]!r} is not YYYY-MM-DD", file=file, line=line, field=f"{field}[3]") from None
    return value[0], value[1], value[2], d


def _official(obj: dict[str, Any], file: Path, line: int, pipeline: str, default_lang: str) -> dict[str, Any]:
    question = _str(obj, "question", file, line)
    answer = _str(obj, "answer", file, line)
    needles = _str_list(obj.get("needles"), file, line, "needles")
    meta = obj.get("meta")
    if not isinstance(meta, dict):
        raise DataError("must be an object with source, ppl and lang", file=file, line=line, field="meta")
    lang = _lang(meta, default_lang, file, line, "meta.lang")
    if meta.get("source") == "open" and isinstance(meta.get("items"), list) and \
            len(meta["items"]) != len(needles):
        raise DataError("meta.items and needles must have the same length (official check)", file=file,
                        line=line, field="meta.items")
    wanted = PPL_OF_PIPELINE[pipeline]
    ppl = meta.get("ppl", "syn" if "extrainfo_diary" in obj or "extrainfo_diary" in meta else wanted)
    if not isinstance(ppl, str):
        raise DataError("must be a string", file=file, line=line, field="meta.ppl")
    if ppl != wanted:  # e.g. an official diary file given as the real-temporal source
        raise DataError(f"is {ppl!r} ({PIPELINE_OF_PPL.get(ppl, 'another pipeline')} record), but this source is "
                        f"for {pipeline}, which takes {wanted!r} records", file=file, line=line, field="meta.ppl")
    md5 = obj.get("md5") if isinstance(obj.get("md5"), str) else _md5(question + answer)
    out = dict(obj)
    out.update({"md5": md5, "question": question, "answer": answer, "needles": needles,
                "meta": {**meta, "lang": lang, "ppl": ppl, "source": meta.get("source", ppl)}})
    return out


def relation_needle(head: str, relation: str, tail: str, d: date, lang: str) -> str:
    """A relation written as a needle sentence (the relation's own words, quoted)."""
    if lang == "zh":
        return f"{answer_date(d, 'zh')}，{head}对{tail}采取了“{relation}”的行动。"
    return f"On {answer_date(d, 'en')}, {head} took the action \"{relation}\" towards {tail}."


def relations_qa(relations: list[tuple[str, str, str, date]], lang: str, source: str) -> dict[str, Any]:
    """A real-temporal QA record in the official shape from relations of one (head, tail) pair."""
    rels = sorted(relations, key=lambda r: r[3])
    head, tail = rels[0][0], rels[0][2]
    y1, y2 = rels[0][3].year, rels[-1][3].year
    needles = [relation_needle(h, r, t, d, lang) for h, r, t, d in rels]
    if lang == "zh":
        question = f"按时间顺序列出{y1}年至{y2}年间{head}与{tail}之间的互动。"
        answer = f"{y1}年至{y2}年间，{head}与{tail}之间的互动如下：\n\n" + "\n".join(f"- {n}" for n in needles)
    else:
        question = f"List the interactions between {head} and {tail} from {y1} to {y2} in chronological order."
        answer = (f"From {y1} to {y2}, {head} and {tail} had the following interactions:\n\n"
                  + "\n".join(f"- {n}" for n in needles))
    return {
        "md5": _md5(question + answer), "question": question, "answer": answer, "needles": needles,
        "meta": {"entity_A": head, "entity_B": tail,
                 "relation_list": [[h, r, t, d.isoformat()] for h, r, t, d in rels], "raw_needles": needles,
                 "source": source, "ppl": "tkg", "lang": lang},
    }


def logical_qa(question: str, items: list[str], needles: list[str] | None, answer: str | None, lang: str,
               source: str) -> dict[str, Any]:
    """A real-logical QA record in the official shape (numbered gold answer unless one is given)."""
    if answer is None:
        head = "步骤如下：" if lang == "zh" else "The steps are as follows:"
        answer = head + "".join(f"\n{i}. {s}" for i, s in enumerate(items, 1))
    needles = needles if needles is not None else list(items)
    return {"md5": _md5(question + answer), "question": question, "answer": answer, "needles": needles,
            "meta": {"items": items, "source": source, "ppl": "open", "lang": lang}}


def _no_repeats(values: list[Any], file: Path, line: int, field: str) -> None:
    """Refuse a needle list holding one needle twice (the order-aware judge could never match its gold)."""
    seen: dict[Any, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            raise DataError(f"repeats {field}[{seen[value]}]", file=file, line=line, field=f"{field}[{i}]")
        seen[value] = i


def load_source(path: str | Path, pipeline: str, *, lang: str = "en") -> list[dict[str, Any]]:
    """Validated QA records (official QA-source shape) for ``pipeline`` from a user file; ``lang`` is the
    language of records that do not name one."""
    if pipeline not in ("real-temporal", "real-logical"):
        raise ValueError(pipeline)
    file = Path(path)
    records: list[dict[str, Any]] = []
    groups: dict[tuple[str, str, str], list[tuple[str, str, str, date]]] = {}
    order: list[tuple[str, str, str]] = []
    first_line: dict[tuple[str, str, str, date], int] = {}
    for line, obj in read_records(file):
        if isinstance(obj, list):
            if pipeline != "real-temporal":
                raise DataError("a bare relation line only makes sense for real-temporal", file=file, line=line)
            rel = _relation(obj, file, line, "relation")
            if rel in first_line:  # the same needle twice: a gold list no answer can match exactly
                raise DataError(f"repeats the relation of line {first_line[rel]}", file=file, line=line,
                                field="relation")
            first_line[rel] = line
            key = (rel[0], rel[2], lang)
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(rel)
            continue
        if not isinstance(obj, dict):
            raise DataError("a record must be a JSON object or a relation list", file=file, line=line)
        if "text_with_needles" in obj or ("raw_question" in obj and "question" in obj):
            raise DataError("an official benchmark file (builder output or test format), not a QA source: "
                            "read it with niah import seq-niah", file=file, line=line)
        if "needles" in obj and "answer" in obj and "items" not in obj and "relations" not in obj:
            records.append(_official(obj, file, line, pipeline, lang))
            continue
        rec_lang = _lang(obj, lang, file, line, "lang")
        source = obj.get("source", file.stem)
        if not isinstance(source, str):
            raise DataError("must be a string", file=file, line=line, field="source")
        if pipeline == "real-temporal":
            raw = obj.get("relations")
            if not isinstance(raw, list) or len(raw) < 2:
                raise DataError("must be a list of at least two relations", file=file, line=line, field="relations")
            rels = [_relation(r, file, line, f"relations[{i}]") for i, r in enumerate(raw)]
            _no_repeats(rels, file, line, "relations")
            records.append(relations_qa(rels, rec_lang, source))
        else:
            question = _str(obj, "question", file, line)
            items = _str_list(obj.get("items"), file, line, "items", min_len=2)
            _no_repeats(items, file, line, "items")
            needles = None
            if "needles" in obj:
                needles = _str_list(obj.get("needles"), file, line, "needles")
                if len(needles) != len(items):
                    raise DataError("needles and items must have the same length", file=file, line=line,
                                    field="needles")
            answer = obj.get("answer")
            if answer is not None and (not isinstance(answer, str) or not answer.strip()):
                raise DataError("must be a non-empty string", file=file, line=line, field="answer")
            records.append(logical_qa(question, items, needles, answer, rec_lang, source))
    for key in order:
        rels = groups[key]
        if len(rels) >= 2:
            records.append(relations_qa(rels, key[2], file.stem))
    if not records:
        raise DataError("no usable QA records (relations need at least two per head/tail pair)", file=file)
    return records
