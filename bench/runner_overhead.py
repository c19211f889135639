"""Harness overhead of `niah run` against a local OpenAI-compatible server, next to a minimal asyncio client.

Both send the same N chat requests (the exact prompts niah renders, about --prompt-tokens each,
--max-tokens out, greedy) at the same concurrency, to the same server. Printed:

- wall time, requests/s, and the harness overhead per request = (niah wall - minimal wall) / N;
- niah's wall time relative to the minimal client's (target: within 5%);
- `niah --help` start-up time (target: under 1 s) and the peak RSS of a full `niah run` process (target: under
  200 MB), both measured on subprocesses.

By default the script writes a tiny random-weight llama GGUF and serves it with xllamacpp on 127.0.0.1
(prompt caching off, so that repeated prompts cost the same); --base-url uses a running server instead.
For scale, one xllamacpp server with a real model (300 requests of about 2K tokens, 8 out, concurrency 8)
measured: minimal client 20.5 s, inspect-ai 27.8 s, lm-eval 30.2 s, lmms-eval 31.8 s.

    .venv/bin/python bench/runner_overhead.py --requests 300 --concurrency 8
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import niah.run.cache

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the tiny GGUF writer and dataset helpers live in tests/support

REFERENCE = {"minimal client": 20.5, "inspect-ai": 27.8, "lm-eval": 30.2, "lmms-eval": 31.8}


def make_prompts(n: int, words_per_prompt: int, seed: int) -> list[str]:
    """Distinct prompts built from words the tiny model's vocabulary holds whole (about a token a word)."""
    from support.tiny_gguf import _WORDS

    rng = random.Random(seed)
    return [f"Request {seed}-{i}: " + " ".join(rng.choice(_WORDS) for _ in range(words_per_prompt)) + "."
            for i in range(n)]


def write_dataset(out: Path, prompts: list[str]) -> list[str]:
    """The dataset niah runs, and the exact user texts niah will send for it (for the minimal client)."""
    from niah.prompts.render import render_prompt
    from niah.sample import Dataset
    from support.datasets import write_text_prompts

    write_text_prompts(out, prompts)
    ds = Dataset(out)
    return [render_prompt(s, ds.media_root).text() for s in ds]


async def minimal_client(base_url: str, texts: list[str], model: str, max_tokens: int, concurrency: int) -> float:
    """The least a client can do: one pooled httpx client, a semaphore, one POST per prompt."""
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=600) as client:
        semaphore = asyncio.Semaphore(concurrency)

        async def one(text: str) -> None:
            async with semaphore:
                r = await client.post("/chat/completions", json={
                    "model": model, "messages": [{"role": "user", "content": text}],
                    "max_tokens": max_tokens, "temperature": 0.0})
                if r.status_code != 200:
                    raise RuntimeError(f"HTTP {r.status_code}: {r.text[:300]}")
                r.json()["choices"][0]["message"]["content"]

        t0 = time.perf_counter()
        await asyncio.gather(*(one(t) for t in texts))
        return time.perf_counter() - t0


def niah_in_process(dataset: Path, out: Path, base_url: str, model: str, max_tokens: int,
                    concurrency: int) -> tuple[float, int]:
    from niah.models.base import GenerationSettings
    from niah.run import run_dataset_sync

    t0 = time.perf_counter()
    summary = run_dataset_sync(dataset, f"openai:{model}", out, base_urls=[base_url], concurrency=concurrency,
                               generation=GenerationSettings(max_tokens=max_tokens), progress=False)
    wall = time.perf_counter() - t0
    if summary.failed:
        raise SystemExit(f"niah run had {summary.failed} failures: {summary.errors}")
    return wall, summary.prompt_tokens // max(summary.answered, 1)


# Runs the CLI and reports the process's own peak RSS (VmHWM) at exit. ru_maxrss is no good here: Linux counts
# the pages a child inherited from this (large, server-holding) process before exec.
_PEAK_WRAPPER = (
    "import atexit, runpy, sys\n"
    "def _peak():\n"
    "    with open('/proc/self/status') as fh:\n"
    "        line = next(l for l in fh if l.startswith('VmHWM'))\n"
    "    sys.stderr.write('PEAK_KB ' + line.split()[1] + '\\n')\n"
    "atexit.register(_peak)\n"
    "sys.argv = ['niah'] + sys.argv[1:]\n"
    "runpy.run_module('niah.cli', run_name='__main__')\n"
)


def niah_subprocess(dataset: Path, out: Path, base_url: str, model: str, max_tokens: int,
                    concurrency: int) -> tuple[float, float]:
    """End-to-end `niah run` as a user starts it: wall seconds and peak RSS in MB."""
    cmd = [sys.executable, "-c", _PEAK_WRAPPER, "run", str(dataset), "--model", f"openai:{model}", "--base-url",
           base_url, "--out", str(out), "--concurrency", str(concurrency), "--max-tokens", str(max_tokens),
           "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"niah run failed: {proc.stderr}")
    peak_kb = next(int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("PEAK_KB "))
    return wall, peak_kb / 1024


def startup_seconds(repeats: int = 5) -> float:
    cmd = [sys.executable, "-m", "niah.cli", "--help"]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


_SERVER_SCRIPT = """
import sys, time, httpx, xllamacpp as xlc
params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.n_parallel = int(sys.argv[2])
params.n_ctx = int(sys.argv[3])
params.cpuparams.n_threads = int(sys.argv[4])
params.cpuparams_batch.n_threads = int(sys.argv[4])
params.port = 0
params.cache_prompt = False
params.verbosity = -1
server = xlc.Server(params)
root = server.listening_address
for _ in range(400):
    try:
        if httpx.get(root + "/health", timeout=1).status_code == 200:
            break
    except httpx.HTTPError:
        time.sleep(0.05)
print(root + "/v1", flush=True)
sys.stdin.read()  # serve until the benchmark closes our stdin
"""


def start_server(workdir: Path, args: argparse.Namespace) -> tuple[subprocess.Popen, str]:
    """The tiny llama behind xllamacpp in its own process, so that its threads never share this process's
    CPU accounting (client CPU time below is this process only)."""
    from support.tiny_gguf import write_tiny_llama_gguf

    gguf = write_tiny_llama_gguf(workdir / "bench.gguf", n_embd=args.n_embd, n_layer=args.n_layer,
                                 n_head=max(args.n_embd // 32, 1), n_ff=args.n_embd * 2)
    n_ctx = args.concurrency * (args.prompt_tokens + 512)
    proc = subprocess.Popen([sys.executable, "-c", _SERVER_SCRIPT, str(gguf), str(args.concurrency), str(n_ctx),
                             str(args.threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit("the benchmark server did not start")
    return proc, url


def client_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def disk_writes() -> tuple[int, int]:
    """(filesystem block writes, bytes sent to storage) of this process so far: what a run costs the disk."""
    blocks = resource.getrusage(resource.RUSAGE_SELF).ru_oublock
    written = 0
    try:
        with open("/proc/self/io") as fh:
            for line in fh:
                if line.startswith("write_bytes:"):
                    written = int(line.split()[1])
    except OSError:
        pass
    return blocks, written


def niah_with_index_batch(batch: int, dataset: Path, out: Path, base_url: str, model: str, max_tokens: int,
                          concurrency: int) -> tuple[float, int, int]:
    """One in-process niah run with the cache index committed every ``batch`` replies: wall, blocks, bytes."""
    import niah.run.cache

    old = niah.run.cache.DEFAULT_INDEX_BATCH
    niah.run.cache.DEFAULT_INDEX_BATCH = batch
    try:
        b0, w0 = disk_writes()
        wall, _ = niah_in_process(dataset, out, base_url, model, max_tokens, concurrency)
        b1, w1 = disk_writes()
    finally:
        niah.run.cache.DEFAULT_INDEX_BATCH = old
    return wall, b1 - b0, w1 - w0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--prompt-tokens", type=int, default=2000, help="about this many tokens per prompt")
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3, help="alternating minimal/niah rounds (median kept)")
    parser.add_argument("--base-url", help="use this running server (…/v1) instead of starting one")
    parser.add_argument("--model", default="tiny", help="served model name")
    parser.add_argument("--n-embd", type=int, default=128, help="built-in server: model width")
    parser.add_argument("--n-layer", type=int, default=2, help="built-in server: layers")
    parser.add_argument("--threads", type=int, default=1,
                        help="built-in server: CPU threads (leave the client a core: it shares the machine)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="niah-bench-") as tmp_name:
        tmp = Path(tmp_name)
        server = None
        base_url = args.base_url
        if base_url is None:
            server, base_url = start_server(tmp, args)
        words = max(args.prompt_tokens - 40, 1)  # the MM-NIAH prompt adds the question and instruction line
        warm = write_dataset(tmp / "warm", make_prompts(args.concurrency * 2, words, seed=999))
        asyncio.run(minimal_client(base_url, warm, args.model, args.max_tokens, args.concurrency))

        minimal_walls, niah_walls, minimal_cpu, niah_cpu, prompt_tokens = [], [], [], [], 0
        minimal_disk = (0, 0)
        for r in range(args.rounds):
            texts = write_dataset(tmp / f"min{r}", make_prompts(args.requests, words, seed=2 * r))
            c0 = client_cpu()
            d0 = disk_writes()
            minimal_walls.append(asyncio.run(minimal_client(base_url, texts, args.model, args.max_tokens,
                                                            args.concurrency)))
            d1 = disk_writes()
            minimal_disk = (d1[0] - d0[0], d1[1] - d0[1])
            minimal_cpu.append(client_cpu() - c0)
            write_dataset(tmp / f"niah{r}", make_prompts(args.requests, words, seed=2 * r + 1))
            c0 = client_cpu()
            wall, prompt_tokens = niah_in_process(tmp / f"niah{r}", tmp / f"run{r}", base_url, args.model,
                                                  args.max_tokens, args.concurrency)
            niah_cpu.append(client_cpu() - c0)
            niah_walls.append(wall)
        disk: dict[str, tuple[float, int, int]] = {}
        for label, batch in (("index committed per reply", 1),
                             (f"index batched ({niah.run.cache.DEFAULT_INDEX_BATCH})", niah.run.cache.DEFAULT_INDEX_BATCH)):
            name = f"disk{batch}"
            write_dataset(tmp / name, make_prompts(args.requests, words, seed=7000 + batch))
            disk[label] = niah_with_index_batch(batch, tmp / name, tmp / f"run-{name}", base_url, args.model,
                                                args.max_tokens, args.concurrency)
        write_dataset(tmp / "cli", make_prompts(args.requests, words, seed=12345))
        cli_wall, peak_mb = niah_subprocess(tmp / "cli", tmp / "run-cli", base_url, args.model, args.max_tokens,
                                            args.concurrency)
        startup = startup_seconds()
        if server is not None:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(timeout=30)

    n = args.requests
    med_min, med_niah = statistics.median(minimal_walls), statistics.median(niah_walls)
    cpu_min, cpu_niah = statistics.median(minimal_cpu) / n * 1000, statistics.median(niah_cpu) / n * 1000
    print(f"server: {'built-in xllamacpp tiny llama (own process)' if args.base_url is None else args.base_url}; "
          f"{n} requests, ~{prompt_tokens} prompt tokens (server count), {args.max_tokens} out, "
          f"concurrency {args.concurrency}, median of {args.rounds} alternating rounds")
    print("rounds (s): minimal " + " ".join(f"{w:.2f}" for w in minimal_walls)
          + "; niah " + " ".join(f"{w:.2f}" for w in niah_walls))
    print(f"{'client':<26}{'wall s':>9}{'req/s':>9}{'client CPU ms/req':>19}")
    print(f"{'minimal asyncio (httpx)':<26}{med_min:>9.2f}{n / med_min:>9.1f}{cpu_min:>19.2f}")
    print(f"{'niah run_dataset':<26}{med_niah:>9.2f}{n / med_niah:>9.1f}{cpu_niah:>19.2f}")
    print(f"{'niah run (CLI process)':<26}{cli_wall:>9.2f}{n / cli_wall:>9.1f}")
    ratio = med_niah / med_min
    print(f"harness overhead per request: {(med_niah - med_min) / n * 1000:.2f} ms wall, "
          f"{cpu_niah - cpu_min:.2f} ms client CPU; niah / minimal wall = {ratio:.3f} "
          f"({'within' if ratio <= 1.05 else 'OVER'} the 5% target)")
    print(f"disk writes per run of {n} requests (filesystem blocks / bytes to storage):")
    print(f"  {'minimal asyncio (httpx)':<34}{minimal_disk[0]:>8} blocks {minimal_disk[1] / 1024:>9.0f} KiB")
    for label, (wall, blocks, written) in disk.items():
        print(f"  {'niah, ' + label:<34}{blocks:>8} blocks {written / 1024:>9.0f} KiB  wall {wall:.2f} s")
    print(f"niah --help start-up: {startup:.3f} s ({'under' if startup < 1 else 'OVER'} the 1 s target)")
    print(f"peak RSS of `niah run`: {peak_mb:.0f} MB ({'under' if peak_mb < 200 else 'OVER'} the 200 MB target)")
    print("reference (real model, one xllamacpp server): "
          + ", ".join(f"{k} {v} s" for k, v in REFERENCE.items()))


if __name__ == "__main__":
    main()
