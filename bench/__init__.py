"""The benchmark harness behind `make bench`: not part of the service, never imported by it."""
