"""What builds samples besides the families themselves: the haystack assembler, build keys, length bins, balanced decks, the build record."""
