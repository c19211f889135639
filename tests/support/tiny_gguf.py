"""Write a tiny random-weight llama GGUF that llama.cpp (xllamacpp) loads, with no download.

The model is a 1-2 layer llama with a few hundred SentencePiece-style ("llama") tokens: the three special
tokens, the 256 byte-fallback tokens ``<0x00>``..``<0xFF>`` (so any UTF-8 text tokenizes) and a list of
common English words and letters prefixed with the SentencePiece space mark. Weights are random, so replies
are gibberish: the tests only need a real server that parses requests, tokenizes, decodes and reports usage.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SPACE_MARK = "\u2581"

# Common words give the tokenizer something better than bytes for English text (fewer tokens per prompt).
_WORDS = (
    "the of and to a in is that it was for on are as with his they at be this from have or by one had not "
    "but what all were when we there can an your which their said if do will each about how up out them then "
    "she many some so these would other into has more her two like him see time could no make than first been "
    "its who now people my made over did down only way find use may water long little very after words called "
    "just where most know get through back much before go good new write our used me man too any day same right "
    "look think also around another came come work three word must because does part even place well such here "
    "take why things help put years different away again off went old number great tell men say small every "
    "found still between name should home big give air line set own under read last never us left end along "
    "while might next sound below saw something thought both few those always looked show large often together "
    "asked house world going want school important until form food keep children feet land side without boy "
    "once animals life enough took sometimes four head above kind began almost live page got earth need far hand "
    "high year mother light parts country father let night following picture being study second eyes soon times "
    "story boys since white days ever paper hard near sentence better best across during today others however "
    "sure means knew answer question option image needle penguin counted secret ingredient letter choices "
    "single phrase given directly"
).split()


def tiny_vocab() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types of the tiny SentencePiece-style vocabulary."""
    tokens: list[str] = ["<unk>", "<s>", "</s>"]
    types: list[int] = [2, 3, 3]  # UNKNOWN, CONTROL, CONTROL (gguf.TokenType values)
    scores: list[float] = [0.0, 0.0, 0.0]
    for byte in range(256):
        tokens.append(f"<0x{byte:02X}>")
        types.append(6)  # BYTE
        scores.append(0.0)
    pieces: list[str] = []
    seen: set[str] = set()
    for word in _WORDS:
        # Every prefix too: SentencePiece merges pairs into pieces that exist, so a whole word is reachable
        # only through its prefixes ("▁t", "▁th", "▁the").
        for full in (SPACE_MARK + word, word):
            for end in range(2, len(full) + 1):
                piece = full[:end]
                if piece not in seen:
                    seen.add(piece)
                    pieces.append(piece)
    for ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;!?'\"-()[]{}":
        for piece in (ch, SPACE_MARK + ch):
            if piece not in seen:
                seen.add(piece)
                pieces.append(piece)
    if SPACE_MARK not in seen:
        pieces.append(SPACE_MARK)
    # Longer pieces score higher so the SentencePiece merge prefers whole words.
    for piece in pieces:
        tokens.append(piece)
        types.append(1)  # NORMAL
        scores.append(float(len(piece)) - 100.0)
    return tokens, scores, types


CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<s>' if loop.first else '' }}{{ message['role'] }}: "
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% endif %}{% endfor %}{% endif %}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}"
)


def write_tiny_llama_gguf(path: str | Path, *, n_embd: int = 64, n_layer: int = 2, n_head: int = 4,
                          n_ff: int = 128, context_length: int = 8192, seed: int = 0) -> Path:
    """Write the tiny model to ``path`` (float32 weights, random normal * 0.02) and return the path."""
    import gguf

    path = Path(path)
    rng = np.random.default_rng(seed)
    tokens, scores, types = tiny_vocab()
    n_vocab = len(tokens)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("niah-tiny-llama")
    writer.add_context_length(context_length)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    writer.add_tensor("token_embd.weight", weight(n_vocab, n_embd))
    writer.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    writer.add_tensor("output.weight", weight(n_vocab, n_embd))
    for i in range(n_layer):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.attn_q.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(n_ff, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(n_ff, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weight(n_embd, n_ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
