// A small metrics registry that renders the Prometheus text format (version 0.0.4). It runs the
// same on Node, Bun and Deno, which prom-client does not promise, and the service needs only
// counters, gauges and histograms with a few fixed labels.
//
// Label values come from short fixed sets chosen by the code (route patterns, tiers, modes),
// never from a request's data, so the series stay few and hold nothing private.

type Labels<L extends string> = Record<L, string>;

interface Metric {
  render(): string[];
}

export interface Counter<L extends string> {
  inc(labels: Labels<L>, by?: number): void;
  get(labels: Labels<L>): number;
}

export interface Gauge<L extends string> extends Counter<L> {
  dec(labels: Labels<L>, by?: number): void;
  set(labels: Labels<L>, value: number): void;
}

export interface Histogram<L extends string> {
  observe(labels: Labels<L>, value: number): void;
  /** How many observations there are for these labels. */
  count(labels: Labels<L>): number;
}

interface Definition<L extends string> {
  name: string;
  help: string;
  labels: readonly L[];
}

export class Registry {
  private readonly metrics: Metric[] = [];

  counter<L extends string>(definition: Definition<L>): Counter<L> {
    const values = this.add(definition, "counter");
    return { inc: values.add, get: values.get };
  }

  gauge<L extends string>(definition: Definition<L>): Gauge<L> {
    const values = this.add(definition, "gauge");
    return {
      inc: values.add,
      dec: (labels, by = 1) => values.add(labels, -by),
      set: (labels, value) => values.add(labels, value - values.get(labels)),
      get: values.get,
    };
  }

  histogram<L extends string>(definition: Definition<L> & { buckets: readonly number[] }): Histogram<L> {
    const { name, help, labels, buckets } = definition;
    const series = new Map<string, { counts: number[]; sum: number; count: number }>();
    this.metrics.push({
      render: () => [
        ...header(name, help, "histogram"),
        ...[...series].flatMap(([key, { counts, sum, count }]) => [
          ...buckets.map((le, i) => `${name}_bucket${labelText(key, `le="${le}"`)} ${counts[i]}`),
          `${name}_bucket${labelText(key, 'le="+Inf"')} ${count}`,
          `${name}_sum${labelText(key)} ${sum}`,
          `${name}_count${labelText(key)} ${count}`,
        ]),
      ],
    });
    return {
      observe(values, value) {
        const key = seriesKey(labels, values);
        const entry = series.get(key) ?? { counts: buckets.map(() => 0), sum: 0, count: 0 };
        series.set(key, entry);
        // Buckets are cumulative: an observation counts in every bucket whose bound it is within.
        buckets.forEach((le, i) => {
          if (value <= le) entry.counts[i] = entry.counts[i]! + 1;
        });
        entry.sum += value;
        entry.count += 1;
      },
      count: (values) => series.get(seriesKey(labels, values))?.count ?? 0,
    };
  }

  /** The whole registry in the Prometheus text exposition format. */
  render(): string {
    return this.metrics.flatMap((metric) => metric.render()).join("\n") + "\n";
  }

  private add<L extends string>({ name, help, labels }: Definition<L>, type: "counter" | "gauge") {
    const series = new Map<string, number>();
    this.metrics.push({
      render: () => [
        ...header(name, help, type),
        ...[...series].map(([key, value]) => `${name}${labelText(key)} ${value}`),
      ],
    });
    return {
      add(values: Labels<L>, by = 1) {
        const key = seriesKey(labels, values);
        series.set(key, (series.get(key) ?? 0) + by);
      },
      get: (values: Labels<L>) => series.get(seriesKey(labels, values)) ?? 0,
    };
  }
}

function header(name: string, help: string, type: string): string[] {
  return [`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} ${type}`];
}

// A series is keyed by its rendered label pairs, in the order the metric declares them.
function seriesKey<L extends string>(names: readonly L[], values: Labels<L>): string {
  return names.map((name) => `${name}="${escapeLabel(values[name])}"`).join(",");
}

function labelText(key: string, extra?: string): string {
  const all = [key, extra].filter(Boolean).join(",");
  return all ? `{${all}}` : "";
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}
