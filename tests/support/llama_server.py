"""A real llama.cpp server (xllamacpp, in process) on 127.0.0.1, serving the tiny random-weight GGUF or a given
GGUF file (the packaged SmolLM2-135M-Instruct of ``support.real_model``)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from support.tiny_gguf import write_tiny_llama_gguf


class LlamaServer:
    """``LlamaServer(tmp_dir).start()`` returns the ``/v1`` base URL; the server lives as long as this object
    (xllamacpp stops it when the ``Server`` is garbage-collected; :meth:`stop` drops it at once)."""

    def __init__(self, workdir: str | Path, *, n_parallel: int = 4, n_ctx: int = 16384, n_threads: int = 1,
                 n_embd: int = 64, n_layer: int = 2, gguf: str | Path | None = None,
                 prompt_cache: bool = True) -> None:
        # prompt_cache=False: no KV reuse across requests, so temperature-0 replies do not depend on what was
        # asked before (docs/real-model.md)
        # gguf: an existing model file to serve; without it the tiny random-weight llama is written into workdir
        self.gguf_path = Path(gguf) if gguf is not None else Path(workdir) / "tiny-llama.gguf"
        self.n_parallel = n_parallel
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_embd = n_embd
        self.n_layer = n_layer
        self.prompt_cache = prompt_cache
        self._server = None
        self.base_url = ""
        self.root = ""

    def start(self, timeout_s: float = 300.0) -> str:
        """Start the server and wait until it answers /health; ``timeout_s`` is a hang guard, not a measurement
        (a busy machine may take a while to load even the tiny model)."""
        import xllamacpp as xlc

        if not self.gguf_path.exists():
            write_tiny_llama_gguf(self.gguf_path, n_embd=self.n_embd, n_layer=self.n_layer)
        params = xlc.CommonParams()
        params.model.path = str(self.gguf_path)
        params.n_ctx = self.n_ctx
        params.n_parallel = self.n_parallel
        params.cpuparams.n_threads = self.n_threads
        params.cpuparams_batch.n_threads = self.n_threads
        params.port = 0  # any free port; listening_address tells which
        params.warmup = False
        params.verbosity = -1
        if not self.prompt_cache:
            params.cache_prompt = False
            params.cache_ram_mib = 0
            params.cache_idle_slots = False
        self._server = xlc.Server(params)
        root = self._server.listening_address
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if httpx.get(f"{root}/health", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp server at {root} did not become healthy in {timeout_s}s")
            time.sleep(0.05)
        self.root = root
        self.base_url = f"{root}/v1"
        return self.base_url

    def stop(self) -> None:
        self._server = None
