"""inspect_ai: a niah dataset as an inspect Task, scored by niah's official rule.

``niah export inspect DATASET --out task.py`` writes a small task file naming the dataset; ``inspect eval task.py
--model PROVIDER/MODEL`` then runs it. The task is built here (:func:`niah_task`), so the file stays valid as
niah changes:

* the dataset: one inspect sample per niah sample (same id), its input the family's rendered prompt (what
  ``niah run`` sends: the official prompt, system message and part order; images as files; a video's frames
  sampled as ``niah run`` samples them for models without native video, ``max_frames``), its target the gold
  answer as a reply, its metadata the task, benchmark and the sample's generation settings;
* the solver: one ``generate`` with the family's per-task decoding (max tokens, temperature, top-p, stop);
* the scorer: niah's family scorer on the completion: the ``official`` score as the value, every named mode in
  the score's metadata; the mean and its standard error as metrics. A sample the official rule refuses, or one
  without gold, scores 0 with the reason in the explanation (``niah score`` leaves those out).

Needs the inspect_ai package (``pip install 'niah-bench[inspect]'``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from niah import pip_install
from niah.sample import Dataset, ImagePart, Sample, TextPart, VideoPart, merge_text_parts
from niah.util.errors import ConfigError, DataError
from niah.util.iox import open_regular

TASK_TEMPLATE = '''"""inspect_ai task for a niah dataset, written by `niah export inspect` (niah {version}).

Run: inspect eval THIS_FILE --model PROVIDER/MODEL   (task options: -T max_frames=64 -T max_tokens=N)
Scores: niah's official rule for each sample (score metadata holds every named mode).
"""

from inspect_ai import Task, task

from niah.interop.inspect_task import niah_task

DATASET = {dataset}
MEDIA_ROOTS = {media_roots}


@task(name={task_name})
def {name}(max_frames: int | None = {max_frames}, question_first: bool = {question_first},
        max_tokens: int | None = {max_tokens}) -> Task:
    return niah_task(DATASET, media_roots=MEDIA_ROOTS, max_frames=max_frames, question_first=question_first,
                     max_tokens=max_tokens)
'''


#: Names the task file itself uses: a task function of one of these names would replace it (``DATASET``) or
#: the builtin its signature reads (``int``), and the file would not load.
_TEMPLATE_NAMES = frozenset({"Task", "task", "niah_task", "DATASET", "MEDIA_ROOTS", "max_frames", "question_first",
                             "max_tokens", "int", "bool"})


def check_task_name(name: str) -> None:
    """Refuse a ``--name`` that cannot be the task function of the generated file: not an identifier, a Python
    keyword (``class``, ``None``), a dunder, or a name the file itself uses."""
    import keyword

    if not name.isidentifier() or not name.isascii():
        raise ConfigError(f"--name {name!r} must be a Python identifier of ASCII letters, digits and underscores "
                          "(the task's name)")
    if keyword.iskeyword(name):
        raise ConfigError(f"--name {name!r} is a Python keyword; choose another task name")
    if name in _TEMPLATE_NAMES or (name.startswith("__") and name.endswith("__")):
        raise ConfigError(f"--name {name!r} is a name the task file uses itself; choose another task name")


def _written_by_us(path: Path) -> bool:
    """Whether ``path`` is a regular file that opens as the task file this module writes."""
    head = TASK_TEMPLATE.split("(niah", 1)[0]
    try:
        with open_regular(path) as fh:
            return fh.read(len(head.encode("utf-8"))).decode("utf-8", "replace") == head
    except (OSError, DataError):
        return False


def write_task_file(dataset: str | Path, out: str | Path, *, media_roots: tuple[str | Path, ...] = (),
                    max_frames: int | None = None, question_first: bool = False, name: str = "niah",
                    max_tokens: int | None = None, overwrite: bool = False) -> Path:
    """Write the task file for ``dataset`` (checked to open) at ``out``; returns ``out``. ``max_tokens`` (the
    task's default of ``-T max_tokens``) replaces every sample's answer budget, as ``niah run --max-tokens``.
    Only a task file this function wrote is replaced, unless ``overwrite``."""
    from niah import __version__
    from niah.util.iox import claim_output_file, write_atomic

    check_task_name(name)
    ds = Dataset(dataset, media_roots=media_roots)
    ds.validate(check_media=False)
    out = Path(out)
    if out.suffix != ".py":
        raise ConfigError(f"--out {out} must be a .py file (inspect eval reads a task file)")
    claim_output_file(out, overwrite=overwrite, is_ours=_written_by_us,  # never the user's own code unasked
                      kind="a task file niah export inspect wrote")
    if max_frames is not None and (isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1):
        raise ConfigError(f"--max-frames {max_frames!r} must be a positive integer")
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        raise ConfigError(f"--max-tokens {max_tokens!r} must be a positive integer")
    # every value reaches the file through repr (a Python literal of it), never as source text; the one name
    # written as source (the function's) was checked above to be an identifier that shadows nothing
    text = TASK_TEMPLATE.format(version=__version__, dataset=repr(str(ds.root.resolve())),
                                media_roots=repr([str(Path(r).resolve()) for r in media_roots]), name=name,
                                task_name=repr(name), max_frames=repr(max_frames),
                                question_first=repr(bool(question_first)), max_tokens=repr(max_tokens))
    write_atomic(out, text)
    return out


def _content(prompt: Any) -> str | list[Any]:
    """The user turn as niah's own backend sends it: a text-only prompt as one string, else its parts with each
    run of adjacent text merged into one (a server joins separate text parts its own way: llama.cpp with a
    newline), so the model gets the official prompt byte for byte."""
    from inspect_ai.model import ContentImage, ContentText, ContentVideo

    if all(isinstance(p, TextPart) for p in prompt.parts):
        return "".join(p.text for p in prompt.parts)
    content: list[Any] = []
    for part in merge_text_parts(prompt.parts):
        if isinstance(part, TextPart):
            content.append(ContentText(text=part.text))
        elif isinstance(part, ImagePart):
            content.append(ContentImage(image=str(prompt.resolve(part.path))))
        elif isinstance(part, VideoPart):
            if part.path is not None:
                content.append(ContentVideo(video=str(prompt.resolve(part.path)), format="mp4"))
            for frame in part.frames or ():
                content.append(ContentImage(image=str(prompt.resolve(frame))))
    return content


def _inspect_sample(sample: Sample, ds: Dataset, options: Any, override: Any = None) -> Any:
    from inspect_ai.dataset import Sample as InspectSample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    from niah.models.base import Capabilities
    from niah.models.baselines import format_gold
    from niah.prompts.render import fit_to_capabilities, render_prompt

    prompt = render_prompt(sample, ds.media_root, options)
    fit = fit_to_capabilities(prompt, sample, Capabilities(), options)  # a video's frames, as niah run sends them
    sent = fit.prompt or prompt
    messages: list[Any] = []
    if sent.system:
        messages.append(ChatMessageSystem(content=sent.system))
    messages.append(ChatMessageUser(content=_content(sent)))
    return InspectSample(id=sample.id, input=messages, target="" if sample.answer is None else format_gold(sample.answer),
                         metadata={"task": sample.task, "benchmark": sample.benchmark,
                                   "generation": sent.generation.merged(override).to_json(),
                                   # what `niah import responses` checks the log's sample against
                                   "niah_sample_key": sample.content_key()})


#: The tiktoken encodings bpe-openai (a niah dependency) ships, by the address tiktoken downloads each from; tiktoken
#: names a cached encoding by the SHA-1 of that address.
_TIKTOKEN_SOURCES = {name: f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
                     for name in ("o200k_base", "cl100k_base")}


def offline_tiktoken() -> Path | None:
    """inspect's providers (``mockllm/model`` among them) count tokens with tiktoken, which downloads its encoding
    on first use and so fails offline: fill a tiktoken cache in the user's cache folder from the copies bpe-openai
    ships and point ``TIKTOKEN_CACHE_DIR`` at it. A cache the user chose (``TIKTOKEN_CACHE_DIR`` or
    ``DATA_GYM_CACHE_DIR`` set) is left alone; returns the folder used, or None."""
    if os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR"):
        return None
    try:
        import bpe_openai
    except ImportError:
        return None
    from niah.util.iox import write_atomic

    shipped = Path(bpe_openai.__file__).parent / "data"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"  # XDG: a relative value is ignored
    cache = base / "niah" / "tiktoken"
    for name, url in _TIKTOKEN_SOURCES.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()
        packed = shipped / f"{name}.tiktoken.gz"
        if not target.is_file() and packed.is_file():
            cache.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomic(target, gzip.decompress(packed.read_bytes()))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return cache


def niah_task(dataset: str | Path, *, media_roots: tuple[str, ...] | list[str] = (), max_frames: int | None = None,
              question_first: bool = False, max_tokens: int | None = None) -> Any:
    """The inspect Task of ``dataset`` (see the module docstring); ``max_tokens`` replaces every sample's answer
    budget (``niah run --max-tokens``: niah's per-sample settings otherwise win over inspect's own)."""
    try:
        from inspect_ai import Task
        from inspect_ai.dataset import MemoryDataset
    except ImportError:
        raise ConfigError(f"the inspect task needs the inspect_ai package: {pip_install('inspect')}") from None
    offline_tiktoken()
    from niah.prompts.types import PromptOptions

    ds = Dataset(dataset, media_roots=tuple(media_roots))
    from niah.models.base import GenerationSettings

    options = PromptOptions(question_first=question_first, max_frames=max_frames)
    override = None if max_tokens is None else GenerationSettings(max_tokens=int(max_tokens))
    samples: dict[str, Sample] = {}
    items = []
    for sample in ds:
        samples[sample.id] = sample
        items.append(_inspect_sample(sample, ds, options, override))
    return Task(dataset=MemoryDataset(items, name=ds.root.name), solver=_niah_generate(),
                scorer=_niah_rule(samples), name=f"niah-{ds.root.name}")


def _niah_generate() -> Any:
    from inspect_ai.solver import Generate, TaskState, solver

    @solver
    def niah_generate() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            gen = (state.metadata or {}).get("generation") or {}
            config: dict[str, Any] = {}
            for ours, theirs in (("max_tokens", "max_tokens"), ("temperature", "temperature"), ("top_p", "top_p"),
                                 ("seed", "seed"), ("stop", "stop_seqs")):
                if gen.get(ours) is not None:
                    config[theirs] = list(gen[ours]) if ours == "stop" else gen[ours]
            return await generate(state, **config)

        return solve

    return niah_generate()


def _niah_rule(samples: dict[str, Sample]) -> Any:
    from inspect_ai.scorer import Score, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState

    from niah.benchmarks.protocol import OFFICIAL
    from niah.scoring.metrics.base import MetricInputError
    from niah.scoring.score import get_scorer

    @scorer(metrics=[mean(), stderr()])
    def niah_rule() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            sample = samples[str(state.sample_id)]
            response = state.output.completion if state.output is not None else None
            if sample.answer is None:
                return Score(value=0, answer=response, explanation="no gold answer (niah score leaves it out)")
            try:
                result = get_scorer(sample.benchmark).score(sample, response)
            except MetricInputError as exc:
                return Score(value=0, answer=response,
                             explanation=f"refused by the official rule ({exc.message}; niah score leaves it out)")
            return Score(value=result.scores[OFFICIAL], answer=response,
                         metadata={"scores": json.loads(json.dumps(result.scores))})

        return score

    return niah_rule()
