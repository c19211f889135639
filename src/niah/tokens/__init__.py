"""Token accounting: text tokenizers and image/frame token rules, all by name and all offline."""

from niah.tokens.image import ImageTokenRule, VideoTokenRule, get_image_rule, image_size
from niah.tokens.text import TextTokenizer, get_tokenizer

__all__ = ["ImageTokenRule", "TextTokenizer", "VideoTokenRule", "get_image_rule", "get_tokenizer", "image_size"]
