"""MMLongBench's official prompts (the official ``data.py``) as a niah renderer.

Every data set has a user template, ``<instruction> Write your answer in the following format:\\nAnswer:
[answer]\\n\\n{context}\\n\\nQuestion: {question}`` for the question-answering sets (the ICL and summarization
sets have their own), and an assistant prefix (``Answer:``, ``label:`` for ICL, ``Summary:`` for summarization).
``<image>`` in the formatted text marks where the next image of the sample's image list goes.

The official code puts the prefix in a pre-filled assistant turn (chat template with ``continue_final_message``),
or, without a chat template, after the user text and a newline. niah backends send one user turn, so the prefix
ends the user turn after a newline (the official completion-mode prompt); scoring prepends it to the output
either way, as the official ``eval.py`` does. Decoding: greedy, 128 new tokens (384 for summarization). The
released files already have their target lengths: nothing is truncated (no ``official_fit``).
"""

from __future__ import annotations

from dataclasses import dataclass

from niah.models.base import GenerationSettings
from niah.prompts.types import PromptBody, PromptOptions, Role
from niah.sample import Part, Sample, TextPart
from niah.util.errors import DataError

_FORMAT = " Write your answer in the following format:\nAnswer: [answer]\n\n{context}\n\nQuestion: {question}"


@dataclass(frozen=True)
class Template:
    """An official user template (``{context}`` then ``{question}``) and its assistant prefix."""

    user: str
    prefix: str

    def pieces(self) -> tuple[str, str, str]:
        """(text before the context, between context and question, after the question), braces unescaped."""
        head, _, rest = self.user.partition("{context}")
        middle, _, tail = rest.partition("{question}")
        return head.format(), middle.format(), tail.format()


TEMPLATES: dict[str, Template] = {
    "vrag": Template("Use the given documents to write a concise and short answer to the question about the entity "
                     "shown in the image." + _FORMAT, "Answer:"),
    "vh": Template("You are given a set of images. Please answer the question in Yes or No based on the given "
                   "images." + _FORMAT, "Answer:"),
    "mm_niah": Template("You are given interleaved text and images. Please answer the question based on the given "
                        "text and images." + _FORMAT, "Answer:"),
    "mm_niah_mc": Template("You are given interleaved text and images. Please answer the question with the "
                           "option's letter (A, B, etc.) based on the given text and images." + _FORMAT, "Answer:"),
    "icl": Template("You need to recognize entities in images. Use the provided mapping from the image to label to "
                    "assign a label to the test image. Only output \"label: {{label}}\" and nothing else.\n\n"
                    "Training examples:\n{context}\n\nNow classify this image: {question}", "label:"),
    "gov_report": Template("You are given a government report from U.S. Government Accountability Office (GAO), and "
                           "you are tasked to summarize the report. Write a concise summary (around 550 words) "
                           "organized in multiple paragraphs. Where applicable, the summary should contain a short "
                           "description of why GAO did this study, what GAO found, and what GAO recommends.\n\n"
                           "Government Report:\n{context}\n\nNow please summarize the report.{question}",
                           "Summary:"),
    "multi_lexsum": Template("You are given the legal documents in a civil rights lawsuit, and you are tasked to "
                             "summarize the case. Write a concise summary of one paragraph (200 to 250 words). The "
                             "summary should contain a short description of the background, the parties involved, "
                             "and the outcomes of the case.\n\nLegal documents:\n{context}\n\nNow please summarize "
                             "the case.{question}", "Summary:"),
    "docqa": Template("You are given a document with text and images, and a question. Answer the question as "
                      "concisely as you can, using a single phrase or sentence if possible. If the question cannot "
                      "be answered based on the information in the article, write 'Not answerable.'" + _FORMAT,
                      "Answer:"),
}


def template_of(sample: Sample) -> Template:
    name = (sample.meta or {}).get("prompt")
    template = TEMPLATES.get(name) if isinstance(name, str) else None
    if template is None:
        raise DataError(f"sample {sample.id!r}: meta.prompt must be one of {', '.join(TEMPLATES)}", field="meta.prompt")
    return template


def prefix_of(sample: Sample) -> str:
    return template_of(sample).prefix


def official_generation(sample: Sample) -> GenerationSettings:
    """Greedy; ``meta.max_new_tokens`` (128, 384 for summarization)."""
    tokens = (sample.meta or {}).get("max_new_tokens", 128)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise DataError(f"sample {sample.id!r}: must be a positive integer", field="meta.max_new_tokens")
    return GenerationSettings(temperature=0.0, max_tokens=tokens)


def render(sample: Sample, options: PromptOptions) -> PromptBody:
    head, middle, tail = template_of(sample).pieces()
    segments: list[tuple[Role, Part]] = [("instruction", TextPart(head))]
    segments += [("context", part) for part in sample.context]
    segments.append(("question", TextPart(middle)))
    segments += [("question", part) for part in sample.question]
    segments.append(("question", TextPart(tail + "\n" + prefix_of(sample))))
    return PromptBody(segments=[(role, part) for role, part in segments
                                if not (isinstance(part, TextPart) and part.text == "")],
                      generation=official_generation(sample))
