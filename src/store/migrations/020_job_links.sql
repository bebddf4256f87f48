-- A job's links are read in parts, each a run on the queue on whichever instance takes it
-- (src/jobs/expansion.ts), so that one job's reading is spread over every instance. A link read before
-- those ahead of it waits here: its posts become items in the caller's order once every link before
-- it has its items (jobs.links_read), and its row goes then.
CREATE TABLE job_links (
  job_id text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  at     integer NOT NULL CHECK (at >= 0),
  read   jsonb NOT NULL,
  PRIMARY KEY (job_id, at)
);
-- When the job's links were put on the queue to be read: null for a job not started yet, and for one
-- whose expansion began before this (its links from links_read on are put on the queue when it runs).
ALTER TABLE jobs ADD COLUMN links_queued_at timestamptz;
