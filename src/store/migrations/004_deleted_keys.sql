-- A deleted key stops working at once but keeps its row, and its usage rows, until its counted
-- requests have left the 24 h window: until then it holds its place among the account's keys, so
-- deleting a key and creating another never gives a fresh daily count (see keysHeld).
-- Its hash is replaced on deletion, so admit_request no longer finds it (a 401, as for any key
-- that does not exist).
ALTER TABLE api_keys ADD COLUMN deleted_at timestamptz;
