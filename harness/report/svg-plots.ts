import { emptyChart, esc, legend, num, PALETTE, svgRoot } from "./svg.ts";

/**
 * Interval plots for the reports: a forest plot of deltas against a baseline and a run-over-run
 * series with intervals, a centre line, control limits and alarms. Pure string builders; every
 * data point is one `.mark`, every interval one `.ci`, every margin one `.margin`.
 */

const fmtTick = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Number(v.toPrecision(2)).toString());

/** Tick labels with the fewest significant digits (2 at least) that tell every tick apart: 2.01 and 2.02 are not both "2". */
function tickLabels(values: readonly number[], format: (v: number) => string): string[] {
  const labels = values.map(format);
  if (new Set(labels).size === labels.length) return labels;
  for (let digits = 3; digits <= 12; digits++) {
    const finer = values.map((v) => Number(v.toPrecision(digits)).toString());
    if (new Set(finer).size === finer.length) return finer;
  }
  return labels;
}

/** A linear scale from [lo, hi] onto [p0, p1], widened when the range is empty. */
function scale(lo: number, hi: number, p0: number, p1: number): (v: number) => number {
  const span = hi - lo || Math.max(Math.abs(hi), 1) * 0.1 || 1;
  const a = hi - lo ? lo : lo - span / 2;
  return (v) => num(p0 + ((v - a) / span) * (p1 - p0));
}

/** About n round-numbered ticks covering [lo, hi]. */
function ticks(lo: number, hi: number, n = 5): number[] {
  const raw = (hi - lo) / Math.max(1, n);
  if (!(raw > 0)) return [lo];
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function extent(values: readonly (number | null | undefined)[], include: readonly number[] = []): [number, number] {
  const known = [...values.filter((v): v is number => typeof v === "number" && Number.isFinite(v)), ...include];
  if (known.length === 0) return [0, 1];
  const lo = Math.min(...known);
  const hi = Math.max(...known);
  const pad = (hi - lo) * 0.08;
  return [lo - pad, hi + pad];
}

interface ForestPlotRow {
  label: string;
  delta: number | null;
  low: number | null;
  high: number | null;
  /** The gate's one-sided bound, when gated. */
  bound: number | null;
  /** The non-inferiority margin on the delta axis, when gated. */
  margin: number | null;
  color: string;
  title: string;
  /** Why the row has no interval (drawn at its right, as `.no-interval`); null when it has one. */
  note: string | null;
}

/** One row per metric: the delta (dot), its interval (line) or why it has none, the gate's margin (dashed tick) and bound (bar); zero is the axis. */
export function forestPlot(opts: { id: string; rows: ForestPlotRow[] }): string {
  const { id, rows } = opts;
  const labelW = Math.min(300, 14 + 7 * Math.max(8, ...rows.map((r) => r.label.length)));
  const plotW = 440;
  const noteW = rows.some((r) => r.note !== null) ? 300 : 0;
  const rowH = 22;
  const top = 24;
  const height = top + rowH * Math.max(1, rows.length) + 26;
  const [lo, hi] = extent(
    rows.flatMap((r) => [r.delta, r.low, r.high, r.bound, r.margin]),
    [0],
  );
  const x = scale(lo, hi, labelW, labelW + plotW);
  const parts: string[] = [
    `<line x1="${x(0)}" y1="${top - 6}" x2="${x(0)}" y2="${height - 22}" stroke="#555"/>`,
    `<text x="${x(0)}" y="${top - 10}" text-anchor="middle" fill="#56616d">0 = no change</text>`,
    ...((ts) =>
      ts.map(
        (t, i) =>
          `<line x1="${x(t)}" y1="${height - 24}" x2="${x(t)}" y2="${height - 20}" stroke="#555"/><text x="${x(t)}" y="${height - 6}" text-anchor="middle" fill="#56616d">${esc(tickLabels(ts, fmtTick)[i]!)}</text>`,
      ))(ticks(lo, hi)),
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowH + rowH / 2;
    const g: string[] = [`<title>${esc(r.title)}</title>`, `<text x="${labelW - 8}" y="${y + 4}" text-anchor="end">${esc(r.label)}</text>`];
    g.push(`<line x1="${labelW}" y1="${y}" x2="${labelW + plotW}" y2="${y}" stroke="#eef0f3"/>`);
    if (r.margin !== null)
      g.push(
        `<line class="margin" x1="${x(r.margin)}" y1="${y - 8}" x2="${x(r.margin)}" y2="${y + 8}" stroke="#b3261e" stroke-dasharray="3 2" stroke-width="2"/>`,
      );
    if (r.low !== null && r.high !== null)
      g.push(`<line class="ci" x1="${x(r.low)}" y1="${y}" x2="${x(r.high)}" y2="${y}" stroke="${r.color}" stroke-width="2"/>`);
    if (r.bound !== null)
      g.push(`<line class="bound" x1="${x(r.bound)}" y1="${y - 5}" x2="${x(r.bound)}" y2="${y + 5}" stroke="${r.color}" stroke-width="3"/>`);
    if (r.delta !== null) g.push(`<circle class="mark" cx="${x(r.delta)}" cy="${y}" r="4.5" fill="${r.color}"/>`);
    else g.push(`<text x="${labelW + 4}" y="${y + 4}" fill="#56616d">n/a</text>`);
    if (r.note !== null) g.push(`<text class="no-interval" x="${labelW + plotW + 12}" y="${y + 4}" fill="#56616d" font-size="11">${esc(r.note)}</text>`);
    parts.push(`<g>${g.join("")}</g>`);
  });
  return svgRoot(id, labelW + plotW + 20 + noteW, height, parts.join(""));
}

interface SeriesPoint {
  value: number | null;
  low?: number | null;
  high?: number | null;
  alarm?: boolean;
  /** Drawn as an open circle (e.g. a run that is the reference, not judged). */
  hollow?: boolean;
  title: string;
}

export interface PlotSeries {
  name: string;
  color?: string;
  points: SeriesPoint[];
}

/**
 * Values over runs (x = run index, labelled), each point with its interval; an optional centre
 * line and control band (the in-control reference) and a ring on every alarmed point. `range`
 * bounds the axis, the band and the intervals (a rate's [0, 1]: a ±3σ band never leaves it);
 * `small` draws a small multiple.
 */
export function seriesChart(opts: {
  id: string;
  labels: string[];
  series: PlotSeries[];
  center?: number | null;
  limits?: { low: number; high: number } | null;
  format?: (v: number) => string;
  range?: readonly [number, number];
  small?: boolean;
}): string {
  const { id, labels, series, center = null, format = fmtTick, range = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY], small = false } = opts;
  if (!series.some((s) => s.points.some((p) => p.value !== null))) return emptyChart(id, "no run has a value");
  const clip = (v: number) => Math.min(range[1], Math.max(range[0], v));
  const limits = opts.limits ? { low: clip(opts.limits.low), high: clip(opts.limits.high) } : null;
  const width = small ? Math.max(260, 70 + 30 * labels.length) : Math.max(520, 90 + 56 * labels.length);
  const left = 56;
  const right = 14;
  const key =
    series.length > 1
      ? legend(
          series.map((s, k) => ({ name: s.name, color: s.color ?? PALETTE[k % PALETTE.length]! })),
          left,
          width - left - right,
        )
      : null;
  const top = small ? 14 : 10 + 18 * (key?.rows ?? 1);
  const bottom = small ? 30 : 46;
  const height = (small ? 86 : 156) + top + bottom;
  const values = series.flatMap((s) => s.points.flatMap((p) => [p.value, p.low, p.high])).map((v) => (v === null || v === undefined ? v : clip(v)));
  const [lo0, hi0] = extent(values, [...(center === null ? [] : [center]), ...(limits ? [limits.low, limits.high] : [])]);
  const [lo, hi] = [Math.max(range[0], lo0), Math.min(range[1], hi0)];
  const y = scale(lo, hi, height - bottom, top);
  const step = labels.length > 1 ? (width - left - right - 20) / (labels.length - 1) : 0;
  const x = (i: number) => num(left + 10 + i * step + (labels.length > 1 ? 0 : (width - left - right - 20) / 2));
  const parts: string[] = [];
  if (key) parts.push(...key.parts);
  if (limits)
    parts.push(
      `<rect class="limits" x="${left}" y="${y(limits.high)}" width="${width - left - right}" height="${num(y(limits.low) - y(limits.high))}" fill="#e8f1e8"/>`,
    );
  if (center !== null)
    parts.push(`<line class="center" x1="${left}" y1="${y(center)}" x2="${width - right}" y2="${y(center)}" stroke="#4f9d69" stroke-dasharray="5 3"/>`);
  parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#555"/>`);
  const yTicks = ticks(lo, hi, small ? 3 : 4);
  tickLabels(yTicks, format).forEach((label, i) =>
    parts.push(
      `<line x1="${left - 3}" y1="${y(yTicks[i]!)}" x2="${left}" y2="${y(yTicks[i]!)}" stroke="#555"/><text class="tick" x="${left - 5}" y="${y(yTicks[i]!) + 4}" text-anchor="end">${esc(label)}</text>`,
    ),
  );
  labels.forEach((l, i) => {
    const short = l.length > 14 ? `${l.slice(0, 13)}…` : l;
    parts.push(`<text transform="translate(${x(i)},${height - bottom + 12}) rotate(30)" font-size="10"><title>${esc(l)}</title>${esc(short)}</text>`);
  });
  const jitter = series.length > 1 ? 4 : 0;
  series.forEach((s, k) => {
    const color = s.color ?? PALETTE[k % PALETTE.length]!;
    const dx = (k - (series.length - 1) / 2) * jitter;
    const known = s.points.map((p, i) => [p, i] as const).filter(([p]) => p.value !== null);
    if (known.length > 1)
      parts.push(
        `<polyline points="${known.map(([p, i]) => `${num(x(i) + dx)},${y(p.value!)}`).join(" ")}" fill="none" stroke="${color}" stroke-opacity="0.55"/>`,
      );
    for (const [p, i] of known) {
      const g = [`<title>${esc(p.title)}</title>`];
      if (p.low !== null && p.low !== undefined && p.high !== null && p.high !== undefined)
        g.push(
          `<line class="ci" x1="${num(x(i) + dx)}" y1="${y(clip(p.low))}" x2="${num(x(i) + dx)}" y2="${y(clip(p.high))}" stroke="${color}" stroke-width="1.5"/>`,
        );
      g.push(
        `<circle class="mark${p.hollow ? " hollow" : ""}" cx="${num(x(i) + dx)}" cy="${y(p.value!)}" r="4" fill="${p.hollow ? "#fff" : color}" stroke="${color}" stroke-width="1.5"/>`,
      );
      if (p.alarm) g.push(`<circle class="alarm" cx="${num(x(i) + dx)}" cy="${y(p.value!)}" r="8" fill="none" stroke="#b3261e" stroke-width="2"/>`);
      parts.push(`<g>${g.join("")}</g>`);
    }
  });
  return svgRoot(id, width, height, parts.join(""));
}
