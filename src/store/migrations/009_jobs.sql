-- Jobs (docs/api.md, Jobs; src/jobs/job.ts): one caller's many links, run by the queue every
-- instance shares. The queue (pg-boss, schema pgboss) carries only the ids below: these rows are
-- the truth, so a job outlives the instance that took it.
CREATE TABLE jobs (
  id          text PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id  text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  status      text NOT NULL DEFAULT 'queued'
              CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  -- The checked JobRequest: urls, files, format, output.
  request     jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  -- Set once the links are expanded into items; until then the job has none.
  expanded_at timestamptz,
  finished_at timestamptz,
  complete    boolean NOT NULL DEFAULT true,
  incomplete  text
);
CREATE INDEX jobs_account_newest ON jobs (account_id, created_at DESC, id DESC);

-- One post of a job, at its 1-based place in the job's reading order. `counted_at` is set once,
-- by count_job_item: an item that runs twice (its instance died halfway) is counted once.
CREATE TABLE job_items (
  job_id     text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  position   integer NOT NULL CHECK (position > 0),
  url        text NOT NULL,
  status     text NOT NULL DEFAULT 'queued'
             CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  post       jsonb,
  problem    jsonb,
  counted_at timestamptz,
  finished_at timestamptz,
  PRIMARY KEY (job_id, position)
);
-- What of a job is still to run: asked after each item settles, whether it was the last.
CREATE INDEX job_items_open ON job_items (job_id) WHERE status IN ('queued', 'running');

-- Counts a job's item as one call of the job's key against its day, the first time it is asked
-- for that item; later asks (the item run again after a crash, or retried) count nothing. The day
-- alone: an item is no interactive request, so the key's burst window stays its caller's.
-- Answers the calls left in the key's day after this one, or -1 when none was left to count it.
CREATE FUNCTION count_job_item(p_job_id text, p_position integer, p_now timestamptz)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
  v_limit integer;
  v_day integer;
  v_minute timestamptz := date_trunc('minute', p_now);
BEGIN
  SELECT j.api_key_id, t.daily_limit INTO v_key, v_limit
    FROM jobs j JOIN api_keys k ON k.id = j.api_key_id JOIN tiers t ON t.name = k.tier
   WHERE j.id = p_job_id;
  -- The key's row lock, as admit_request takes it: the day's sum below sees every call counted before.
  PERFORM 1 FROM api_keys WHERE id = v_key FOR UPDATE;
  SELECT coalesce(sum(u.count), 0)::integer INTO v_day
    FROM usage_minutes u WHERE u.api_key_id = v_key AND u.minute > v_minute - interval '24 hours';
  IF EXISTS (SELECT 1 FROM job_items WHERE job_id = p_job_id AND position = p_position AND counted_at IS NOT NULL) THEN
    RETURN greatest(v_limit - v_day, 0);
  END IF;
  IF v_day >= v_limit THEN
    RETURN -1;
  END IF;
  UPDATE job_items SET counted_at = p_now WHERE job_id = p_job_id AND position = p_position;
  INSERT INTO usage_minutes AS u (api_key_id, minute, count) VALUES (v_key, v_minute, 1)
    ON CONFLICT (api_key_id, minute) DO UPDATE SET count = u.count + 1;
  UPDATE api_keys SET last_used_at = p_now WHERE id = v_key;
  RETURN v_limit - v_day - 1;
END;
$$;
