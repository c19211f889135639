"""Official Sequential-NIAH files in and out, unchanged.

Read:

* builder output (``NIAH_{lang}.jsonl``, noise files ``NIAH_*_noise.jsonl``): ``md5, length, lang, num_needles,
  input, output, text_with_needles, meta_QA{md5, question, answer, raw_needles, needles, source, ppl},
  meta_text{md5, raw_text, source, length}`` and, in noise files, ``noise_type``;
* the inference-ready test format: ``md5, length, question`` (the whole prompt), ``raw_question`` and
  ``ref_answer`` (or ``gt_answer``).

Both become niah samples (benchmark ``seq-niah``) whose official prompt (:func:`.build.prompt_text`) is the
file's ``input`` / ``question`` byte for byte. Builder records keep every field the official code reads in
``meta`` (needles with their offsets, prefixes, ``meta_QA``/``meta_text`` provenance), so
:func:`export_builder` writes them back equal; ``raw_text`` is not stored twice when it is the text with the
needle lines taken out (the official noise scripts' own check), and stored when it is not.

Write: the builder format (:func:`export_builder`) and the result files the official repository ships
(``{"md5", "answer"}`` per line for test inference, ``{"md5", "<model>"}`` for noise inference:
:func:`write_results`). Needle depths of imported samples are character fractions of the input
(``meta.depth_unit = "chars"``): the official files carry no token positions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from niah.benchmarks.seq_niah.build import (
    BENCHMARK,
    DOC_PREFIXES,
    JOINER,
    QUESTION_PREFIXES,
    length_bin,
    needle_group,
    prompt_text,
    raw_text_of,
)
from niah.sample import Sample, TextPart, check_sample_values
from niah.util.errors import DataError
from niah.util.iox import dumps_line, iter_jsonl, write_atomic

PIPELINE_OF_PPL = {"syn": "synthetic-temporal", "tkg": "real-temporal", "open": "real-logical"}
NOISE_TYPES = ("little_moving", "large_moving", "order")
#: niah's noise kind of each official ``noise_type`` (semantic noise: ``syn_*``, ``tkg_*``, ``open_*``).
NOISE_KIND_OF_TYPE = {"little_moving": "tiny-move", "large_moving": "big-move", "order": "reorder"}
#: The official noise scripts number variants 1-3 tiny, 4-6 big movement, 7-9 reorder; the semantic ones come
#: after. The inference-ready noise file names no noise type, so its kind is read from this numbering.
KIND_OF_NUMBER = ((3, "tiny-move"), (6, "big-move"), (9, "reorder"))


def noise_kind(noise_type: str) -> str:
    """niah's noise kind of an official ``noise_type``."""
    if noise_type in NOISE_KIND_OF_TYPE:
        return NOISE_KIND_OF_TYPE[noise_type]
    return "semantic" if noise_type.split("_", 1)[0] in ("syn", "tkg", "open") else noise_type


def _split_md5(md5: str) -> tuple[str, int] | None:
    """(base md5, variant number) of an official noise md5 ``{md5}_{i}``, or None."""
    base, _, tail = md5.rpartition("_")
    return (base, int(tail)) if base and tail.isdigit() else None


def link_noise(samples: list[Sample]) -> list[Sample]:
    """Mark the noise links of imported official samples in place: a variant (``{md5}_{i}`` whose base md5
    names a sample, or any record with a ``noise_type``) gets ``meta.variant_of`` and ``meta.noise_kind``
    (from its ``noise_type``, else from the official numbering, ``meta.noise_kind_from = "numbering"``); a base
    that has variants gets ``noise_kind = "base"``. Variants are then kept out of plain accuracy and scored as
    noise (consistency, Table 5)."""
    ids = {s.id for s in samples}
    bases: set[str] = set()
    for s in samples:
        split = _split_md5(s.id)
        noise_type = s.meta.get("noise_type")
        if split is None or not (isinstance(noise_type, str) or split[0] in ids or "variant" in s.meta):
            continue
        base, number = split
        s.meta["variant_of"] = base
        s.meta["variant"] = number
        if isinstance(noise_type, str):
            s.meta["noise_kind"] = noise_kind(noise_type)
        else:
            s.meta["noise_kind"] = next((k for top, k in KIND_OF_NUMBER if number <= top), "semantic")
            s.meta["noise_kind_from"] = "numbering"
        bases.add(base)
    for s in samples:
        if s.id in bases and "variant_of" not in s.meta:
            s.meta["noise_kind"] = "base"
    return samples


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def _need(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], file: Path, line: int,
          where: str = "") -> Any:
    value = obj.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        what = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise DataError(f"missing or not a {what}", file=file, line=line, field=where + name)
    return value


def _needle_positions(text: str, needles: list[str], file: Path, line: int) -> list[int]:
    """Offsets of each needle in inserted order, searched left to right: on its own line
    (``"\\n" + needle + "\\n"``, the official layout) where it stands so, else wherever it stands (niah's
    builder places needles like the text's sentences, many continuing a line)."""
    out: list[int] = []
    start = 0
    for i, n in enumerate(needles):
        own_line = text.find("\n" + n + "\n", start)
        at = own_line + 1 if own_line >= 0 else text.find(n, start)
        if at < 0:
            raise DataError("needle not found in text_with_needles (after the previous one)",
                            file=file, line=line, field=f"meta_QA.needles[{i}]")
        out.append(at)
        start = at + len(n)
    return out


def _frame_from_text(sample: Sample, raw_text: str) -> bool:
    """Give each needle of an imported sample the frame niah's builder writes (``before``: the whitespace
    between the sentence end and the needle, nothing after it or replaced) when that recovers ``raw_text``
    exactly; False (sample unchanged) when it does not."""
    context = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    needles = sample.meta["needles"]
    framed = []
    prev = len(sample.meta.get("doc_prefix", ""))
    for nd in sorted(needles, key=lambda n: n["offset"]):
        head = context[prev:nd["offset"]]
        framed.append({**nd, "before": head[len(head.rstrip()):], "after": "", "replaced": ""})
        prev = nd["offset"] + len(nd["text"])
    trial = Sample(id=sample.id, benchmark=sample.benchmark, task=sample.task, context=sample.context,
                   question=sample.question, answer=sample.answer, meta={**sample.meta, "needles": framed})
    if raw_text_of(trial) != raw_text:
        return False
    by_index = {n["inserted_index"]: n for n in framed}
    sample.meta["needles"] = [by_index[n["inserted_index"]] for n in needles]
    return True


def _gold_indices(needles: list[str], raw: list[str], file: Path, line: int) -> list[int]:
    free = list(range(len(raw)))
    out: list[int] = []
    for i, n in enumerate(needles):
        hit = next((g for g in free if raw[g] == n), None)
        if hit is None:
            raise DataError("needle is not among raw_needles", file=file, line=line, field=f"meta_QA.needles[{i}]")
        free.remove(hit)
        out.append(hit)
    return out


def builder_record_to_sample(obj: Any, *, file: str | Path = "<input>", line: int = 0) -> Sample:
    """One builder-output record as a sample (see the module docstring)."""
    file = Path(file)
    if not isinstance(obj, dict):
        raise DataError("a record must be a JSON object", file=file, line=line)
    md5 = _need(obj, "md5", str, file, line)
    inp = _need(obj, "input", str, file, line)
    output = _need(obj, "output", str, file, line)
    twn = _need(obj, "text_with_needles", str, file, line)
    lang = _need(obj, "lang", str, file, line)
    length = _need(obj, "length", int, file, line)
    if lang not in DOC_PREFIXES:
        raise DataError(f"lang must be en or zh, got {lang!r}", file=file, line=line, field="lang")
    mq = _need(obj, "meta_QA", dict, file, line)
    mt = _need(obj, "meta_text", dict, file, line)
    question = _need(mq, "question", str, file, line, "meta_QA.")
    needles = _need(mq, "needles", list, file, line, "meta_QA.")
    raw_needles = _need(mq, "raw_needles", list, file, line, "meta_QA.")
    for where, lst in (("meta_QA.needles", needles), ("meta_QA.raw_needles", raw_needles)):
        for i, n in enumerate(lst):
            if not isinstance(n, str) or not n:
                raise DataError("must be a non-empty string", file=file, line=line, field=f"{where}[{i}]")
    if len(needles) != len(raw_needles):
        raise DataError("needles and raw_needles differ in length", file=file, line=line, field="meta_QA.needles")
    raw_text = _need(mt, "raw_text", str, file, line, "meta_text.")
    at = inp.find(twn)
    doc_prefix = inp[:at] if at >= 0 else None
    if doc_prefix is None or doc_prefix not in DOC_PREFIXES[lang]:
        raise DataError("input is not document prefix + text_with_needles (the official document-first layout)",
                        file=file, line=line, field="input")
    rest = inp[at + len(twn):]
    if not rest.startswith(JOINER) or not rest.endswith(question):
        raise DataError("input does not end with a blank line, a question prefix and meta_QA.question", file=file,
                        line=line, field="input")
    question_prefix = rest[len(JOINER):len(rest) - len(question)]
    offsets = _needle_positions(twn, needles, file, line)
    gold = _gold_indices(needles, raw_needles, file, line)
    ppl = mq.get("ppl")
    pipeline = PIPELINE_OF_PPL.get(str(ppl), "unknown")
    context = doc_prefix + twn
    total = len(inp)
    needles_meta = [{"text": n, "gold_index": g, "inserted_index": i, "offset": len(doc_prefix) + off,
                     "depth": round((len(doc_prefix) + off) / total, 6)}
                    for i, (n, g, off) in enumerate(zip(needles, gold, offsets, strict=True))]
    meta: dict[str, Any] = {
        "lang": lang, "pipeline": pipeline, "ppl": ppl, "source": mq.get("source"), "length": length,
        "length_bin": length_bin(length), "num_needles": obj.get("num_needles", len(needles)),
        "needle_group": needle_group(len(needles)), "tokenizer": "cl100k_base",
        "doc_prefix": doc_prefix, "question_prefix": question_prefix, "joiner": JOINER,
        "needles": needles_meta, "raw_needles": list(raw_needles), "depth": [n["depth"] for n in needles_meta],
        "depth_unit": "chars", "md5": md5, "qa_md5": mq.get("md5"), "split": "official",
        "official": {"meta_QA": {k: v for k, v in mq.items() if k not in ("question", "answer", "raw_needles",
                                                                             "needles", "insert_needles")},
                     "meta_text": {k: v for k, v in mt.items() if k != "raw_text"},
                     "keys": list(obj), "meta_QA_keys": list(mq), "meta_text_keys": list(mt)},
    }
    if mq.get("answer", output) != output:
        meta["official"]["meta_QA_answer"] = mq.get("answer")
    if "noise_type" in obj:
        meta["noise_type"] = obj["noise_type"]
    inserted_noise = mq.get("insert_needles")
    if inserted_noise is not None:
        if not isinstance(inserted_noise, list) or not all(isinstance(t, str) for t in inserted_noise):
            raise DataError("must be a list of strings", file=file, line=line, field="meta_QA.insert_needles")
        meta["noise_sentences"] = list(inserted_noise)
    sample = Sample(id=md5, benchmark=BENCHMARK, task=pipeline, context=[TextPart(context)],
                    question=[TextPart(question)], answer=output, meta=meta)
    if raw_text_of(sample) != raw_text and not _frame_from_text(sample, raw_text):
        meta["raw_text"] = raw_text
    return sample


def _split_prompt(full: str, raw_question: str, lang: str | None) -> tuple[str, str, str] | None:
    """(context, question prefix, doc prefix) of an inference-ready prompt, or None if it has another shape."""
    if not full.endswith(raw_question):
        return None
    head = full[:len(full) - len(raw_question)]
    langs = [lang] if lang in QUESTION_PREFIXES else list(QUESTION_PREFIXES)
    for lg in langs:
        for qp in sorted(QUESTION_PREFIXES[lg], key=len, reverse=True):
            if head.endswith(JOINER + qp):
                context = head[:len(head) - len(JOINER + qp)]
                doc = next((p for p in sorted(DOC_PREFIXES[lg], key=len, reverse=True) if p and
                            context.startswith(p)), "")
                return context, qp, doc
    return None


def test_record_to_sample(obj: Any, *, file: str | Path = "<input>", line: int = 0) -> Sample:
    """One inference-ready test record (``question`` = full prompt, ``raw_question``, ``ref_answer`` or
    ``gt_answer``) as a sample; it carries no needle positions."""
    file = Path(file)
    if not isinstance(obj, dict):
        raise DataError("a record must be a JSON object", file=file, line=line)
    md5 = _need(obj, "md5", str, file, line)
    full = _need(obj, "question", str, file, line)
    raw_q = _need(obj, "raw_question", str, file, line)
    answer_key = "ref_answer" if "ref_answer" in obj else "gt_answer"
    answer = _need(obj, answer_key, str, file, line)
    length = obj.get("length")
    if length is not None and (not isinstance(length, int) or isinstance(length, bool)):
        raise DataError("must be an integer", file=file, line=line, field="length")
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in raw_q) else "en"
    split = _split_prompt(full, raw_q, lang)
    if split is None:
        raise DataError("question does not end with a blank line, a question prefix and raw_question",
                        file=file, line=line, field="question")
    context, qp, doc = split
    meta: dict[str, Any] = {"lang": lang, "length": length, "length_bin": length_bin(length) if length else None,
                            "doc_prefix": doc, "question_prefix": qp, "joiner": JOINER, "md5": md5,
                            "split": "official", "answer_key": answer_key,
                            "official": {"keys": list(obj)}}
    numbered = _split_md5(md5)
    if numbered is not None:  # a noise variant; link_noise gives its kind
        meta["variant_of"], meta["variant"] = numbered
    return Sample(id=md5, benchmark=BENCHMARK, task="test", context=[TextPart(context)],
                  question=[TextPart(raw_q)], answer=answer, meta=meta)


def read_official(paths: Iterable[str | Path]) -> Iterator[Sample]:
    """Samples from official files (builder output or inference-ready test format, told apart per record).
    Every record is validated; errors name file, line and field; duplicate ids are refused."""
    seen: set[str] = set()
    for path in paths:
        p = Path(path)
        records = 0
        for lineno, obj in iter_jsonl(p, what="Sequential-NIAH file"):
            records += 1
            if isinstance(obj, dict) and "text_with_needles" in obj:
                sample = builder_record_to_sample(obj, file=p, line=lineno)
            elif isinstance(obj, dict) and "raw_question" in obj:
                sample = test_record_to_sample(obj, file=p, line=lineno)
            else:
                raise DataError("neither a builder record (text_with_needles) nor a test record (raw_question)",
                                file=p, line=lineno)
            if sample.id in seen:
                raise DataError(f"duplicate md5 {sample.id!r}", file=p, line=lineno, field="md5")
            try:
                check_sample_values(sample)
            except DataError as exc:
                raise exc.located(file=p, line=lineno) from None
            seen.add(sample.id)
            yield sample
        if not records:
            raise DataError("the file holds no records", file=p)


def sample_to_builder_record(sample: Sample, *, raw_text_tokens: Any = None) -> dict[str, Any]:
    """A sample in the official builder format (fields in the official order). ``raw_text_tokens(text) ->
    int`` fills ``meta_text.length`` for samples that were not imported (official: tokens of the raw text)."""
    m = sample.meta
    if "needles" not in m:
        raise DataError("the sample has no needle positions (meta.needles); it cannot be written as builder "
                        "output", field="meta.needles")
    context = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    twn = context[len(m.get("doc_prefix", "")):]
    question = "".join(p.text for p in sample.question if isinstance(p, TextPart))
    inserted = sorted(m["needles"], key=lambda n: n["inserted_index"])
    raw_text = m.get("raw_text", raw_text_of(sample))
    official = m.get("official", {})
    mq_extra = official.get("meta_QA", {})
    mt_extra = official.get("meta_text", {})
    meta_qa = {"md5": m.get("qa_md5", mq_extra.get("md5")), "question": question,
               "answer": official.get("meta_QA_answer", sample.answer), "raw_needles": list(m["raw_needles"]),
               "needles": [n["text"] for n in inserted], "source": m.get("source"), "ppl": m.get("ppl")}
    for k, v in mq_extra.items():
        meta_qa.setdefault(k, v)
    if "noise_sentences" in m:  # the inserted look-alike sentences of semantic noise
        meta_qa["insert_needles"] = list(m["noise_sentences"])
    if "meta_QA_keys" in official:
        meta_qa = {k: meta_qa[k] for k in official["meta_QA_keys"] if k in meta_qa}
    meta_text: dict[str, Any] = {"md5": mt_extra.get("md5", _md5(raw_text)), "raw_text": raw_text,
                                 "source": mt_extra.get("source", "niah:" + ",".join(m.get("text_docs", [])[:3])),
                                 "length": mt_extra.get("length", raw_text_tokens(raw_text) if raw_text_tokens
                                                        else None)}
    for k, v in mt_extra.items():
        meta_text.setdefault(k, v)
    if "meta_text_keys" in official:
        meta_text = {k: meta_text[k] for k in official["meta_text_keys"] if k in meta_text}
    record: dict[str, Any] = {
        "md5": m.get("md5", sample.id), "length": m.get("length"), "lang": m.get("lang"),
        "num_needles": m.get("num_needles", len(inserted)), "input": prompt_text(sample), "output": sample.answer,
        "text_with_needles": twn, "meta_QA": meta_qa, "meta_text": meta_text,
    }
    if "noise_type" in m:
        record["noise_type"] = m["noise_type"]
    if "keys" in official:
        record = {k: record[k] for k in official["keys"] if k in record} | \
            {k: v for k, v in record.items() if k not in official["keys"]}
    return record


def sample_to_test_record(sample: Sample) -> dict[str, Any]:
    """A sample in the inference-ready test format."""
    m = sample.meta
    key = m.get("answer_key", "ref_answer")
    question = "".join(p.text for p in sample.question if isinstance(p, TextPart))
    rec = {"md5": m.get("md5", sample.id), "length": m.get("length"), "question": prompt_text(sample),
           key: sample.answer, "raw_question": question}
    keys = m.get("official", {}).get("keys")
    return {k: rec[k] for k in keys if k in rec} if keys else rec


def export_builder(samples: Iterable[Sample], out: str | Path, *, raw_text_tokens: Any = None) -> int:
    """Write samples as one builder-format JSONL file (atomically); returns the count."""
    lines = [dumps_line(sample_to_builder_record(s, raw_text_tokens=raw_text_tokens)) for s in samples]
    write_atomic(out, "".join(lines))
    return len(lines)


def write_results(rows: Iterable[tuple[str, str | None]], out: str | Path, *, key: str = "answer") -> int:
    """The official result file: one ``{"md5": ..., key: response}`` per line (``key`` is ``answer`` for test
    inference, the model's name for noise inference). ``rows`` are ``(md5, response)``."""
    lines = [dumps_line({"md5": md5, key: response}) for md5, response in rows]
    write_atomic(out, "".join(lines))
    return len(lines)


def read_results(path: str | Path) -> dict[str, str | None]:
    """md5 -> response from an official result file (``answer`` or the one model-named field)."""
    p = Path(path)
    out: dict[str, str | None] = {}
    for lineno, obj in iter_jsonl(p, what="result file"):
        if not isinstance(obj, dict) or not isinstance(obj.get("md5"), str):
            raise DataError("a result line must be an object with a string md5", file=p, line=lineno, field="md5")
        others = [k for k in obj if k != "md5"]
        if len(others) != 1:
            raise DataError("a result line holds md5 and exactly one answer field", file=p, line=lineno)
        value = obj[others[0]]
        if value is not None and not isinstance(value, str):
            raise DataError("must be a string or null", file=p, line=lineno, field=others[0])
        out[obj["md5"]] = value
    return out


def _is_result_file(path: Path) -> bool:
    """True when the file's first record is a result line: ``md5`` and one answer field, nothing a data file
    holds."""
    for _lineno, obj in iter_jsonl(path, what="Sequential-NIAH file"):
        return isinstance(obj, dict) and "md5" in obj and len(obj) == 2 and not (
            set(obj) & {"input", "question", "text_with_needles", "raw_question", "output"})
    return False


def score_results(paths: Iterable[str | Path]) -> dict[str, Any]:
    """Score official result files (``infer_result.jsonl``: ``{"md5", "answer"}``; ``infer_noise_result.jsonl``:
    ``{"md5", "<model>"}``) against the official data files given with them (builder output or the
    inference-ready test format, told apart from the result files by their fields) with the deterministic
    judge: the scores.json of a run (accuracy by length, needle group, pipeline, language, failure modes, and
    noise accuracy and consistency when variants are among them). Samples without a response are counted,
    not scored; a response whose md5 no data file holds is refused."""
    from niah.benchmarks.protocol import OFFICIAL
    from niah.benchmarks.seq_niah.score import aggregate, row_fields, score_sample

    data: list[Path] = []
    results: list[Path] = []
    for path in map(Path, paths):
        (results if _is_result_file(path) else data).append(path)
    if not data or not results:
        raise DataError("give the official data files (NIAH_*.jsonl or test_data_for_infer.jsonl) and the result "
                        "files (infer_result.jsonl, infer_noise_result.jsonl)", file=(results or data or
                                                                                      [Path("<none>")])[0])
    samples = {s.id: s for s in link_noise(list(read_official(data)))}
    responses: dict[str, str | None] = {}
    for path in results:
        for lineno, (md5, response) in enumerate(read_results(path).items(), start=1):
            if md5 not in samples:
                raise DataError(f"md5 {md5!r} is in no data file given", file=path, line=lineno, field="md5")
            responses[md5] = response
    rows: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for sid, sample in samples.items():
        if sid not in responses:
            continue
        scored = score_sample(sample, responses[sid])
        rows.append(({"id": sid, "task": sample.task, "scores": dict(scored.scores), **row_fields(sample)},
                     dict(scored.info)))
    scores = aggregate(rows, OFFICIAL)
    return {"scores": scores, "data_files": [str(p) for p in data], "result_files": [str(p) for p in results],
            "scored": len(rows), "without_response": len(samples) - len(rows)}
