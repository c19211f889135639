"""Small helpers every stage shares: files and atomic writes, errors, console output, secret redaction, exit status."""
