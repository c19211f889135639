"""Test support code: local servers, tiny models and small datasets that tests build themselves."""
