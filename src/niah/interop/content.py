"""Whether a harness log answers the dataset it is imported against: each sample's target, and where the log
holds them its inputs (the sample a niah export put in the doc or the task metadata), checked against the
dataset's sample before a reply is kept.

A log of another dataset with the same ids (another build, another seed) would otherwise import cleanly and be
scored against golds it never saw. The check reads only what the log itself says; every field it holds must
agree. A log of a task niah did not export carries no niah sample key: there the input it logged (inspect's
``input``, lmms-eval's request ``arguments``) must hold every text part of the dataset's sample, and a line that
states neither an input nor a target is refused, since nothing in it says which sample it answered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from niah.interop.logs import HarnessLog, HarnessReply
from niah.sample import Dataset, Sample, TextPart
from niah.util.errors import DataError

#: The inspect task's metadata key holding the sample's content key (:meth:`niah.sample.Sample.content_key`).
SAMPLE_KEY_FIELD = "niah_sample_key"


def _gold_text(sample: Sample) -> str:
    from niah.models.baselines import format_gold

    return "" if sample.answer is None else format_gold(sample.answer)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


def _target_mismatch(target: Any, sample: Sample, field: str) -> tuple[str, str] | None:
    expected = _gold_text(sample)
    targets = target if isinstance(target, list) else [target]
    if not all(isinstance(t, str) for t in targets):
        return field, f"must be a string or a list of strings, not {type(target).__name__}"
    if not any(targets):  # an empty target states no gold (a task without targets): nothing to compare
        return None
    if expected not in targets:
        return field, (f"the log's target {_short(target)} is not the gold of sample {sample.id!r} in the dataset "
                       f"({_short(expected)}): the log answers another dataset's sample")
    return None


def _same_names(found: Mapping[str, Any], sample: Sample, prefix: str) -> tuple[str, str] | None:
    for name in ("task", "benchmark"):
        value = found.get(name)
        if value is not None and value != getattr(sample, name):
            return f"{prefix}{name}", (f"the log's {name} {_short(value)} is not sample {sample.id!r}'s "
                                       f"({getattr(sample, name)!r} in the dataset)")
    return None


def _states_target(target: Any) -> bool:
    return any(isinstance(t, str) and t for t in (target if isinstance(target, list) else [target]))


def _message_text(content: Any) -> str:
    """The text of an inspect message's content: a string, or a list of content items (text ones kept)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(item["text"] for item in content
                         if isinstance(item, dict) and isinstance(item.get("text"), str))
    return ""


def _logged_input(evidence: Mapping[str, Any], harness: str) -> tuple[str, str] | None:
    """(field, text) of the input the log says was sent for the sample, or None when it logs none."""
    if harness == "lmms-eval":
        arguments = evidence.get("arguments")
        if isinstance(arguments, list):  # the request's arguments: the prompt text comes first
            return next((("arguments", a) for a in arguments if isinstance(a, str) and a.strip()), None)
        return None
    logged = evidence.get("input")
    if isinstance(logged, str):
        return ("input", logged) if logged.strip() else None
    if isinstance(logged, list):
        text = "\n".join(_message_text(m.get("content")) for m in logged if isinstance(m, dict))
        return ("input", text) if text.strip() else None
    return None


def _words(text: str) -> str:
    return " ".join(text.split())


def _input_mismatch(field: str, logged: str, sample: Sample) -> tuple[str, str] | None:
    """Every text part of the sample (context, then question), spaces aside, must be in the logged input."""
    sent = _words(logged)
    for where, parts in (("context", sample.context), ("question", sample.question)):
        for i, part in enumerate(parts):
            text = _words(part.text) if isinstance(part, TextPart) else ""
            if text and text not in sent:
                return field, (f"the log's input does not hold text {where}[{i}] of sample {sample.id!r} in the "
                               f"dataset ({_short(text)}): the log answers another dataset's sample, or its task "
                               "rewrites the inputs; import a log of the task `niah export` wrote")
    return None


def _foreign_mismatch(evidence: Mapping[str, Any], sample: Sample, harness: str,
                      stated_target: bool) -> tuple[str, str] | None:
    """A line of a task niah did not export (no niah sample key): its logged input is compared; a line with
    neither an input nor a target identifies no sample and is refused."""
    logged = _logged_input(evidence, harness)
    if logged is not None:
        return _input_mismatch(*logged, sample)
    if stated_target:
        return None
    field = "arguments" if harness == "lmms-eval" else "input"
    return field, (f"the log records nothing that identifies sample {sample.id!r} (no niah sample key, no input, "
                   "no target): it cannot be told from another dataset's sample with that id; import a log of the "
                   "task `niah export` wrote")


def reply_mismatch(reply: HarnessReply, sample: Sample, harness: str) -> tuple[str, str] | None:
    """(field, why) when what ``reply``'s log records about its sample disagrees with ``sample``, or, for a task
    niah did not export, records nothing that identifies it; None when it agrees."""
    evidence = reply.evidence or {}
    key = sample.content_key()
    keyed, stated_target = False, False
    if harness == "lmms-eval":
        recorded = evidence.get("sample_key")
        if recorded is not None:  # a niah export's metric item
            if recorded != key:
                return f"niah_score.{SAMPLE_KEY_FIELD}", (f"the log's sample {sample.id!r} differs from the "
                                                          "dataset's (its input or gold): the log answers another "
                                                          "dataset's sample")
            keyed = True
        doc = evidence.get("doc")
        if isinstance(doc, dict):
            found = _same_names(doc, sample, "doc.")
            if found is not None:
                return found
            embedded = doc.get("sample")
            if isinstance(embedded, str):  # a niah export's doc holds the whole sample (input and gold)
                try:
                    theirs = Sample.from_json(json.loads(embedded)).content_key()
                except (ValueError, DataError, RecursionError):
                    return "doc.sample", "is not the sample JSON a niah export writes"
                if theirs != key:
                    return "doc.sample", (f"the log's sample {sample.id!r} differs from the dataset's (its input "
                                          "or gold): the log answers another dataset's sample")
                keyed = True
            if "target" in doc:
                found = _target_mismatch(doc["target"], sample, "doc.target")
                if found is not None:
                    return found
                stated_target = _states_target(doc["target"])
    else:
        metadata = evidence.get("metadata")
        if isinstance(metadata, dict):
            recorded = metadata.get(SAMPLE_KEY_FIELD)
            if isinstance(recorded, str) and recorded != key:
                return f"metadata.{SAMPLE_KEY_FIELD}", (f"the log's sample {sample.id!r} differs from the dataset's "
                                                        "(its input or gold): the log answers another dataset's "
                                                        "sample")
            keyed = isinstance(recorded, str)
            found = _same_names(metadata, sample, "metadata.")
            if found is not None:
                return found
    if "target" in evidence:
        found = _target_mismatch(evidence["target"], sample, "target")
        if found is not None:
            return found
        stated_target = stated_target or _states_target(evidence["target"])
    return None if keyed else _foreign_mismatch(evidence, sample, harness, stated_target)


def check_log_content(log: HarnessLog, replies: Mapping[str, HarnessReply], dataset: Dataset) -> None:
    """Raise a DataError naming the log file, line (or member) and field of the first reply, in dataset order,
    whose log records a sample other than the dataset's (:func:`reply_mismatch`)."""
    for sample in dataset:
        reply = replies.get(sample.id)
        if reply is None or (reply.error is not None and reply.evidence is None):
            continue  # an error the harness logged in place of the sample answers nothing: a failed row
        found = reply_mismatch(reply, sample, log.harness)
        if found is not None:
            field, why = found
            raise reply.located(why, field)
