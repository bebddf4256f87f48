-- Accounts own API keys. The password hash is a self-describing KDF string (see src/auth/password.ts).
CREATE TABLE accounts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email         text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- The tiers and burst values of docs/api.md, Limits.
CREATE TABLE tiers (
  name        text PRIMARY KEY,
  daily_limit integer NOT NULL CHECK (daily_limit > 0),
  burst_limit integer NOT NULL CHECK (burst_limit > 0)
);
INSERT INTO tiers (name, daily_limit, burst_limit) VALUES
  ('FREE', 100, 10),
  ('PRO', 10000, 300),
  ('GOLD', 100000, 3000);

-- Only the SHA-256 of a key is stored (hex); display_prefix is the first few characters, enough
-- for an owner to tell keys apart and far too few to guess the rest.
CREATE TABLE api_keys (
  id             text PRIMARY KEY,
  account_id     bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name           text NOT NULL,
  key_hash       text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  tier           text NOT NULL REFERENCES tiers (name),
  passive        boolean NOT NULL DEFAULT false,
  expires_at     timestamptz,
  created_at     timestamptz NOT NULL,
  last_used_at   timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Counted requests in buckets: minutes for the 24 h quota (exact to the minute), seconds for the
-- 60 s burst. A key has at most 1440 + 60 live rows however busy it is.
CREATE TABLE usage_minutes (
  api_key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  minute     timestamptz NOT NULL,
  count      integer NOT NULL,
  PRIMARY KEY (api_key_id, minute)
);
CREATE TABLE usage_seconds (
  api_key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  second     timestamptz NOT NULL,
  count      integer NOT NULL,
  PRIMARY KEY (api_key_id, second)
);

-- Looks a key up by hash and, when it may be used and is within its limits, counts the request.
-- One call, one round trip. The row lock on the key serialises concurrent calls for that key
-- across every process sharing the database; each statement of a plpgsql function takes a fresh
-- snapshot, so the sums below see every request committed before the lock was granted.
CREATE FUNCTION admit_request(p_key_hash text, p_now timestamptz)
RETURNS TABLE (
  outcome        text,       -- unknown | passive | expired | quota | burst | admitted
  api_key_id     text,
  tier           text,
  daily_limit    integer,
  burst_limit    integer,
  day_count      integer,    -- counted requests in the window, this one included when admitted
  burst_count    integer,
  day_frees_at   timestamptz,-- when the oldest counted request leaves the 24 h window
  burst_frees_at timestamptz -- when the oldest request leaves the 60 s window
)
LANGUAGE plpgsql AS $$
-- The OUT columns share names with table columns; in SQL text, a name means the column.
#variable_conflict use_column
DECLARE
  k record;
  v_minute timestamptz := date_trunc('minute', p_now);
  v_second timestamptz := date_trunc('second', p_now);
  v_day integer;
  v_burst integer;
  v_oldest_minute timestamptz;
  v_oldest_second timestamptz;
  v_outcome text;
  v_new_bucket boolean;
BEGIN
  SELECT a.id, a.tier, a.passive, a.expires_at, t.daily_limit, t.burst_limit INTO k
    FROM api_keys a JOIN tiers t ON t.name = a.tier
   WHERE a.key_hash = p_key_hash
     FOR UPDATE OF a;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'unknown'::text, NULL::text, NULL::text, NULL::integer, NULL::integer,
                        NULL::integer, NULL::integer, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;

  SELECT coalesce(sum(u.count), 0)::integer, min(u.minute) INTO v_day, v_oldest_minute
    FROM usage_minutes u
   WHERE u.api_key_id = k.id AND u.minute > v_minute - interval '24 hours';
  SELECT coalesce(sum(u.count), 0)::integer, min(u.second) INTO v_burst, v_oldest_second
    FROM usage_seconds u
   WHERE u.api_key_id = k.id AND u.second > v_second - interval '60 seconds';

  IF k.passive THEN
    v_outcome := 'passive';
  ELSIF k.expires_at IS NOT NULL AND k.expires_at <= p_now THEN
    v_outcome := 'expired';
  ELSIF v_day >= k.daily_limit THEN
    v_outcome := 'quota';
  ELSIF v_burst >= k.burst_limit THEN
    v_outcome := 'burst';
  ELSE
    v_outcome := 'admitted';
    INSERT INTO usage_minutes AS u (api_key_id, minute, count) VALUES (k.id, v_minute, 1)
      ON CONFLICT (api_key_id, minute) DO UPDATE SET count = u.count + 1
      RETURNING (xmax = 0) INTO v_new_bucket;
    IF v_new_bucket THEN
      DELETE FROM usage_minutes u WHERE u.api_key_id = k.id AND u.minute <= v_minute - interval '24 hours';
    END IF;
    INSERT INTO usage_seconds AS u (api_key_id, second, count) VALUES (k.id, v_second, 1)
      ON CONFLICT (api_key_id, second) DO UPDATE SET count = u.count + 1
      RETURNING (xmax = 0) INTO v_new_bucket;
    IF v_new_bucket THEN
      DELETE FROM usage_seconds u WHERE u.api_key_id = k.id AND u.second <= v_second - interval '60 seconds';
    END IF;
    UPDATE api_keys SET last_used_at = p_now WHERE id = k.id;
    v_day := v_day + 1;
    v_burst := v_burst + 1;
    v_oldest_minute := coalesce(v_oldest_minute, v_minute);
    v_oldest_second := coalesce(v_oldest_second, v_second);
  END IF;

  RETURN QUERY SELECT v_outcome, k.id, k.tier, k.daily_limit, k.burst_limit, v_day, v_burst,
                      v_oldest_minute + interval '24 hours', v_oldest_second + interval '60 seconds';
END;
$$;
