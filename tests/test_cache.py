"""The response cache: fingerprints, the JSONL log + SQLite WAL index, and recovery after a crash."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from niah.models.base import GenerationSettings
from niah.prompts.types import RenderedPrompt
from niah.run.cache import CACHE_JSONL, CACHE_SQLITE, CacheChain, ResponseCache, request_fingerprint
from niah.sample import ImagePart, TextPart


def _prompt(root: Path, text: str = "Hello", image: str | None = "media/a.png") -> RenderedPrompt:
    parts: list = [TextPart(text)]
    if image:
        parts.append(ImagePart(image))
    return RenderedPrompt(parts=parts, roles=["question"] * len(parts), media_root=root,
                          generation=GenerationSettings())


def _media(tmp_path: Path, name: str, data: bytes) -> None:
    (tmp_path / "media").mkdir(exist_ok=True)
    (tmp_path / "media" / name).write_bytes(data)


def test_fingerprint_covers_model_prompt_images_and_settings(tmp_path):
    _media(tmp_path, "a.png", b"image-one")
    model = {"provider": "openai", "model": "m"}
    gen = GenerationSettings(temperature=0.0, max_tokens=16)
    key = request_fingerprint(model, _prompt(tmp_path), gen)
    assert key == request_fingerprint(dict(model), _prompt(tmp_path), GenerationSettings(max_tokens=16,
                                                                                         temperature=0.0))
    assert key != request_fingerprint({"provider": "openai", "model": "other"}, _prompt(tmp_path), gen)
    assert key != request_fingerprint(model, _prompt(tmp_path, "Hello!"), gen)
    assert key != request_fingerprint(model, _prompt(tmp_path), GenerationSettings(temperature=0.0, max_tokens=32))
    (tmp_path / "media" / "a.png").write_bytes(b"image-two")  # same path, new content: new key
    assert key != request_fingerprint(model, _prompt(tmp_path), gen)


def test_fingerprint_hashes_image_content_not_paths(tmp_path):
    _media(tmp_path, "a.png", b"same bytes")
    _media(tmp_path, "b.png", b"same bytes")
    model = {"m": 1}
    gen = GenerationSettings()
    assert request_fingerprint(model, _prompt(tmp_path, image="media/a.png"), gen) == \
        request_fingerprint(model, _prompt(tmp_path, image="media/b.png"), gen)


def test_put_get_survives_reopen_and_writes_one_json_line_each(tmp_path):
    with ResponseCache(tmp_path) as cache:
        cache.put("k1", {"response": "A", "usage": {"prompt_tokens": 3}})
        cache.put("k2", {"response": "B"})
        assert cache.get("k1")["response"] == "A"
        assert cache.get("missing") is None
    lines = (tmp_path / CACHE_JSONL).read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == ["k1", "k2"]
    with ResponseCache(tmp_path) as cache:
        assert len(cache) == 2 and cache.get("k2")["response"] == "B"
    mode = sqlite3.connect(tmp_path / CACHE_SQLITE).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_lines_missing_from_the_index_are_indexed_on_open(tmp_path):
    """A process killed after the JSONL append but before the SQLite commit loses nothing."""
    with ResponseCache(tmp_path) as cache:
        cache.put("k1", {"response": "A"})
    with (tmp_path / CACHE_JSONL).open("a") as fh:
        fh.write(json.dumps({"key": "k2", "response": "B"}) + "\n")
    with ResponseCache(tmp_path) as cache:
        assert cache.get("k2")["response"] == "B" and len(cache) == 2


def test_a_torn_last_line_is_cut_and_appends_continue_cleanly(tmp_path):
    with ResponseCache(tmp_path) as cache:
        cache.put("k1", {"response": "A"})
    with (tmp_path / CACHE_JSONL).open("a") as fh:
        fh.write('{"key": "k2", "respo')  # killed mid-write
    with ResponseCache(tmp_path) as cache:
        assert cache.get("k2") is None
        cache.put("k3", {"response": "C"})
    lines = (tmp_path / CACHE_JSONL).read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == ["k1", "k3"]


def test_a_lost_index_is_rebuilt_from_the_log(tmp_path):
    with ResponseCache(tmp_path) as cache:
        for i in range(5):
            cache.put(f"k{i}", {"response": str(i)})
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp_path / CACHE_SQLITE) + suffix).unlink(missing_ok=True)
    with ResponseCache(tmp_path) as cache:
        assert len(cache) == 5 and cache.get("k4")["response"] == "4"


def test_two_caches_on_one_directory_see_each_others_entries(tmp_path):
    a, b = ResponseCache(tmp_path), ResponseCache(tmp_path)
    try:
        a.put("from-a", {"response": "x"})
        b.put("from-b", {"response": "y"})
        assert b.get("from-a")["response"] == "x" and a.get("from-b")["response"] == "y"
    finally:
        a.close()
        b.close()
    with ResponseCache(tmp_path) as c:
        assert len(c) == 2


def test_chain_copies_shared_hits_into_the_run_cache(tmp_path):
    run_cache, shared = ResponseCache(tmp_path / "run"), ResponseCache(tmp_path / "shared")
    shared.put("k", {"response": "from shared"})
    chain = CacheChain([run_cache, shared])
    assert chain.get("k")["response"] == "from shared"
    assert run_cache.get("k")["response"] == "from shared"
    chain.put("k2", {"response": "new"})
    assert shared.get("k2")["response"] == "new"
    chain.close()
