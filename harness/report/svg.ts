/** Inline SVG charts for the reports: pure string builders, no scripts, no network. Data marks carry class "mark". */

export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export const PALETTE = ["#3b6ea5", "#e07b39", "#4f9d69", "#c44e52", "#8172b2", "#937860", "#da8bc3", "#8c8c8c"];

const FONT = `font-family="system-ui, sans-serif" font-size="12"`;

/** The root element every chart shares (sized by its viewBox; CSS scales it to its column). */
export function svgRoot(id: string, width: number, height: number, body: string): string {
  return `<svg id="${esc(id)}" class="chart" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ${FONT}>${body}</svg>`;
}
export const num = (x: number) => Number(x.toFixed(2));

/** A chart with nothing to draw still gets its svg, saying why. */
export function emptyChart(id: string, message: string): string {
  const width = 40 + 7 * message.length;
  return svgRoot(id, width, 40, `<text x="10" y="24" fill="#56616d">${esc(message)}</text>`);
}

interface Bar {
  label: string;
  value: number | null;
  /** Hover text. */
  title?: string;
}

/** Horizontal bars, one row per label; a null value is drawn as "n/a". */
export function barChart(opts: { id: string; bars: Bar[]; max?: number; format?: (v: number) => string; color?: string }): string {
  const { id, bars, format = (v) => v.toFixed(2), color = PALETTE[0]! } = opts;
  const labelW = Math.min(320, 12 + 7 * Math.max(4, ...bars.map((b) => b.label.length)));
  const plotW = 420;
  const rowH = 18;
  const max = opts.max ?? Math.max(1e-9, ...bars.map((b) => b.value ?? 0));
  const height = 24 + rowH * Math.max(1, bars.length);
  const rows = bars.map((b, i) => {
    const y = 8 + i * rowH;
    const w = b.value === null ? 0 : num((plotW * b.value) / max);
    const text = b.value === null ? "n/a" : format(b.value);
    return (
      `<g><title>${esc(b.title ?? `${b.label}: ${text}`)}</title>` +
      `<text x="${labelW - 6}" y="${y + 12}" text-anchor="end">${esc(b.label)}</text>` +
      `<rect class="mark" x="${labelW}" y="${y + 2}" width="${w}" height="${rowH - 5}" fill="${color}"/>` +
      `<text x="${labelW + w + 4}" y="${y + 12}" fill="#333">${esc(text)}</text></g>`
    );
  });
  const width = labelW + plotW + 60;
  return svgRoot(id, width, height, rows.join(""));
}

/** A counts matrix as a heatmap; each row is shaded by its own total (row-normalized), counts printed. */
export function heatmap(opts: { id: string; rows: string[]; cols: string[]; cells: number[][]; rowTitle: string; colTitle: string }): string {
  const { id, rows, cols, cells } = opts;
  const labelW = 12 + 7 * Math.max(6, ...rows.map((r) => r.length));
  const cell = 56;
  const headH = 14 + 7 * Math.max(6, ...cols.map((c) => c.length));
  // Column labels lean right at 45°: the last one needs room beyond the grid.
  const width = labelW + cell * cols.length + 10 + Math.ceil(5 * Math.max(6, ...cols.map((c) => c.length)));
  const height = headH + cell * rows.length + 10;
  const parts: string[] = [];
  cols.forEach((c, j) => {
    const x = labelW + j * cell + cell / 2;
    parts.push(`<text transform="translate(${x},${headH - 6}) rotate(-45)">${esc(c)}</text>`);
  });
  rows.forEach((r, i) => {
    const y = headH + i * cell;
    const total = (cells[i] ?? []).reduce((s, v) => s + v, 0);
    parts.push(`<text x="${labelW - 6}" y="${y + cell / 2 + 4}" text-anchor="end">${esc(r)}</text>`);
    cols.forEach((c, j) => {
      const v = cells[i]?.[j] ?? 0;
      const share = total > 0 ? v / total : 0;
      const x = labelW + j * cell;
      const fill = `rgba(59,110,165,${num(0.08 + 0.92 * share)})`;
      parts.push(
        `<g><title>${esc(`${opts.rowTitle} ${r} → ${opts.colTitle} ${c}: ${v} (${(100 * share).toFixed(0)}% of row)`)}</title>` +
          `<rect class="mark" x="${x}" y="${y}" width="${cell - 2}" height="${cell - 2}" fill="${fill}"/>` +
          `<text x="${x + cell / 2 - 1}" y="${y + cell / 2 + 4}" text-anchor="middle" fill="${share > 0.5 ? "#fff" : "#222"}">${v}</text></g>`,
      );
    });
  });
  return svgRoot(id, width, height, parts.join(""));
}

interface Series {
  name: string;
  values: number[];
  color?: string;
}

const colorOf = (s: Series, k: number) => s.color ?? PALETTE[k % PALETTE.length]!;

/**
 * A legend; entries are spaced by their text length, on one row, or wrapped onto as many rows of
 * 18 px as fit within `maxWidth` so that no entry is cut at the chart's edge. Returns the svg
 * parts, the width used and the rows.
 */
export function legend(
  series: readonly { name: string; color: string }[],
  x0: number,
  maxWidth = Number.POSITIVE_INFINITY,
): { parts: string[]; width: number; rows: number } {
  let x = x0;
  let row = 0;
  let widest = 0;
  const parts = series.map((s) => {
    const w = 28 + 7 * s.name.length;
    if (x > x0 && x - x0 + w > maxWidth) {
      row += 1;
      x = x0;
    }
    const y = 4 + 18 * row;
    const part = `<rect x="${x}" y="${y}" width="12" height="12" fill="${s.color}"/><text x="${x + 16}" y="${y + 10}">${esc(s.name)}</text>`;
    x += w;
    widest = Math.max(widest, x - x0);
    return part;
  });
  return { parts, width: widest, rows: row + 1 };
}

/** Horizontal stacked bars: one row per category, one segment per series, with a legend. */
export function stackedBars(opts: { id: string; categories: string[]; series: Series[]; format?: (v: number) => string }): string {
  const { id, categories, series, format = (v) => String(v) } = opts;
  const labelW = 12 + 7 * Math.max(6, ...categories.map((c) => c.length));
  const plotW = 420;
  const rowH = 22;
  const totals = categories.map((_, i) => series.reduce((s, se) => s + (se.values[i] ?? 0), 0));
  const max = Math.max(1e-9, ...totals);
  const legendH = 22;
  const height = legendH + 10 + rowH * Math.max(1, categories.length);
  const key = legend(
    series.map((s, k) => ({ name: s.name, color: colorOf(s, k) })),
    labelW,
  );
  const parts: string[] = [...key.parts];
  categories.forEach((c, i) => {
    const y = legendH + 8 + i * rowH;
    parts.push(`<text x="${labelW - 6}" y="${y + 13}" text-anchor="end">${esc(c)}</text>`);
    let x = labelW;
    series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      const w = num((plotW * v) / max);
      parts.push(
        `<g><title>${esc(`${c}, ${s.name}: ${format(v)}`)}</title><rect class="mark" x="${num(x)}" y="${y + 2}" width="${w}" height="${rowH - 6}" fill="${colorOf(s, k)}"/></g>`,
      );
      x += w;
    });
    parts.push(`<text x="${num(x) + 4}" y="${y + 13}" fill="#333">${esc(format(totals[i]!))}</text>`);
  });
  const width = Math.max(labelW + plotW + 80, labelW + key.width);
  return svgRoot(id, width, height, parts.join(""));
}

/** Histogram of values in equal-width bins, one stacked colour per group (e.g. latency by status). */
export function histogram(opts: { id: string; groups: Series[]; bins?: number; unit: string }): string {
  const { id, groups, bins = 20, unit } = opts;
  const all = groups.flatMap((g) => g.values);
  const width = 640;
  const height = 220;
  const left = 44;
  const bottom = 30;
  const top = 26;
  if (all.length === 0) return emptyChart(id, "no values");
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const step = hi > lo ? (hi - lo) / bins : 1;
  const counts = groups.map((g) => {
    const c = new Array<number>(bins).fill(0);
    for (const v of g.values) c[Math.min(bins - 1, Math.floor((v - lo) / step))]! += 1;
    return c;
  });
  const totals = new Array<number>(bins).fill(0).map((_, b) => counts.reduce((s, c) => s + c[b]!, 0));
  const maxCount = Math.max(1, ...totals);
  const plotW = width - left - 10;
  const plotH = height - top - bottom;
  const bw = plotW / bins;
  const parts: string[] = legend(
    groups.map((g, k) => ({ name: `${g.name} (${g.values.length})`, color: colorOf(g, k) })),
    left,
  ).parts;
  for (let b = 0; b < bins; b++) {
    let y = top + plotH;
    counts.forEach((c, k) => {
      const v = c[b]!;
      if (v === 0) return;
      const h = (plotH * v) / maxCount;
      y -= h;
      const from = lo + b * step;
      parts.push(
        `<g><title>${esc(`${groups[k]!.name}: ${v} in [${from.toFixed(0)}, ${(from + step).toFixed(0)}) ${unit}`)}</title>` +
          `<rect class="mark" x="${num(left + b * bw)}" y="${num(y)}" width="${num(bw - 1)}" height="${num(h)}" fill="${colorOf(groups[k]!, k)}"/></g>`,
      );
    });
  }
  parts.push(`<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#555"/>`);
  parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#555"/>`);
  parts.push(`<text x="${left - 4}" y="${top + 8}" text-anchor="end">${maxCount}</text><text x="${left - 4}" y="${top + plotH}" text-anchor="end">0</text>`);
  parts.push(
    `<text x="${left}" y="${height - 8}">${lo.toFixed(0)} ${esc(unit)}</text><text x="${left + plotW}" y="${height - 8}" text-anchor="end">${hi.toFixed(0)} ${esc(unit)}</text>`,
  );
  return svgRoot(id, width, height, parts.join(""));
}
