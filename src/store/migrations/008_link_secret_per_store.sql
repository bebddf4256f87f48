-- A secret this migration finds was made by 007 as it was before 008, at build time for every
-- embedded store copied from dist/pglite-template, so every store of that build holds it: false
-- marks it, and the store's first start replaces it (link-secret.ts). Secrets made since are true.
ALTER TABLE link_secret ADD COLUMN store_made boolean NOT NULL DEFAULT false;
