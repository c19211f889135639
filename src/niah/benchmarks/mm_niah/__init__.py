"""MM-NIAH: retrieval, counting and reasoning with text and image needles (see :mod:`.family` for what it offers).

The paper's RAG baseline is ``baseline:rag`` (:mod:`niah.models.rag` for retrieval with the official budget of 8192
tokens and 256 per image, :mod:`niah.models.baselines` for the reader); :mod:`niah.models.rag` lists where it differs
from the official InternVL-G retriever. Open-ended answers are normalized by :mod:`niah.scoring.metrics.vqa`, the copy of
the VQAv2 code in the official ``utils/tools.py`` (class ``VQAEval``).
"""
