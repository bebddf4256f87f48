-- A feed's title for each of its entries (issue 53): a job's item of a link a listing gave keeps the
-- title the listing gives it (src/platforms/source.ts, Expansion.titles), and its record takes it
-- as its text, as yt-dlp's own runs take a feed item's title over that of the page it links to.
-- Null where the listing gives none, and for the items made before this.
ALTER TABLE job_items ADD COLUMN listed_title text;
