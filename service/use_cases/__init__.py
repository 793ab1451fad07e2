"""Use cases, one module per family: load, call the core, persist with the audit append, one transaction each."""
