"""Model backends behind one spec string (``openai:``, ``hf:``, ``vllm:``, ``baseline:``), loaded lazily.

Only the light types and the registry are imported here; each backend module is imported when a backend of
its kind is built, so ``import niah.models`` stays cheap.
"""

from niah.models.base import (
    Capabilities,
    GenerationSettings,
    ModelBackend,
    ModelError,
    ModelReply,
    ModelRequest,
    ModelSpec,
    PermanentModelError,
    RetryableModelError,
)
from niah.models.registry import load_backend, parse_model_spec, providers, register_provider

__all__ = [
    "Capabilities",
    "GenerationSettings",
    "ModelBackend",
    "ModelError",
    "ModelReply",
    "ModelRequest",
    "ModelSpec",
    "PermanentModelError",
    "RetryableModelError",
    "load_backend",
    "parse_model_spec",
    "providers",
    "register_provider",
]
