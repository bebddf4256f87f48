-- The secret that signs the links of docs/api.md (Signed links), one for every instance sharing
-- the store; `admin links rotate` replaces it, which ends every link signed before. The secret is
-- made at the store's first start (link-secret.ts), not here: build.mjs runs the migrations once
-- into dist/pglite-template, which every new embedded store copies, so a secret made here was the
-- same in every store of one build. Until 008 this file inserted one; 008 marks it for replacement.
CREATE TABLE link_secret (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  secret     text NOT NULL,
  rotated_at timestamptz NOT NULL DEFAULT now()
);
