"""How far is ``llama2-sp`` from the real Llama-2 tokenizer? Token counts on sample text, measured.

niah's ``llama2-sp`` is the Llama-style 32K SentencePiece model that mistral-common ships, a stand-in for the
Llama-2 tokenizer (MMLongBench counts its text lengths with Llama-2's), because nothing may be downloaded at
run time. This script counts the same documents with every tokenizer it is given and prints, per kind of text,
total tokens, characters per token, the ratio of each total to the reference total (real Llama-2 when given,
else llama2-sp) and the spread of that ratio over documents (min / median / max).

The real Llama-2 vocabulary is taken from a file the caller already has; nothing is downloaded here:

- ``--llama2-vocab X.gguf``: a GGUF holding the Llama-2 SentencePiece vocabulary, e.g. llama.cpp's
  ``models/ggml-vocab-llama-spm.gguf`` (vocabulary only, 0.7 MB; llama.cpp made it from meta-llama/Llama-2-7b-hf,
  and the ``llama-cpp-python`` sdist on PyPI vendors it). Pieces, scores and piece types are read with the
  ``gguf`` package and two tokenizers are rebuilt from them in memory: a SentencePiece ModelProto (BPE, byte
  fallback, dummy prefix: the settings of Llama-2's ``tokenizer.model``) and a Hugging Face ``tokenizer.json``
  laid out like the one in meta-llama/Llama-2-7b-hf (Prepend + Replace normalizer, BPE with merges ordered by
  piece score, byte fallback), the latter loaded through niah's own ``hf:`` tokenizer. Both must reproduce
  published Llama-2 token ids (``REFERENCE_IDS`` below, and llama.cpp's ``.inp``/``.out`` test pairs when they
  lie next to the GGUF) or the script stops.
- ``--llama2-vocab tokenizer.model`` (SentencePiece) or ``--llama2-vocab tokenizer.json`` / a folder with one.

Texts: English prose from niah's embedded corpus (``load_corpus("default", lang="en")``, when installed),
technical English (Python's pydoc topics), Python source from the standard library, generated number-heavy
text, and Chinese (``load_corpus("default", lang="zh")``, else a few paragraphs embedded below).

    python bench/tokenizer_compare.py --llama2-vocab /tmp/llama2vocab/ggml-vocab-llama-spm.gguf [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import random
import statistics
import struct
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from niah.tokens.text import (
    HFTokenizer,
    SentencePieceTokenizer,
    TextTokenizer,
    _mistral_common_sp_model,
    get_tokenizer,
)
from niah.util.errors import NiahError

# Published Llama-2 token ids (no BOS) for texts that exercise words, digits (split one per token), byte
# fallback (emoji, rare CJK), newlines and runs of spaces. Sources: the Llama tokenizer integration test of
# Hugging Face transformers (tests/models/llama/test_tokenization_llama.py, the parts without literal "<s>";
# the second text is a middle part of that test's string, hence its leading "\n") and Bumblebee's Llama
# tokenizer test. A rebuilt tokenizer that differs on any of them is not Llama-2's.
REFERENCE_IDS: tuple[tuple[str, list[int]], ...] = (
    ("This is a test 😊\nI was born in 92000, and this is falsé.\n生活的真谛是\nHi  Hello\nHi   Hello\n\n \n  \n Hello\n",
     [910, 338, 263, 1243, 29871, 243, 162, 155, 141, 13, 29902, 471, 6345, 297, 29871, 29929, 29906, 29900,
      29900, 29900, 29892, 322, 445, 338, 285, 1338, 29948, 29889, 13, 30486, 31704, 30210, 30848, 235, 179,
      158, 30392, 13, 18567, 29871, 15043, 13, 18567, 259, 15043, 13, 13, 29871, 13, 259, 13, 15043, 13]),
    ("\nThe following string should be properly encoded: Hello.\nBut ird and ปี   ird   ด\nHey how are you doing",
     [29871, 13, 1576, 1494, 1347, 881, 367, 6284, 18511, 29901, 15043, 29889, 13, 6246, 29871, 1823, 322,
      29871, 31010, 30691, 1678, 1823, 1678, 30718, 13, 29950, 1032, 920, 526, 366, 2599]),
    ("Hello everyobdy, how are you?", [15043, 1432, 711, 4518, 29892, 920, 526, 366, 29973]),
    ("Hello world", [15043, 3186]),
)

# Used only when niah's Chinese corpus is not installed: original prose written for this benchmark.
CHINESE_FALLBACK = (
    "江南的春天来得很早。二月还没有过完，河边的柳树就已经抽出了嫩芽，远远望去像一层淡绿色的烟雾。"
    "老人们说，这是一年之中最适合出门走走的时候，既不冷也不热，空气里总有一股泥土和青草的味道。",
    "小镇上只有一条主街，街道两旁是木结构的老房子。清晨六点，早点铺子就开了门，蒸笼里冒出的白气"
    "和油锅里的声响混在一起，把还没睡醒的人们一个个叫到了街上。",
    "图书馆在镇子的东头，是一座两层的砖楼。楼下是报刊阅览室，楼上是书库。管理员姓王，在这里工作了"
    "三十多年，几乎能背出每一本书放在哪一排哪一格。孩子们放学后常常来这里写作业。",
    "研究人员在报告中指出，长文本理解能力的评估需要同时考虑检索、计数和推理三类任务。如果只测试"
    "单一的检索任务，模型在真实场景中的表现很可能被高估，因此基准测试应当覆盖多种难度。",
    "火车在傍晚时分穿过一片稻田。夕阳把天边染成橘红色，田埂上有几个农民正扛着锄头往家走。车厢里"
    "很安静，有人在看书，有人靠着窗户睡着了，只有列车员推着小车慢慢地走过。",
    "做一碗好的面条并不简单。面要和得软硬适中，醒够时间，再用擀面杖一点一点擀开。汤底最好用骨头"
    "熬上几个小时，出锅前撒一把葱花，淋几滴香油，味道就全出来了。",
    "会议决定从下个月开始实行新的作息时间。上午九点上班，下午五点半下班，中午休息一个半小时。"
    "各部门需要在本周五之前提交调整后的排班表，如有特殊情况请直接联系人事处。",
    "这座桥建于清朝末年，全长八十多米，由青石砌成，共有七个桥洞。一百多年来，它经历了好几次洪水，"
    "却始终没有倒塌。如今桥上不再通车，成了游客们拍照留念的地方。",
)

STDLIB_CODE_MODULES = (
    "argparse", "ast", "base64", "bisect", "calendar", "csv", "dataclasses", "difflib", "fractions",
    "functools", "heapq", "json.decoder", "json.encoder", "pprint", "shlex", "statistics", "string",
    "textwrap", "tokenize", "typing",
)


# ---------------------------------------------------------------------------------------------------------
# Rebuilding the Llama-2 tokenizer from a vocabulary-only GGUF
# ---------------------------------------------------------------------------------------------------------

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def _top_level_fields(buf: bytes) -> Iterator[tuple[int, bytes]]:
    """(field number, raw bytes including the tag) of each top-level field of a protobuf message."""
    i = 0
    while i < len(buf):
        start = i
        tag, i = _read_varint(buf, i)
        wire_type = tag & 7
        if wire_type == 0:
            _, i = _read_varint(buf, i)
        elif wire_type == 1:
            i += 8
        elif wire_type == 5:
            i += 4
        elif wire_type == 2:
            length, i = _read_varint(buf, i)
            i += length
        else:
            raise ValueError(f"unsupported protobuf wire type {wire_type}")
        yield tag >> 3, buf[start:i]


def _sentencepiece_piece(piece: str, score: float, piece_type: int) -> bytes:
    """ModelProto field 1 (``pieces``): SentencePiece{piece=1 string, score=2 float, type=3 enum}."""
    raw = piece.encode("utf-8")
    body = (_varint(1 << 3 | 2) + _varint(len(raw)) + raw
            + _varint(2 << 3 | 5) + struct.pack("<f", score)
            + _varint(3 << 3 | 0) + _varint(piece_type))
    return _varint(1 << 3 | 2) + _varint(len(body)) + body


@dataclass
class GGUFVocab:
    """The SentencePiece vocabulary stored in a GGUF (piece types use SentencePiece's numbering)."""

    pieces: list[str]
    scores: list[float]
    types: list[int]  # 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte


def read_gguf_vocab(path: Path) -> GGUFVocab:
    """Read ``tokenizer.ggml.*`` from a GGUF; refuses anything but a SentencePiece ("llama") vocabulary."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    model = reader.fields["tokenizer.ggml.model"].contents()
    if model != "llama":
        raise SystemExit(f"{path}: tokenizer.ggml.model is {model!r}, not a SentencePiece ('llama') vocabulary")
    pieces = list(reader.fields["tokenizer.ggml.tokens"].contents())
    scores = [float(s) for s in reader.fields["tokenizer.ggml.scores"].contents()]
    types = [int(t) for t in reader.fields["tokenizer.ggml.token_type"].contents()]
    return GGUFVocab(pieces, scores, types)


def sentencepiece_model_from_vocab(vocab: GGUFVocab) -> bytes:
    """A serialized SentencePiece ModelProto with these pieces and Llama-2's trainer/normalizer settings.

    The trainer and normalizer specs are copied verbatim from mistral-common's ``tokenizer.model.v1``, a model
    trained with the same SentencePiece settings as Llama-2's (BPE, byte_fallback, split_digits,
    allow_whitespace_only_pieces, identity normalization, add_dummy_prefix, no whitespace collapsing), so only
    the pieces change. Written at the wire level so that protobuf need not be installed.
    """
    template = _mistral_common_sp_model().read_bytes()
    specs = b"".join(raw for field, raw in _top_level_fields(template) if field != 1)
    pieces = b"".join(_sentencepiece_piece(p, s, t)
                      for p, s, t in zip(vocab.pieces, vocab.scores, vocab.types, strict=True))
    return pieces + specs


def hf_tokenizer_json_from_vocab(vocab: GGUFVocab) -> str:
    """A tokenizer.json in the layout of meta-llama/Llama-2-7b-hf's (the "legacy" Llama fast tokenizer).

    Merges are every split of a normal piece into two pieces of the vocabulary, ordered by the merged piece's
    score (best first), which is how transformers' LlamaConverter derived them from ``tokenizer.model``.
    """
    ids = {p: i for i, p in enumerate(vocab.pieces)}
    merges: list[tuple[float, int, int, str, str]] = []
    for piece, score, piece_type in zip(vocab.pieces, vocab.scores, vocab.types, strict=True):
        if piece_type != 1:
            continue
        for k in range(1, len(piece)):
            left, right = piece[:k], piece[k:]
            if left in ids and right in ids:
                merges.append((-score, ids[left], ids[right], left, right))
    merges.sort()
    special = [{"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True}
               for i, (p, t) in enumerate(zip(vocab.pieces, vocab.types, strict=True)) if t in (2, 3)]
    unk = next((p for p, t in zip(vocab.pieces, vocab.types, strict=True) if t == 2), "<unk>")
    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None, "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": unk, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": ids, "merges": [[m[3], m[4]] for m in merges]},
    }
    return json.dumps(doc, ensure_ascii=False)


def llamacpp_test_pairs(gguf_path: Path) -> list[tuple[str, list[int]]]:
    """llama.cpp's tokenizer test pairs next to a ``ggml-vocab-*.gguf`` (texts and the ids that the original
    Hugging Face tokenizer gave them), or [] when they are not there."""
    inp, out = Path(f"{gguf_path}.inp"), Path(f"{gguf_path}.out")
    if not (inp.is_file() and out.is_file()):
        return []
    texts = inp.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    rows = out.read_text(encoding="utf-8").split("\n")
    pairs = [(t, [int(x) for x in r.split()]) for t, r in zip(texts, rows, strict=False)]
    return [(t, ids) for t, ids in pairs if t]


def check_reference_ids(tok: TextTokenizer, cases: Sequence[tuple[str, list[int]]]) -> int:
    """Stop with a diff unless ``tok`` gives exactly the published ids; returns the number of cases checked."""
    for text, want in cases:
        got = tok.encode(text)
        if got != want:
            raise SystemExit(f"{tok.name} is not the Llama-2 tokenizer: {text!r}\n  want {want}\n  got  {got}")
    return len(cases)


class InMemorySentencePiece(SentencePieceTokenizer):
    """A SentencePiece tokenizer from a serialized ModelProto (nothing written to disk)."""

    def __init__(self, name: str, model_proto: bytes) -> None:
        import sentencepiece as spm

        self.name = name
        self.model_file = "<in memory>"
        self._sp = spm.SentencePieceProcessor(model_proto=model_proto)


def load_llama2(path: Path, workdir: Path) -> tuple[list[TextTokenizer], int]:
    """Real Llama-2 tokenizer(s) from ``path``, validated; returns them and the number of reference cases."""
    if path.suffix == ".gguf":
        vocab = read_gguf_vocab(path)
        spm_tok: TextTokenizer = InMemorySentencePiece("llama2 (spm, gguf)", sentencepiece_model_from_vocab(vocab))
        hf_dir = workdir / "llama2-hf"
        hf_dir.mkdir()
        (hf_dir / "tokenizer.json").write_text(hf_tokenizer_json_from_vocab(vocab), encoding="utf-8")
        hf_tok = HFTokenizer(hf_dir)  # what ``--tokenizer hf:DIR`` loads
        hf_tok.name = "llama2 (hf, gguf)"
        tokenizers = [spm_tok, hf_tok]
        cases = list(REFERENCE_IDS) + llamacpp_test_pairs(path)
    elif path.suffix == ".model":
        tokenizers = [SentencePieceTokenizer("llama2 (spm)", path)]
        cases = list(REFERENCE_IDS)
    else:
        hf_tok = HFTokenizer(path)
        hf_tok.name = "llama2 (hf)"
        tokenizers = [hf_tok]
        cases = list(REFERENCE_IDS)
    checked = 0
    for tok in tokenizers:
        checked = check_reference_ids(tok, cases)
    return tokenizers, checked


# ---------------------------------------------------------------------------------------------------------
# Sample texts
# ---------------------------------------------------------------------------------------------------------

def _corpus_documents(lang: str) -> list[tuple[str, str]] | None:
    """Documents of niah's embedded default corpus, or None when it is not installed."""
    try:
        from niah.corpus import load_corpus
    except ImportError:
        return None
    try:
        corpus = load_corpus("default", lang=lang)
        return [(d.id, "\n\n".join(d.paragraphs)) for d in corpus.documents()]
    except (NiahError, OSError):
        return None


def english_documents() -> list[tuple[str, list[tuple[str, str]]]]:
    """niah's English corpus (the prose haystacks are built from) when installed, and always Python's
    reference documentation topics (technical English with code snippets): the gap depends on the text."""
    from pydoc_data.topics import topics

    out = []
    docs = _corpus_documents("en")
    if docs:
        out.append(("English prose (niah corpus)", docs))
    out.append(("English technical (pydoc topics)", sorted(topics.items())))
    return out


def chinese_documents() -> tuple[str, list[tuple[str, str]]]:
    docs = _corpus_documents("zh")
    if docs:
        return "Chinese prose (niah corpus)", docs
    return "Chinese (8 paragraphs)", [(f"zh-{i}", t) for i, t in enumerate(CHINESE_FALLBACK)]


def code_documents() -> tuple[str, list[tuple[str, str]]]:
    docs = []
    for name in STDLIB_CODE_MODULES:
        spec = importlib.util.find_spec(name)
        if spec and spec.origin and spec.origin.endswith(".py"):
            docs.append((name, Path(spec.origin).read_text(encoding="utf-8")))
    return "Python code (stdlib)", docs


def number_documents(n_docs: int = 20, seed: int = 0) -> tuple[str, list[tuple[str, str]]]:
    """Number-heavy text of the kinds needles and tables carry: dates, amounts, ids, decimals, percentages."""
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        lines = []
        for _ in range(60):
            kind = rng.randrange(5)
            if kind == 0:
                lines.append(f"{rng.randint(1950, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}, "
                             f"{rng.uniform(0, 10000):.2f}, {rng.randint(0, 10**7):,}")
            elif kind == 1:
                lines.append(f"Order {rng.randint(10**5, 10**9)} shipped {rng.randint(1, 500)} units at "
                             f"${rng.uniform(1, 999):.2f} each ({rng.uniform(0, 100):.1f}% off).")
            elif kind == 2:
                lines.append(" ".join(str(rng.randint(0, 10 ** rng.randint(1, 6))) for _ in range(12)))
            elif kind == 3:
                lines.append(f"+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000, 9999)} "
                             f"{rng.randint(1000, 9999)}; lat {rng.uniform(-90, 90):.5f}, "
                             f"lon {rng.uniform(-180, 180):.5f}")
            else:
                lines.append(f"The magic number is {rng.randint(0, 10**8)}; "
                             f"{rng.randint(2, 99)} x {rng.randint(2, 99)} = ?")
        docs.append((f"numbers-{d}", "\n".join(lines)))
    return "Numbers (generated)", docs


# ---------------------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------------------

@dataclass
class Row:
    texts: str
    docs: int
    chars: int
    tokenizer: str
    tokens: int
    ratio: float  # total tokens / reference total tokens
    doc_ratio_min: float
    doc_ratio_median: float
    doc_ratio_max: float
    docs_equal: int  # documents whose count equals the reference count


def measure(label: str, docs: list[tuple[str, str]], tokenizers: Sequence[TextTokenizer],
            reference: TextTokenizer) -> list[Row]:
    texts = [t for _, t in docs if t]
    counts = {tok.name: tok.count_batch(texts) for tok in tokenizers}
    ref = counts[reference.name]
    rows = []
    for tok in tokenizers:
        mine = counts[tok.name]
        ratios = [m / r for m, r in zip(mine, ref, strict=True) if r]
        rows.append(Row(label, len(texts), sum(map(len, texts)), tok.name, sum(mine), sum(mine) / sum(ref),
                        min(ratios), statistics.median(ratios), max(ratios),
                        sum(m == r for m, r in zip(mine, ref, strict=True))))
    return rows


def markdown_table(rows: Sequence[Row], reference: str) -> str:
    head = (f"| text | docs | chars | tokenizer | tokens | chars/token | total / {reference} "
            "| per-doc ratio min / median / max | docs equal |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        lines.append(f"| {r.texts} | {r.docs} | {r.chars:,} | {r.tokenizer} | {r.tokens:,} | "
                     f"{r.chars / r.tokens:.2f} | {r.ratio:.3f} | "
                     f"{r.doc_ratio_min:.3f} / {r.doc_ratio_median:.3f} / {r.doc_ratio_max:.3f} | "
                     f"{r.docs_equal}/{r.docs} |")
    return "\n".join(lines)


def machine_description() -> str:
    versions = []
    for pkg in ("sentencepiece", "tokenizers", "bpe-openai", "mistral-common", "gguf"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions.append(f"{pkg} {importlib.metadata.version(pkg)}")
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}; " + ", ".join(versions))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llama2-vocab", type=Path,
                        help="the real Llama-2 vocabulary: a vocab GGUF, a tokenizer.model or a tokenizer.json")
    parser.add_argument("--tokenizer", action="append", default=[],
                        help="more niah tokenizer specs to compare (hf:PATH, sp:PATH); repeatable")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        tokenizers: list[TextTokenizer] = [get_tokenizer("llama2-sp")]
        checked = 0
        if args.llama2_vocab:
            real, checked = load_llama2(args.llama2_vocab, Path(tmp))
            tokenizers = real + tokenizers
        tokenizers += [get_tokenizer(n) for n in ("cl100k_base", "o200k_base")]
        tokenizers += [get_tokenizer(spec) for spec in args.tokenizer]
        reference = tokenizers[0]

        rows: list[Row] = []
        for label, docs in [*english_documents(), code_documents(), number_documents(), chinese_documents()]:
            rows.extend(measure(label, docs, tokenizers, reference))

    print(f"machine: {machine_description()}")
    print(f"command: python bench/tokenizer_compare.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    if checked:
        print(f"real Llama-2 tokenizer(s) reproduce {checked} published reference encodings exactly")
    print(f"reference for ratios: {reference.name}\n")
    print(markdown_table(rows, reference.name))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
