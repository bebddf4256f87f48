-- Webhook endpoints (docs/api.md, Webhooks): an owner's receivers, the events each wants, and its
-- signing secret. The secret is kept as it is, since every delivery is signed with it; after a
-- rotation the previous one signs beside it until previous_secret_until.
CREATE TABLE webhook_endpoints (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id            bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url                   text NOT NULL,
  events                text[] NOT NULL,
  secret                text NOT NULL,
  previous_secret       text,
  previous_secret_until timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  -- Set when the receiver answered 410 Gone, or failed every attempt for days; the owner's page says why.
  disabled_at           timestamptz,
  disabled_reason       text,
  -- The first failed attempt since the last delivered one; null while the endpoint delivers.
  failing_since         timestamptz
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id);

-- One event for one endpoint: the body exactly as it is signed and sent on every attempt, under one id.
CREATE TABLE webhook_messages (
  id           text PRIMARY KEY,
  endpoint_id  uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  type         text NOT NULL,
  body         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  given_up_at  timestamptz
);
CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at DESC);

-- Each attempt, for the owner's page: when, the receiver's status (null when none came), how long it took.
CREATE TABLE webhook_attempts (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id   text NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  status       integer,
  latency_ms   integer NOT NULL,
  error        text
);
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, attempted_at DESC);

-- A job's end is announced once, by whichever instance settles its last item first.
ALTER TABLE jobs ADD COLUMN announced_at timestamptz;
