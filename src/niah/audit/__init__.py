"""`niah audit`: probes that try to score without doing the task, on what a model is sent. :mod:`.dataset` runs
them on a dataset as it is (``audit_dataset``); :mod:`.samples` measures a generated dataset on enough samples of
its generator (``audit_enough``, what ``niah audit`` does); :mod:`.probes` holds the reading probes."""

from niah.audit.dataset import AuditOptions, AuditReport, audit_dataset
from niah.audit.samples import audit_enough

__all__ = ["AuditOptions", "AuditReport", "audit_dataset", "audit_enough"]
