"""A tiny random-weight LLaVA (CLIP vision tower + Llama text model) built from a config, saved with its
processor (a word-level tokenizer and CLIP's PIL image processor) and chat template. No download, no
torchvision. Its replies are random; it exists to drive the transformers backend end to end."""

from __future__ import annotations

from pathlib import Path

WORDS = ("<pad> <unk> <s> </s> <image> user assistant : the a of is what which in image images camera "
         "secret ingredient answer question option letter A B C D . , ? \n").split(" ")

CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} : "
    "{% for p in m['content'] %}{% if p['type'] == 'image' %}<image>{% else %}{{ p['text'] }}{% endif %} {% endfor %}"
    "{% endfor %}{% if add_generation_prompt %}assistant : {% endif %}"
)


def build_tiny_llava(out: str | Path, *, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    out = Path(out)
    vocab = {w: i for i, w in enumerate(dict.fromkeys(WORDS))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                                        bos_token="<s>", eos_token="</s>",
                                        extra_special_tokens={"image_token": "<image>"})
    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer, patch_size=14,
                               vision_feature_select_strategy="default", chat_template=CHAT_TEMPLATE,
                               image_token="<image>", num_additional_image_tokens=1)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                              image_size=28, patch_size=14, projection_dim=32)
    text = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
                       pad_token_id=vocab["<pad>"], bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"])
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=vocab["<image>"],
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out
