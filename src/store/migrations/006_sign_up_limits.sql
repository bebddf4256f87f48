-- Sign-ups are counted per client (an IPv4 address or an IPv6 /64) in a sliding window, in the
-- store like sign-in attempts, so that every instance sharing it enforces one limit.
CREATE TABLE sign_ups (
  client text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX sign_ups_client ON sign_ups (client, at);
CREATE INDEX sign_ups_at ON sign_ups (at);

-- A sign-in attempt let past an account's ceiling, because its client had not failed on that
-- account, is marked with the client's network (IPv4 /24, IPv6 /48): one such attempt per network.
ALTER TABLE sign_in_attempts ADD COLUMN past_ceiling_from text;
