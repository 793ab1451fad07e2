"""The imperative shell: HTTP, SQL, logging and metrics around the pure core."""
