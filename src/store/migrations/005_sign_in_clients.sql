-- Sign-in attempts are counted per client (an IPv4 address or an IPv6 /64) as well as per email, so
-- that one client cannot guess across many accounts, nor lock an owner out from elsewhere. Rows from
-- before this migration have no client; they leave the 15-minute window soon after.
ALTER TABLE sign_in_attempts ADD COLUMN client text NOT NULL DEFAULT '';
CREATE INDEX sign_in_attempts_client ON sign_in_attempts (client, at);
