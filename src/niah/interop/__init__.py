"""Where niah meets other harnesses: Hugging Face datasets, inspect_ai and lmms-eval exports, their log readers and the replay."""
