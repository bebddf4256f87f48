-- Takes back a request that admit_request counted at p_at, for a request refused later with 429
-- (a concurrent-download cap): docs/api.md (Limits) says a request refused with 429 is not counted.
CREATE FUNCTION refund_request(p_key_id text, p_at timestamptz)
RETURNS void
LANGUAGE sql AS $$
  UPDATE usage_minutes SET count = count - 1
   WHERE api_key_id = p_key_id AND minute = date_trunc('minute', p_at) AND count > 0;
  UPDATE usage_seconds SET count = count - 1
   WHERE api_key_id = p_key_id AND second = date_trunc('second', p_at) AND count > 0;
$$;
