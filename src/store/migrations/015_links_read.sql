-- A job's links are read a few at a time, and each link's posts become items as soon as every
-- link before it is read (src/jobs/runner.ts): `links_read` is how many of the job's links, in the
-- caller's order, have their items, so that an expansion run again (its instance died, or it gave
-- its turn back while the key's slots were held) goes on from there. A job expanded before this is
-- read whole. A job_items row may hold its post's record while it is queued: the record its
-- link's one read gave (a page of a host that is no named platform), which its item then takes
-- instead of reading the page again; the API shows an item's record only once it is done.
ALTER TABLE jobs ADD COLUMN links_read integer NOT NULL DEFAULT 0;
UPDATE jobs SET links_read = jsonb_array_length(request -> 'urls') WHERE expanded_at IS NOT NULL;
