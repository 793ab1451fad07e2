-- A round's state stored deflated (issue 32). As jsonb it was about 1.4 KB, and a round row (state, shoe, columns)
-- stayed just under the 2 KB past which PostgreSQL compresses a row: each version was written to the WAL whole, the
-- insert and, for a round with a decision, the settle update. The service now stores the state's JSON deflated with
-- a preset dictionary (service/db/state_dictionary.py: about 200 bytes), in state_deflated, and state is NULL; rows
-- written before keep their jsonb state, and readers take whichever the row has. `reddog audit verify --db` still
-- compares every stored round with what its records fold to.
ALTER TABLE rounds ADD COLUMN state_deflated bytea;
ALTER TABLE rounds ALTER COLUMN state DROP NOT NULL;
ALTER TABLE rounds ADD CONSTRAINT rounds_state_stored CHECK ((state IS NULL) <> (state_deflated IS NULL));
