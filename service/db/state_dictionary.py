"""The preset dictionary a round's stored state is deflated with (round_sql, migration 026).

A round's state is about 1.2 KB of JSON whose keys and shape repeat from one round to the next: stored as jsonb,
the round row stayed just under the 2 KB past which PostgreSQL compresses a row, so every version of it was logged
whole (twice for a round with a decision). Deflate primed with three rounds' states (a push settled at the deal, a
call and a raise settled by the third card, their ids and hashes zeroed) takes it to about 200 bytes. A storage
format: this dictionary never changes; a better one is added beside it under a new number.
"""

V1 = (
    b'{"round_id":"00000000-0000-7000-8000-000000000000","table_id":"00000000-0000-7000-8000-000000000000"'
    b',"status":"settled","paytable_id":"standard/v1","paytable_sha256":"","decks":6,"test":false,"commitm'
    b'ent":"","bets":[{"bet_id":"00000000-0000-7000-8000-000000000000.1","player_id":"player-14","ante":50'
    b'0,"raise_amount":0,"decision":null,"result":"push","payout":500,"net":0,"transactions":[{"id":"00000'
    b'000-0000-7000-8000-000000000000.1:ante","kind":"ante","type":"debit","amount":500},{"id":"00000000-0'
    b'000-7000-8000-000000000000.1:payout","kind":"payout","type":"credit","amount":500}],"cards":[],"outc'
    b'ome":null,"spread":null,"payout_odds":null}],"opened_at":"2026-12-04T20:39:33.574295Z","deal":"share'
    b'd","cards":[{"position":1,"card":"9H","shoe_index":0,"seat":null},{"position":2,"card":"8S","shoe_in'
    b'dex":1,"seat":null}],"outcome":"consecutive","spread":null,"payout_odds":null,"raise_window_closes_a'
    b't":null,"settled_at":"2026-12-04T20:39:33.574295Z","void_reason":null,"rolled_back_at":null,"rollbac'
    b'k_reason":null}{"round_id":"00000000-0000-7000-8000-000000000000","table_id":"00000000-0000-7000-800'
    b'0-000000000000","status":"settled","paytable_id":"standard/v1","paytable_sha256":"","decks":6,"test"'
    b':false,"commitment":"","bets":[{"bet_id":"00000000-0000-7000-8000-000000000000.1","player_id":"playe'
    b'r-2","ante":500,"raise_amount":0,"decision":"call","result":"lose","payout":0,"net":-500,"transactio'
    b'ns":[{"id":"00000000-0000-7000-8000-000000000000.1:ante","kind":"ante","type":"debit","amount":500},'
    b'{"id":"00000000-0000-7000-8000-000000000000.1:payout","kind":"payout","type":"credit","amount":0}],"'
    b'cards":[],"outcome":null,"spread":null,"payout_odds":null}],"opened_at":"2026-12-04T20:39:33.239022Z'
    b'","deal":"shared","cards":[{"position":1,"card":"6C","shoe_index":0,"seat":null},{"position":2,"card'
    b'":"8D","shoe_index":1,"seat":null},{"position":3,"card":"5S","shoe_index":2,"seat":null}],"outcome":'
    b'"spread","spread":1,"payout_odds":5,"raise_window_closes_at":"2026-12-04T20:39:48.239022Z","settled_'
    b'at":"2026-12-04T20:39:33.275338Z","void_reason":null,"rolled_back_at":null,"rollback_reason":null}{"'
    b'round_id":"00000000-0000-7000-8000-000000000000","table_id":"00000000-0000-7000-8000-000000000000","'
    b'status":"settled","paytable_id":"standard/v1","paytable_sha256":"","decks":6,"test":false,"commitmen'
    b't":"","bets":[{"bet_id":"00000000-0000-7000-8000-000000000000.1","player_id":"player-22","ante":500,'
    b'"raise_amount":500,"decision":"raise","result":"lose","payout":0,"net":-1000,"transactions":[{"id":"'
    b'00000000-0000-7000-8000-000000000000.1:ante","kind":"ante","type":"debit","amount":500},{"id":"00000'
    b'000-0000-7000-8000-000000000000.1:raise","kind":"raise","type":"debit","amount":500},{"id":"00000000'
    b'-0000-7000-8000-000000000000.1:payout","kind":"payout","type":"credit","amount":0}],"cards":[],"outc'
    b'ome":null,"spread":null,"payout_odds":null}],"opened_at":"2026-12-04T20:39:30.291398Z","deal":"share'
    b'd","cards":[{"position":1,"card":"2C","shoe_index":0,"seat":null},{"position":2,"card":"TS","shoe_in'
    b'dex":1,"seat":null},{"position":3,"card":"JS","shoe_index":2,"seat":null}],"outcome":"spread","sprea'
    b'd":7,"payout_odds":1,"raise_window_closes_at":"2026-12-04T20:39:45.291398Z","settled_at":"2026-12-04'
    b'T20:39:30.315031Z","void_reason":null,"rolled_back_at":null,"rollback_reason":null}'
)

DICTIONARIES: dict[int, bytes] = {1: V1}
CURRENT = 1
