"""The preset dictionary idempotency keys' stored replies are deflated with (idempotency_sql.deflated).

A round's reply is about 1.7 KB of JSON whose keys and shape repeat from one reply to the next; deflate alone halves
it, and deflate primed with one reply of each kind (a round in its raise window, one settled after a call, one after
a raise) takes it to about 490 bytes. These bytes are a storage format: a stored reply names the dictionary it was
deflated with by its first byte, so this one never changes; a better one is added beside it under a new number.
"""

V1 = (
    b'{"round_id":"00000000-0000-7000-8000-000000000000","table_id":"00000000-0000-7000-8000-000000000000"'
    b',"status":"settled","paytable":"standard/v1","paytable_sha256":"","decks":6,"deal":"shared","cards":'
    b'[{"position":1,"card":"2H","shoe_index":0},{"position":2,"card":"3D","shoe_index":1}],"outcome":"con'
    b'secutive","spread":null,"payout_odds":null,"raise_window_closes_at":null,"opened_at":"2026-12-02T19:'
    b'27:28.707962Z","settled_at":"2026-12-02T19:27:28.707962Z","void_reason":null,"test":false,"shoe":{"c'
    b'ommitment":"","reveal":{"salt":"","order":""}},"bets":[{"bet_id":"00000000-0000-7000-8000-0000000000'
    b'00.1","player_id":"player-1","ante":500,"raise":0,"decision":null,"result":"push","payout":500,"net"'
    b':0,"transactions":[{"id":"00000000-0000-7000-8000-000000000000.1:ante","kind":"ante","type":"debit",'
    b'"amount":500,"currency":"EUR","reverses":null},{"id":"00000000-0000-7000-8000-000000000000.1:payout"'
    b',"kind":"payout","type":"credit","amount":500,"currency":"EUR","reverses":null}],"cards":[{"position'
    b'":1,"card":"2H","shoe_index":0},{"position":2,"card":"3D","shoe_index":1}],"outcome":"consecutive","'
    b'spread":null,"payout_odds":null}],"currency":"EUR","rolled_back_at":null,"rollback_reason":null,"rec'
    b'all_link":"/v1/rounds/00000000-0000-7000-8000-000000000000/recall-link","checkpoint_size":0}{"round_'
    b'id":"00000000-0000-7000-8000-000000000000","table_id":"00000000-0000-7000-8000-000000000000","status'
    b'":"settled","paytable":"standard/v1","paytable_sha256":"","decks":6,"deal":"shared","cards":[{"posit'
    b'ion":1,"card":"5C","shoe_index":0},{"position":2,"card":"KH","shoe_index":1},{"position":3,"card":"6'
    b'S","shoe_index":2}],"outcome":"spread","spread":7,"payout_odds":1,"raise_window_closes_at":"2026-12-'
    b'02T19:27:43.737146Z","opened_at":"2026-12-02T19:27:28.737146Z","settled_at":"2026-12-02T19:27:28.896'
    b'576Z","void_reason":null,"test":false,"shoe":{"commitment":"","reveal":{"salt":"","order":""}},"bets'
    b'":[{"bet_id":"00000000-0000-7000-8000-000000000000.1","player_id":"player-1","ante":500,"raise":500,'
    b'"decision":"raise","result":"win","payout":2000,"net":1000,"transactions":[{"id":"00000000-0000-7000'
    b'-8000-000000000000.1:ante","kind":"ante","type":"debit","amount":500,"currency":"EUR","reverses":nul'
    b'l},{"id":"00000000-0000-7000-8000-000000000000.1:raise","kind":"raise","type":"debit","amount":500,"'
    b'currency":"EUR","reverses":null},{"id":"00000000-0000-7000-8000-000000000000.1:payout","kind":"payou'
    b't","type":"credit","amount":2000,"currency":"EUR","reverses":null}],"cards":[{"position":1,"card":"5'
    b'C","shoe_index":0},{"position":2,"card":"KH","shoe_index":1},{"position":3,"card":"6S","shoe_index":'
    b'2}],"outcome":"spread","spread":7,"payout_odds":1}],"currency":"EUR","rolled_back_at":null,"rollback'
    b'_reason":null,"recall_link":"/v1/rounds/00000000-0000-7000-8000-000000000000/recall-link","checkpoin'
    b't_size":0}{"round_id":"00000000-0000-7000-8000-000000000000","table_id":"00000000-0000-7000-8000-000'
    b'000000000","status":"raise_window","paytable":"standard/v1","paytable_sha256":"","decks":6,"deal":"s'
    b'hared","cards":[{"position":1,"card":"5C","shoe_index":0},{"position":2,"card":"9D","shoe_index":1}]'
    b',"outcome":"spread","spread":3,"payout_odds":2,"raise_window_closes_at":"2026-12-02T19:27:43.689482Z'
    b'","opened_at":"2026-12-02T19:27:28.689482Z","settled_at":null,"void_reason":null,"test":false,"shoe"'
    b':{"commitment":"","reveal":null},"bets":[{"bet_id":"00000000-0000-7000-8000-000000000000.1","player_'
    b'id":"player-1","ante":500,"raise":0,"decision":null,"result":null,"payout":null,"net":null,"transact'
    b'ions":[],"cards":[{"position":1,"card":"5C","shoe_index":0},{"position":2,"card":"9D","shoe_index":1'
    b'}],"outcome":"spread","spread":3,"payout_odds":2}],"currency":"EUR","rolled_back_at":null,"rollback_'
    b'reason":null,"recall_link":"/v1/rounds/00000000-0000-7000-8000-000000000000/recall-link","checkpoint'
    b'_size":0}'
)

DICTIONARIES: dict[int, bytes] = {1: V1}
CURRENT = 1
