-- Watches (docs/api.md, Watches; src/jobs/watch.ts): a link (a channel, a playlist, a profile)
-- expanded again every period, whose posts not seen before become a job of their own and a
-- watch.found event. The queue carries only a watch's id and the time its run was due: a run
-- claims its period here (next_run_at moves on in the same statement), so two instances that
-- both hold a run of one period run it once.
CREATE TABLE watches (
  id            text PRIMARY KEY,
  account_id    bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id    text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  url           text NOT NULL,
  -- The repeat: a period in seconds, or a cron line (UTC); one of the two.
  every_s       integer CHECK (every_s > 0),
  cron          text,
  -- The checked request of each run's job: files, format, output, webhook.
  request       jsonb NOT NULL,
  created_at    timestamptz NOT NULL,
  next_run_at   timestamptz NOT NULL,
  last_run_at   timestamptz,
  runs          integer NOT NULL DEFAULT 0,
  -- Set by the first run whose expansion answered: what it saw is the baseline, reported by no event.
  baselined_at  timestamptz,
  -- Why the latest run found nothing it could report (its expansion failed); null when it ran.
  last_problem  text,
  paused_at     timestamptz,
  -- Who paused it: the owner, or a run that found the key passive or expired.
  paused_reason text,
  CHECK ((every_s IS NULL) <> (cron IS NULL))
);
CREATE INDEX watches_account_newest ON watches (account_id, created_at DESC, id DESC);

-- The posts each watch has seen, by their link: a run inserts what its expansion found and
-- reports only the rows it made (ON CONFLICT DO NOTHING RETURNING), so no post is reported twice.
CREATE TABLE watch_posts (
  watch_id text NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
  post_key text NOT NULL,
  seen_at  timestamptz NOT NULL,
  PRIMARY KEY (watch_id, post_key)
);

-- The job a watch's run made of the posts it found: its end is told as watch.found, not job.completed.
ALTER TABLE jobs ADD COLUMN watch_id text REFERENCES watches (id) ON DELETE SET NULL;
