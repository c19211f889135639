"""One judge mechanism for every benchmark that needs a model to grade answers.

A judge is a model backend (any spec: ``openai:...``, ``hf:...``) plus a prompt template plus a strict
parser, with the runner's retries for transport failures and a bounded number of re-asks when the reply does
not parse. Strict means the parser accepts only the reply format the template asks for; anything else is a
parse failure, never a guessed score.

A judge never sees the haystack: its only inputs are the question, the gold answer and the prediction
(:meth:`Judge.judge`), and :meth:`Judge.judge_sample` takes the question text and options from a sample,
never its context. Verdicts can be cached in a :class:`~niah.run.cache.ResponseCache` under the judge's identity
(backend identity + template name + parser name).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from niah.models.base import GenerationSettings, ModelBackend, ModelRequest, ModelSpec
from niah.models.registry import load_backend, parse_model_spec
from niah.prompts.types import RenderedPrompt
from niah.run.cache import MediaHasher, ResponseCache, request_fingerprint
from niah.sample import Sample, TextPart, parts_text

JUDGE_GENERATION = GenerationSettings(temperature=0.0, max_tokens=32)


@dataclass(frozen=True, slots=True)
class JudgeTransport:
    """How every judge verb reaches its judge (``--base-url``, ``--api-key-env``, ``--timeout``,
    ``--max-attempts``, ``--retry-delay``): ``timeout`` is the openai backend's whole-request deadline; None
    keeps the backend's or the family protocol's default. None of it is part of the judge's identity."""

    base_urls: tuple[str, ...] = ()
    api_key_env: str | None = None
    timeout: float | None = None
    max_attempts: int | None = None
    retry_delay: float | None = None

    def judge_kwargs(self, retry: Any = None) -> dict[str, Any]:
        """Keyword arguments for :class:`Judge`; ``retry`` is the protocol's own policy, if it has one."""
        from niah.run import RetryPolicy

        base = retry or RetryPolicy()
        policy = RetryPolicy(max_attempts=max(1, self.max_attempts) if self.max_attempts is not None
                             else base.max_attempts,
                             initial_delay=self.retry_delay if self.retry_delay is not None else base.initial_delay,
                             max_delay=base.max_delay)
        options = {"timeout": self.timeout} if self.timeout is not None else None
        return {"base_urls": self.base_urls, "api_key_env": self.api_key_env, "options": options, "retry": policy}


#: What a reply writing to the judge rather than answering looks like: a score or verdict it asks for, an order to
#: ignore instructions, a role it claims, the judge's own output format.
_JUDGE_LIKE = re.compile(
    r"(?i)\b(?:ignore|disregard|forget)\b[^.\n]{0,40}\b(?:instruction|prompt|rule|above|previous)"
    r"|\b(?:give|assign|award|rate|grade|output|return)\b[^.\n]{0,40}\b(?:score|rating|grade|verdict|decision)\b"
    r"|^\s*(?:score|decision|verdict)\s*:\s*\S"
    r"|\b(?:as|you are) (?:an?|the) (?:judge|grader|evaluator|assistant)\b"
    r"|['\"]\s*(?:score|decision|pred|verdict)\s*['\"]\s*:"
    r"|^\s*(?:system|assistant|judge|evaluator)\s*:"
    r"|#{2,}\s*(?:instruction|system|judge)",
    re.M)


def judge_like_instructions(reply: str | None) -> bool:
    """Whether ``reply`` holds text addressed to a judge (a score it asks for, an order to ignore the
    instructions, the judge's output format): its verdict is flagged, never silently trusted."""
    return bool(reply) and _JUDGE_LIKE.search(reply or "") is not None


class JudgeParseError(ValueError):
    """The judge's reply is not in the format the template asked for."""


@dataclass(frozen=True, slots=True)
class JudgeTemplate:
    """A judge prompt. ``user`` is formatted with ``question``, ``gold`` and ``prediction`` only."""

    name: str
    user: str
    system: str | None = None
    #: Appended to the user turn when the previous reply did not parse.
    reminder: str = "Your previous reply could not be read. Reply with the required format only."
    #: When set, ``user`` fences ``{prediction}`` between ``<TAG>`` and ``</TAG>`` lines and the prediction's own
    #: copies of those tags are defused before it is pasted, so an answer cannot close the fence and write
    #: text the judge would read as its instructions.
    fence_tag: str | None = None

    def render(self, question: str, gold: str, prediction: str, *, retry: bool = False) -> RenderedPrompt:
        if self.fence_tag is not None:
            prediction = defuse_fence(prediction, self.fence_tag)
        text = self.user.format(question=question, gold=gold, prediction=prediction)
        if retry:
            text += "\n" + self.reminder
        return RenderedPrompt(parts=[TextPart(text)], roles=["question"], media_root=Path("."),
                              generation=JUDGE_GENERATION, system=self.system)


def defuse_fence(text: str, tag: str) -> str:
    """``text`` with every opening or closing ``tag`` marker (any case, inner spaces) made inert: the judge sees
    ``[tag]`` where the answer wrote ``</tag>``, so the fence the prompt puts around it stays whole."""
    return re.sub(rf"<\s*/?\s*{re.escape(tag)}\s*>", f"[{tag}]", text, flags=re.I)


def fenced(tag: str, placeholder: str = "{prediction}") -> str:
    """The fenced block a template puts around untrusted text (see :attr:`JudgeTemplate.fence_tag`)."""
    return f"<{tag}>\n{placeholder}\n</{tag}>"


BINARY_JSON_TEMPLATE = JudgeTemplate(
    name="binary-json-v1",
    system="You grade answers to questions. You compare a prediction with the gold answer; you never answer "
           "the question yourself.",
    user=(
        "Question: {question}\n"
        "Gold answer: {gold}\n"
        "Prediction: {prediction}\n"
        "Does the prediction give the same answer as the gold answer? Ignore wording, case and formatting; a "
        "prediction that adds a different or contradictory answer is wrong.\n"
        'Reply with exactly one JSON object and nothing else: {{"score": 1}} if correct, {{"score": 0}} if not.'
    ),
    reminder='Your previous reply could not be read. Reply with exactly {"score": 1} or {"score": 0}.',
)

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
_LABELED = re.compile(r"^\s*score\s*:\s*(-?\d+(?:\.\d+)?)\s*$", re.I)


def reply_json(text: str) -> Any:
    """The JSON value a judge reply consists of (a code fence around it is tolerated); JudgeParseError when the
    whole reply is not JSON. Parsers then check the value's exact shape."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        return json.loads(body)
    except (json.JSONDecodeError, RecursionError):  # a reply nested 100,000 deep is not a verdict either
        raise JudgeParseError(f"not a JSON object: {text[:80]!r}") from None


def parse_json_score(text: str, allowed: Iterable[float] = (0, 1)) -> float:
    """Strict: the whole reply is one JSON object ``{"score": N}`` (a code fence around it is tolerated)
    with N among ``allowed``."""
    obj = reply_json(text)
    if not isinstance(obj, dict) or set(obj) != {"score"}:
        raise JudgeParseError(f"expected exactly {{\"score\": ...}}, got {text[:80]!r}")
    score = obj["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)) or score not in set(allowed):
        raise JudgeParseError(f"score {score!r} not among {sorted(set(allowed))}")
    return float(score)


def labeled_score_parser(low: float, high: float) -> Callable[[str], float]:
    """Strict parser for replies of the form ``Score: N`` with ``low <= N <= high`` (and nothing else)."""

    def parse(text: str) -> float:
        m = _LABELED.match(text)
        if m is None:
            raise JudgeParseError(f"expected 'Score: N', got {text[:80]!r}")
        value = float(m.group(1))
        if not low <= value <= high:
            raise JudgeParseError(f"score {value} outside [{low}, {high}]")
        return value

    parse.__name__ = f"labeled_score_{low:g}_{high:g}"
    return parse


@dataclass(slots=True)
class JudgeVerdict:
    score: float | None
    raw: str | None
    error: str | None = None
    attempts: int = 0
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "raw": self.raw, "error": self.error, "attempts": self.attempts,
                "cached": self.cached}


class Judge:
    """``Judge("openai:gpt-4o-mini", base_urls=[...], api_key_env="OPENAI_API_KEY")``, then
    ``await judge.judge(question, gold, prediction)``."""

    def __init__(
        self,
        model: str | ModelSpec | ModelBackend,
        *,
        template: JudgeTemplate = BINARY_JSON_TEMPLATE,
        parser: Callable[[str], float] = parse_json_score,
        generation: GenerationSettings | None = None,
        retry: Any = None,
        max_parse_attempts: int = 3,
        cache: ResponseCache | None = None,
        base_urls: Iterable[str] = (),
        api_key_env: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        from niah.run import RetryPolicy

        if isinstance(model, str):
            model = parse_model_spec(model, base_urls=base_urls, api_key_env=api_key_env, options=options)
        self.backend: ModelBackend = load_backend(model) if isinstance(model, ModelSpec) else model
        self.template = template
        self.parser = parser
        self.generation = JUDGE_GENERATION.merged(generation)
        self.retry = retry or RetryPolicy()
        self.max_parse_attempts = max(1, max_parse_attempts)
        self.cache = cache
        self._hasher = MediaHasher()
        self._concurrency_set = False

    def identity(self) -> dict[str, Any]:
        return {"judge": self.template.name, "parser": getattr(self.parser, "__name__", "parser"),
                "model": self.backend.identity()}

    def set_concurrency(self, concurrency: int) -> int:
        """Requests in flight per endpoint (call before the first judgement); returns the total."""
        self._concurrency_set = True
        return self.backend.max_in_flight(concurrency)

    async def judge(self, question: str, gold: str, prediction: str | None) -> JudgeVerdict:
        """Grade one prediction. A missing prediction (a failed generation) scores 0 without a call."""
        from niah.run import call_with_retries

        if not self._concurrency_set:
            self.set_concurrency(8)
        if prediction is None:
            return JudgeVerdict(score=0.0, raw=None, error="no prediction", attempts=0)
        attempts = 0
        last_raw: str | None = None
        last_error = ""
        for parse_try in range(self.max_parse_attempts):
            prompt = self.template.render(question, gold, prediction, retry=parse_try > 0)
            prompt = replace(prompt, generation=self.generation)
            key = request_fingerprint(self.identity(), prompt, self.generation, self._hasher)
            if self.cache is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    return JudgeVerdict(score=hit["score"], raw=hit["response"], attempts=0, cached=True)
            outcome = await call_with_retries(self.backend, ModelRequest(prompt=prompt, generation=self.generation),
                                              self.retry)
            attempts += outcome.attempts
            if outcome.reply is None:
                return JudgeVerdict(score=None, raw=None, error=outcome.error, attempts=attempts)
            last_raw = outcome.reply.text
            try:
                score = self.parser(last_raw)
            except JudgeParseError as exc:
                last_error = f": {exc}"
                continue
            except Exception as exc:  # a parser choking on a hostile reply must not end the judge run
                last_error = f": parser error {type(exc).__name__}: {exc}"
                continue
            if self.cache is not None:
                self.cache.put(key, {"response": last_raw, "score": score, "judge": self.identity()})
            return JudgeVerdict(score=score, raw=last_raw, attempts=attempts)
        return JudgeVerdict(score=None, raw=last_raw, attempts=attempts,
                            error=f"judge reply did not parse after {self.max_parse_attempts} tries{last_error}")

    async def judge_sample(self, sample: Sample, prediction: str | None, gold: str | None = None) -> JudgeVerdict:
        """Grade a prediction for a sample from its question text and text options only (never the context;
        image options appear as ``<image>``). ``gold`` defaults to the sample's answer as text."""
        question = parts_text(sample.question)
        for i, choice in enumerate(sample.choices or []):
            option = "".join(p.text if isinstance(p, TextPart) else "<image>" for p in choice)
            question += f"\n{chr(65 + i)}. {option}"
        if gold is None:
            answer = sample.answer
            gold = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        return await self.judge(question, gold, prediction)

    async def judge_many(self, items: Iterable[tuple[str, str, str | None]], *, concurrency: int = 8,
                         ) -> list[JudgeVerdict]:
        """Judge (question, gold, prediction) triples with bounded concurrency; results in input order."""
        if not self._concurrency_set:
            concurrency = self.set_concurrency(concurrency)
        semaphore = asyncio.Semaphore(max(concurrency, 1))

        async def one(item: tuple[str, str, str | None]) -> JudgeVerdict:
            async with semaphore:
                return await self.judge(*item)

        return list(await asyncio.gather(*(one(item) for item in items)))

    async def aclose(self) -> None:
        await self.backend.aclose()
