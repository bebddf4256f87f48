-- Calls that a key may make past its day (docs/api.md, Limits): reading its own jobs and
-- cancelling one. admit_request gains p_past_day: such a call is counted in the day while the day
-- has calls left, as every call; once it has none, it is still admitted within the burst minute,
-- counted there alone (the day is not pushed further out by calls it could not refuse).
DROP FUNCTION admit_request(text, timestamptz);
CREATE FUNCTION admit_request(p_key_hash text, p_now timestamptz, p_past_day boolean DEFAULT false)
RETURNS TABLE (
  outcome        text,       -- unknown | passive | expired | quota | burst | admitted
  api_key_id     text,
  tier           text,
  daily_limit    integer,
  burst_limit    integer,
  day_count      integer,    -- counted requests in the window, this one included when admitted and counted
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
  v_day_spent boolean;
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
  v_day_spent := v_day >= k.daily_limit;

  IF k.passive THEN
    v_outcome := 'passive';
  ELSIF k.expires_at IS NOT NULL AND k.expires_at <= p_now THEN
    v_outcome := 'expired';
  ELSIF v_day_spent AND NOT p_past_day THEN
    v_outcome := 'quota';
  ELSIF v_burst >= k.burst_limit THEN
    v_outcome := 'burst';
  ELSE
    v_outcome := 'admitted';
    IF NOT v_day_spent THEN
      INSERT INTO usage_minutes AS u (api_key_id, minute, count) VALUES (k.id, v_minute, 1)
        ON CONFLICT (api_key_id, minute) DO UPDATE SET count = u.count + 1
        RETURNING (xmax = 0) INTO v_new_bucket;
      IF v_new_bucket THEN
        DELETE FROM usage_minutes u WHERE u.api_key_id = k.id AND u.minute <= v_minute - interval '24 hours';
      END IF;
      v_day := v_day + 1;
      v_oldest_minute := coalesce(v_oldest_minute, v_minute);
    END IF;
    INSERT INTO usage_seconds AS u (api_key_id, second, count) VALUES (k.id, v_second, 1)
      ON CONFLICT (api_key_id, second) DO UPDATE SET count = u.count + 1
      RETURNING (xmax = 0) INTO v_new_bucket;
    IF v_new_bucket THEN
      DELETE FROM usage_seconds u WHERE u.api_key_id = k.id AND u.second <= v_second - interval '60 seconds';
    END IF;
    UPDATE api_keys SET last_used_at = p_now WHERE id = k.id;
    v_burst := v_burst + 1;
    v_oldest_second := coalesce(v_oldest_second, v_second);
  END IF;

  RETURN QUERY SELECT v_outcome, k.id, k.tier, k.daily_limit, k.burst_limit, v_day, v_burst,
                      v_oldest_minute + interval '24 hours', v_oldest_second + interval '60 seconds';
END;
$$;

-- Counts a watch's run as one call of its key against its day, as a job's item is counted (the day
-- alone, not the burst): the calls left after it, or -1 when the day had none (the run is skipped).
-- The key's row lock, as admit_request takes it, orders it among the key's other calls.
CREATE FUNCTION count_watch_run(p_key_id text, p_now timestamptz)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_limit integer;
  v_day integer;
  v_minute timestamptz := date_trunc('minute', p_now);
BEGIN
  SELECT t.daily_limit INTO v_limit
    FROM api_keys k JOIN tiers t ON t.name = k.tier WHERE k.id = p_key_id FOR UPDATE OF k;
  SELECT coalesce(sum(u.count), 0)::integer INTO v_day
    FROM usage_minutes u WHERE u.api_key_id = p_key_id AND u.minute > v_minute - interval '24 hours';
  IF v_limit IS NULL OR v_day >= v_limit THEN
    RETURN -1;
  END IF;
  INSERT INTO usage_minutes AS u (api_key_id, minute, count) VALUES (p_key_id, v_minute, 1)
    ON CONFLICT (api_key_id, minute) DO UPDATE SET count = u.count + 1;
  UPDATE api_keys SET last_used_at = p_now WHERE id = p_key_id;
  RETURN v_limit - v_day - 1;
END;
$$;
