-- Owner page sessions. Only the SHA-256 of the cookie's random token is kept (hex), so a copy of
-- the database does not let anyone sign in.
CREATE TABLE sessions (
  token_hash text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Recent sign-in attempts per email, known or not, so the limit holds across every instance
-- sharing the database and says nothing about which emails have accounts.
CREATE TABLE sign_in_attempts (
  email text NOT NULL,
  at    timestamptz NOT NULL
);
CREATE INDEX sign_in_attempts_email ON sign_in_attempts (email, at);
CREATE INDEX sign_in_attempts_at ON sign_in_attempts (at);
