"""Redaction masks real secrets only: a registered API key, a bearer/basic header value, URL credentials; an
ordinary message (a builder's error naming an ``N-token sample``) is left as written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from niah.util.redact import MASK, add_secret, redact


def test_an_ordinary_build_error_is_not_masked_while_a_real_key_still_is() -> None:
    key = "sk-live-RedactMe-20261202-abcdef"
    add_secret(key)
    add_secret("Zq9x")  # a short key the user chose is still a key: masked wherever it appears
    assert redact("server said: unknown key Zq9x") == f"server said: unknown key {MASK}"
    message = ("the corpus holds 1400 cl100k_base tokens of en text, not enough for a 2509-token sample; "
               "use a larger corpus (--corpus) or the right length")
    assert redact(message) == message
    assert redact(f"HTTP 401: bad key {key} for token sample") == f"HTTP 401: bad key {MASK} for token sample"
    assert redact("echoed Authorization: Bearer abcDEF123456") == f"echoed Authorization: Bearer {MASK}"
    assert redact("Basic dXNlcjpwYXNz") == f"Basic {MASK}"  # user:pass in base64, letters only
    assert redact("Basic Authentication failed") == "Basic Authentication failed"
    assert redact("see http://me:hunter2hunter2@host/v1") == f"see http://{MASK}@host/v1"


def test_the_seq_niah_build_error_names_the_sample_in_plain_words(tmp_path: Path) -> None:
    corpus = tmp_path / "tiny"
    corpus.mkdir()
    (corpus / "a.txt").write_text(" ".join(f"Sentence number {i} is here." for i in range(200)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "niah.cli", "build", "seq-niah", "-o", str(tmp_path / "ds"),
                           "--lengths", "2k-4k", "--per-cell", "1", "--lang", "en", "--corpus", f"textdir:{corpus}",
                           "--no-progress"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "-token sample; use a larger corpus" in done.stderr and MASK not in done.stderr
