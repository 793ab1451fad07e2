-- What every ended round adds to the RTP report (GET /v1/reports/rtp), written in the transaction that ends it.
-- Money is integers. A round's exact expectation given its posts, shoe and decisions is a fraction; it is kept as
-- integers over the round's own scale (the least common denominator, at most the square of the cards left), so
-- sums stay exact: the report adds the integers per scale in SQL and the few scales as fractions. numeric, not
-- bigint, for those: a scaled variance of large stakes passes 2^63.
CREATE TABLE round_figures (
    round_id          uuid        PRIMARY KEY REFERENCES rounds (round_id),
    table_id          uuid        NOT NULL,
    operator_id       text        NOT NULL,
    paytable          text        NOT NULL,
    decks             smallint    NOT NULL,
    currency          text        NOT NULL,
    test              boolean     NOT NULL,
    status            text        NOT NULL CHECK (status IN ('settled', 'void')),
    outcome           text        NOT NULL,  -- consecutive, pair_push, trips, spread_1 .. spread_11
    ended_at          timestamptz NOT NULL,
    bets              integer     NOT NULL CHECK (bets > 0),
    wagered           bigint      NOT NULL CHECK (wagered >= 0),  -- every debit: ante, raise, post penalty
    paid              bigint      NOT NULL CHECK (paid >= 0),     -- every payout credit, stake included
    refunded          bigint      NOT NULL CHECK (refunded >= 0), -- a voided round's refund credits
    expectation_scale numeric     NOT NULL CHECK (expectation_scale >= 1 AND expectation_scale = trunc(expectation_scale)),
    expected_paid     numeric     NOT NULL CHECK (expected_paid = trunc(expected_paid)),
    expected_wagered  numeric     NOT NULL CHECK (expected_wagered = trunc(expected_wagered)),
    net_variance      numeric     NOT NULL CHECK (net_variance >= 0 AND net_variance = trunc(net_variance))
);
CREATE INDEX round_figures_by_operator ON round_figures (operator_id, ended_at);
CREATE INDEX round_figures_by_end ON round_figures (ended_at);

-- Rounds that ended without figures (before this migration, or on a replica of an older release during a rolling
-- upgrade) are found by their end time and computed by the report from the stored round and shoe.
CREATE INDEX rounds_by_end ON rounds (settled_at) WHERE settled_at IS NOT NULL;

GRANT SELECT, INSERT ON round_figures TO reddog_app;
-- GET /health/ready checks that every migration of the running release has been applied.
GRANT SELECT ON schema_migrations TO reddog_app;
