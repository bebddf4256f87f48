-- The secret that signs the links of docs/api.md (Signed links), one for every instance sharing
-- the store. Made here from two random UUIDs (244 random bits); `admin links rotate` replaces it,
-- which ends every link signed before.
CREATE TABLE link_secret (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  secret     text NOT NULL,
  rotated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO link_secret (secret) VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
