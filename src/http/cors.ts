// Browsers call the API from other origins. The API uses bearer keys, not cookies, so a
// configurable Access-Control-Allow-Origin (default *) is safe.

const exposed = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Tier",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
  "Content-Disposition",
  "Content-Length",
  "Content-Range",
  "Estimated-Content-Length",
  "Clip-Start",
  "Clip-Duration",
  "X-Request-Id",
].join(", ");

export function corsHeaders(allowOrigin: string): Record<string, string> {
  return {
    "access-control-allow-origin": allowOrigin,
    "access-control-expose-headers": exposed,
    ...(allowOrigin === "*" ? {} : { vary: "Origin" }),
  };
}

export function preflightResponse(allowOrigin: string, request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(allowOrigin),
      "access-control-allow-methods": "GET, HEAD, OPTIONS",
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "Authorization, Range",
      "access-control-max-age": "86400",
    },
  });
}
