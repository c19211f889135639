"""The judge mechanism: any backend + template + strict parser + retries, against a real local server."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from niah.run import RetryPolicy
from niah.run.cache import ResponseCache
from niah.sample import Sample, TextPart
from niah.scoring.judges import Judge, JudgeParseError, labeled_score_parser, parse_json_score
from support.openai_server import FaultPlan, OpenAIServer

FAST_RETRY = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)


def grading_responder(body: dict) -> str:
    """A stand-in grader: correct iff the gold text occurs in the prediction; a "chatty" prediction first
    gets a free-text reply (unparsable), and a proper one once the reminder is in the prompt."""
    user = body["messages"][-1]["content"]
    gold = re.search(r"Gold answer: (.*)", user).group(1)
    prediction = re.search(r"Prediction: (.*)", user).group(1)
    if "chatty" in prediction and "could not be read" not in user:
        return "Well, I would say the prediction is basically right."
    if "hopeless" in prediction:
        return "I refuse to use JSON."
    return json.dumps({"score": int(gold.lower() in prediction.lower())})


@pytest.mark.parametrize("reply, score", [('{"score": 1}', 1.0), (' {"score":0}\n', 0.0),
                                          ('```json\n{"score": 1}\n```', 1.0)])
def test_json_score_parser_accepts_only_the_asked_format(reply, score):
    assert parse_json_score(reply) == score


@pytest.mark.parametrize("reply", ["Score: 1", '{"score": 1} because it matches', '{"score": 2}',
                                   '{"score": true}', '{"score": 1, "why": "x"}', "1", ""])
def test_json_score_parser_rejects_everything_else(reply):
    with pytest.raises(JudgeParseError):
        parse_json_score(reply)


def test_labeled_score_parser_is_strict_about_form_and_range():
    parse = labeled_score_parser(1, 5)
    assert parse("Score: 4") == 4.0 and parse("score:2.5\n") == 2.5
    for bad in ("Score: 6", "The score: 4", "Score: four", "Score: 4, good"):
        with pytest.raises(JudgeParseError):
            parse(bad)


def test_judge_grades_reasks_on_unparsable_replies_and_gives_up_visibly():
    with OpenAIServer(responder=grading_responder) as srv:
        judge = Judge("openai:grader", base_urls=[srv.base_url], retry=FAST_RETRY)

        async def go():
            try:
                return await judge.judge_many([
                    ("What is the ingredient?", "saffron", "It is saffron."),
                    ("What is the ingredient?", "saffron", "It is cumin."),
                    ("What is the ingredient?", "saffron", "chatty: saffron"),
                    ("What is the ingredient?", "saffron", "hopeless"),
                    ("What is the ingredient?", "saffron", None),
                ], concurrency=2)
            finally:
                await judge.aclose()

        right, wrong, chatty, hopeless, missing = asyncio.run(go())
        n_requests = len(srv.log)
    assert (right.score, wrong.score) == (1.0, 0.0)
    assert chatty.score == 1.0 and chatty.attempts == 2
    assert hopeless.score is None and "did not parse after 3 tries" in hopeless.error and hopeless.raw
    assert missing.score == 0.0 and missing.attempts == 0
    assert n_requests == 1 + 1 + 2 + 3


def test_judge_retries_transport_failures_and_caches_verdicts(tmp_path):
    with OpenAIServer(responder=grading_responder, faults=FaultPlan(share={"500": 1.0})) as srv:
        cache = ResponseCache(tmp_path / "judge-cache")
        judge = Judge("openai:grader", base_urls=[srv.base_url], retry=FAST_RETRY, cache=cache)
        verdict = asyncio.run(judge.judge("Q?", "oak", "an oak tree"))
        assert verdict.score == 1.0 and verdict.attempts == 2 and len(srv.log) == 2
        again = Judge("openai:grader", base_urls=[srv.base_url], retry=FAST_RETRY, cache=cache)
        cached = asyncio.run(again.judge("Q?", "oak", "an oak tree"))
        assert cached.cached and cached.score == 1.0 and len(srv.log) == 2
        cache.close()


def test_a_judge_never_sees_the_haystack():
    sample = Sample("reasoning-text/0", "mm-niah", "reasoning-text",
                    context=[TextPart("HAYSTACK filler. The needle: Anna is tallest. More HAYSTACK.")],
                    question=[TextPart("Who is tallest?")], answer="Anna",
                    choices=[[TextPart("Ben")], [TextPart("Anna")]])
    with OpenAIServer(responder=grading_responder) as srv:
        judge = Judge("openai:grader", base_urls=[srv.base_url], retry=FAST_RETRY)
        verdict = asyncio.run(judge.judge_sample(sample, "Anna"))
        sent = json.dumps(srv.log[0].body)
    assert verdict.score == 1.0
    assert "HAYSTACK" not in sent and "needle" not in sent
    assert "Who is tallest?\\nA. Ben\\nB. Anna" in sent
