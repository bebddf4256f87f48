-- Owners' own cookies (ACCOUNT_COOKIES=on, docs/api.md "Your own cookies"): one Netscape file per
-- account and platform, kept sealed (AES-GCM, `sealed` is the nonce then the ciphertext, base64url)
-- with the store's cookie key, and gone with the account. The key is made at the store's first
-- start (account-cookies/seal.ts), never here: the migrations also run at build time into the
-- template every new embedded store is copied from, and a key made here would be every store's.
CREATE TABLE cookie_key (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  key      text NOT NULL,
  made_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE account_cookies (
  account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  platform    text NOT NULL,
  sealed      text NOT NULL,
  uploaded_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, platform)
);
