"""The framework internals in one room (lean routes, HTTP protocol, worker supervisor), and the loops beside the
app: the sweeper, the metrics server, the embedded PostgreSQL."""
