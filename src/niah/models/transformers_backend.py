"""Local transformers models (``hf:<path>``): image-text-to-text models through their processor and chat
template, with the prompt's images interleaved in order.

The user turn is built as chat-template content parts (``{"type": "image"}`` where an image goes,
``{"type": "text"}`` for text), rendered by the processor's chat template, and the images are handed to the
processor in the same order, so each image lands at its placeholder. Models without a chat template get the
text with the processor's image token in place. Text-only causal LMs load through ``AutoModelForCausalLM``.

Needs the ``torch`` extra (torch + transformers); never torchvision: image processors fall back to their
PIL implementations. Loading happens on the first request, in a worker thread. Requests run one at a time.
Options: ``device`` (``cpu`` default, ``cuda``, ``cuda:1``, ``auto``), ``dtype`` (``auto``, ``float32``,
``bfloat16``, ``float16``), ``image_size`` (e.g. ``448x448``), ``trust_remote_code`` (false).
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from pathlib import Path
from typing import Any

from niah.models.base import Capabilities, ModelReply, ModelRequest, ModelSpec, PermanentModelError
from niah.models.media import ImageEncoder, parse_image_size
from niah.sample import ImagePart, TextPart, VideoPart, merge_text_parts
from niah.util.errors import ConfigError

_DTYPES = ("auto", "float32", "bfloat16", "float16")
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".json", ".model", ".jinja")


def _truthy(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")


def weights_fingerprint(path: Path) -> str:
    """A cheap identity of a local model directory: names, sizes and mtimes of its weight/config files, so
    that a model retrained in place does not reuse the old cache entries."""
    h = hashlib.sha256()
    if path.is_dir():
        for f in sorted(path.rglob("*")):
            if f.is_file() and f.suffix in _WEIGHT_SUFFIXES:
                st = f.stat()
                h.update(f"{f.relative_to(path)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


class TransformersBackend:
    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.capabilities = spec.capabilities or Capabilities()
        opts = dict(spec.options)
        self.device = str(opts.pop("device", "cpu"))
        self.dtype = str(opts.pop("dtype", "auto"))
        if self.dtype not in _DTYPES:
            raise ConfigError(f"dtype must be one of {', '.join(_DTYPES)}, got {self.dtype!r}")
        self.image_size = parse_image_size(opts.pop("image_size", None))
        self.trust_remote_code = _truthy(opts.pop("trust_remote_code", False))
        if opts:
            raise ConfigError(f"unknown options for hf backend: {', '.join(sorted(opts))}")
        self.path = Path(spec.name).expanduser()
        if not self.path.exists():
            raise ConfigError(f"hf model path {self.path} does not exist (models are never downloaded)")
        self.images = ImageEncoder(size=self.image_size)
        self._lock = threading.Lock()
        self._model: Any = None
        self._processor: Any = None
        self._multimodal = True
        self._fingerprint = weights_fingerprint(self.path)

    def identity(self) -> dict[str, Any]:
        out: dict[str, Any] = {"provider": "hf", "model": str(self.path.resolve()), "weights": self._fingerprint,
                               "dtype": self.dtype}
        if self.image_size is not None:
            out["image_size"] = list(self.image_size)
        return out

    def max_in_flight(self, concurrency: int) -> int:
        return 1

    # -- loading -------------------------------------------------------------------------------------------

    def _torch_dtype(self) -> Any:
        import torch

        return {"auto": "auto", "float32": torch.float32, "bfloat16": torch.bfloat16,
                "float16": torch.float16}[self.dtype]

    def _resolved_device(self) -> str:
        if self.device != "auto":
            return self.device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def load(self) -> None:
        """Load processor and model (idempotent). Called on the first request, or by hand to fail early."""
        if self._model is not None:
            return
        try:
            import transformers
        except ImportError as exc:
            raise ConfigError(f"hf backend needs the 'torch' extra (torch, transformers): {exc}") from None
        kwargs = {"trust_remote_code": self.trust_remote_code}
        try:
            processor = transformers.AutoProcessor.from_pretrained(self.path, **kwargs)
        except (OSError, ValueError):
            processor = transformers.AutoTokenizer.from_pretrained(self.path, **kwargs)
        self._multimodal = hasattr(processor, "image_processor")
        model_cls = (transformers.AutoModelForImageTextToText if self._multimodal
                     else transformers.AutoModelForCausalLM)
        model = model_cls.from_pretrained(self.path, dtype=self._torch_dtype(), **kwargs)
        # transformers declares PreTrainedModel.to as @wraps(torch.nn.Module.to), so its stub has the unbound
        # signature (self first) and a bound call does not type-check; the call is right at run time.
        self._model = model.to(self._resolved_device()).eval()  # type: ignore[arg-type]
        self._processor = processor
        if not self._multimodal and self.capabilities.vision and self.spec.capabilities is None:
            self.capabilities = Capabilities(vision=False)

    # -- inputs ----------------------------------------------------------------------------------------------

    def build_inputs(self, request: ModelRequest) -> tuple[str, list[Any]]:
        """The templated prompt text and the PIL images in the order their placeholders appear."""
        self.load()
        prompt = request.prompt
        content: list[dict[str, Any]] = []
        images: list[Any] = []
        for part in merge_text_parts(prompt.parts):  # a chat template may put a separator between text parts
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
                continue
            paths = [part.path] if isinstance(part, ImagePart) else list(part.frames or ())
            if isinstance(part, VideoPart) and not part.frames:
                raise PermanentModelError("hf backend takes video as frames only")
            for rel in paths:
                images.append(self.images.pil(prompt.resolve(rel), prompt.image_scale))
                content.append({"type": "image"})
        if images and not self._multimodal:
            raise PermanentModelError(f"{self.path.name} is a text-only model; the prompt has {len(images)} images")
        messages: list[dict[str, Any]] = []
        if prompt.system:
            messages.append({"role": "system", "content": [{"type": "text", "text": prompt.system}]})
        messages.append({"role": "user", "content": content})
        processor = self._processor
        template_owner = processor if getattr(processor, "chat_template", None) else getattr(
            processor, "tokenizer", processor)
        if getattr(template_owner, "chat_template", None):
            if not self._multimodal:  # tokenizers' templates expect string content
                messages = [{"role": m["role"], "content": "".join(p.get("text", "") for p in m["content"])}
                            for m in messages]
            text = template_owner.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        else:
            image_token = getattr(processor, "image_token", "<image>")
            text = "".join(p["text"] if p["type"] == "text" else image_token for p in content)
        return text, images

    # -- generation --------------------------------------------------------------------------------------

    def _generate_sync(self, request: ModelRequest) -> ModelReply:
        import torch

        with self._lock:
            text, images = self.build_inputs(request)
            processor = self._processor
            if self._multimodal:
                inputs = processor(text=text, images=images or None, return_tensors="pt")
            else:
                inputs = processor(text, return_tensors="pt", add_special_tokens=False)
            inputs = inputs.to(self._model.device)
            if "pixel_values" in inputs and self._model.dtype != inputs["pixel_values"].dtype:
                inputs["pixel_values"] = inputs["pixel_values"].to(self._model.dtype)
            gen = request.generation
            kwargs: dict[str, Any] = {"max_new_tokens": gen.max_tokens or 128}
            if gen.greedy:
                kwargs["do_sample"] = False
            else:
                kwargs.update(do_sample=True, temperature=gen.temperature)
                if gen.top_p is not None:
                    kwargs["top_p"] = gen.top_p
            if gen.seed is not None:
                torch.manual_seed(gen.seed)
            kwargs.update(dict(gen.extra))
            tokenizer = getattr(processor, "tokenizer", processor)
            if getattr(tokenizer, "pad_token_id", None) is not None:
                kwargs.setdefault("pad_token_id", tokenizer.pad_token_id)
            try:
                with torch.inference_mode():
                    output = self._model.generate(**inputs, **kwargs)
            except torch.cuda.OutOfMemoryError as exc:
                raise PermanentModelError(f"out of memory: {exc}") from None
            prompt_len = int(inputs["input_ids"].shape[1])
            new_tokens = output[0, prompt_len:]
            reply = tokenizer.decode(new_tokens, skip_special_tokens=True)
            if gen.stop:
                cut = min((i for i in (reply.find(s) for s in gen.stop) if i >= 0), default=-1)
                if cut >= 0:
                    reply = reply[:cut]
            completion = int(new_tokens.shape[0])
            return ModelReply(text=reply, usage={"prompt_tokens": prompt_len, "completion_tokens": completion,
                                                 "total_tokens": prompt_len + completion})

    async def generate(self, request: ModelRequest) -> ModelReply:
        return await asyncio.to_thread(self._generate_sync, request)

    async def aclose(self) -> None:
        self._model = None
        self._processor = None
