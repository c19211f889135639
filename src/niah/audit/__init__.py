"""`niah audit`: probes that try to score without doing the task, on what a model is sent
(:mod:`.dataset` runs them, :mod:`.probes` holds the reading probes)."""

from niah.audit.dataset import AuditOptions, AuditReport, audit_dataset

__all__ = ["AuditOptions", "AuditReport", "audit_dataset"]
