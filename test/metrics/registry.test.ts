import { describe, expect, it } from "vitest";
import { Registry } from "../../src/metrics/registry.ts";

describe("Registry.render()", () => {
  it("writes counters and gauges in the Prometheus text format, one line per series", () => {
    const registry = new Registry();
    const requests = registry.counter({ name: "t_requests_total", help: "Requests.", labels: ["route", "status"] });
    const active = registry.gauge({ name: "t_active", help: "Active.", labels: ["mode"] });
    requests.inc({ route: "/a", status: "200" });
    requests.inc({ route: "/a", status: "200" }, 2);
    requests.inc({ route: "/b", status: "404" });
    active.inc({ mode: "direct" });
    active.inc({ mode: "direct" });
    active.dec({ mode: "direct" });
    expect(registry.render()).toBe(
      [
        "# HELP t_requests_total Requests.",
        "# TYPE t_requests_total counter",
        't_requests_total{route="/a",status="200"} 3',
        't_requests_total{route="/b",status="404"} 1',
        "# HELP t_active Active.",
        "# TYPE t_active gauge",
        't_active{mode="direct"} 1',
        "",
      ].join("\n"),
    );
    expect(requests.get({ route: "/a", status: "200" })).toBe(3);
  });

  it("writes cumulative histogram buckets, +Inf, sum and count", () => {
    const registry = new Registry();
    const latency = registry.histogram({ name: "t_seconds", help: "Latency.", labels: ["route"], buckets: [0.1, 1] });
    latency.observe({ route: "/a" }, 0.05);
    latency.observe({ route: "/a" }, 0.5);
    latency.observe({ route: "/a" }, 3);
    expect(registry.render().split("\n")).toEqual([
      "# HELP t_seconds Latency.",
      "# TYPE t_seconds histogram",
      't_seconds_bucket{route="/a",le="0.1"} 1',
      't_seconds_bucket{route="/a",le="1"} 2',
      't_seconds_bucket{route="/a",le="+Inf"} 3',
      't_seconds_sum{route="/a"} 3.55',
      't_seconds_count{route="/a"} 3',
      "",
    ]);
    expect(latency.count({ route: "/a" })).toBe(3);
  });

  it("escapes label values and help text", () => {
    const registry = new Registry();
    registry.counter({ name: "t_total", help: "Line one\nback\\slash", labels: ["v"] }).inc({ v: 'a"b\\c\nd' });
    expect(registry.render()).toContain("# HELP t_total Line one\\nback\\\\slash\n");
    expect(registry.render()).toContain('t_total{v="a\\"b\\\\c\\nd"} 1');
  });

  it("renders a metric without labels as a bare name", () => {
    const registry = new Registry();
    registry.counter({ name: "t_plain_total", help: "Plain.", labels: [] }).inc({});
    expect(registry.render()).toContain("\nt_plain_total 1\n");
  });
});
