"""The audit chains' services: signed checkpoints, the system chain, export, verify, reconcile, keys."""
