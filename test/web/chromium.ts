// How the browser tests launch Debian's Chromium: headless, without a sandbox (the tests run as
// root in a container), and with nothing that reaches out of the machine on its own.
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-proxy-server",
];
