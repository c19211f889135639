"""Other evaluation harnesses' per-sample outputs read into niah runs (``niah import responses``)."""
