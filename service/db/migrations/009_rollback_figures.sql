-- A rolled-back round reverses every transaction: its RTP-report figures become nothing, in place.
ALTER TABLE round_figures DROP CONSTRAINT round_figures_status_check;
ALTER TABLE round_figures ADD CONSTRAINT round_figures_status_check
    CHECK (status IN ('settled', 'void', 'rolled_back'));
GRANT UPDATE (status, ended_at, wagered, paid, refunded, expectation_scale, expected_paid, expected_wagered,
              net_variance) ON round_figures TO reddog_app;
