import { normalQuantile } from "../../src/stats/distributions.ts";
import { holm } from "../../src/stats/multiplicity.ts";
import { nonInferiorityBound, pairedDelta, type PairedDelta } from "../../src/stats/paired.ts";
import type { DiffResult } from "./diff.ts";
import type { Floor, GatePolicy, Margin } from "./policy.ts";
import { itemKey, type Metric, type Snapshot } from "../../src/formats/snapshot.ts";
import { differenceInterval, exactLowerBound, exactUpperBound } from "../../src/stats/proportion.ts";
import { ROUNDING } from "../../src/metrics/estimate.ts";

export type CheckOutcome = "pass" | "fail" | "inconclusive" | "error";

/** One line of the gate's verdict; `name` is what a failure names (a metric, the canary, ...). */
interface GateCheck {
  name: string;
  kind: "infrastructure" | "trials" | "items" | "floor" | "non_inferiority" | "unexplained_deltas";
  outcome: CheckOutcome;
  message: string;
  /** Non-inferiority checks: the paired delta, its one-sided bound and the Holm-adjusted p. */
  delta?: { mean: number; se: number | null; n: number; upper: number | null; margin: number; p_holm: number | null };
  /** Inconclusive checks: trials per item that the pre-planned extension needs (a lower bound). */
  trials_needed?: number | null;
}

type GateDecision = "pass" | "regression" | "inconclusive" | "infrastructure";

export interface GateResult {
  decision: GateDecision;
  /** docs/design.md §9: 0 pass, 1 regression, 2 inconclusive, 3 infrastructure error. */
  exit: 0 | 1 | 2 | 3;
  checks: GateCheck[];
  /** What failed, by name (metrics, floors, unexplained deltas, infrastructure). */
  failed: string[];
  /** The largest number of trials per item any inconclusive check asks for; null when none says. */
  trials_needed: number | null;
}

const fmt = (x: number | null) => (x === null ? "unknown" : Number(x.toPrecision(4)).toString());

function infrastructureChecks(policy: GatePolicy, a: Snapshot): GateCheck[] {
  const out: GateCheck[] = [];
  if (policy.require_canary) {
    const ok = a.canary_passed === true;
    out.push({
      name: "canary",
      kind: "infrastructure",
      outcome: ok ? "pass" : "error",
      message: ok ? "gate canaries passed" : a.canary_passed === false ? "a gate canary failed: the gates are suspect" : "no canary result recorded",
    });
  }
  const rate = a.total_trials === 0 ? null : a.error_trials / a.total_trials;
  const ok = rate !== null && rate <= policy.max_error_rate;
  out.push({
    name: "error_rate",
    kind: "infrastructure",
    outcome: ok ? "pass" : "error",
    message: rate === null ? "the run has no trials" : `${a.error_trials} of ${a.total_trials} trials errored (${fmt(rate)}; limit ${policy.max_error_rate})`,
  });
  return out;
}

function trialsCheck(policy: GatePolicy, a: Snapshot): GateCheck {
  const n = a.trials_per_item;
  const ok = n !== null && n >= policy.min_trials_per_item;
  return {
    name: "trials_per_item",
    kind: "trials",
    outcome: ok ? "pass" : "inconclusive",
    message: `${n ?? "unknown"} trials per item; the policy pre-registers at least ${policy.min_trials_per_item}`,
    ...(ok ? {} : { trials_needed: policy.min_trials_per_item }),
  };
}

/**
 * The baseline's items are the pre-registered item set: a candidate that left some out is judged
 * on the rest only, where a regression on the missing ones cannot show, so it is inconclusive.
 * Items the candidate adds have nothing to be compared with and leave the verdict alone.
 */
function itemsCheck(diff: DiffResult): GateCheck {
  const missing = diff.coverage.only_baseline;
  const shown = missing.slice(0, 5).join(", ");
  return {
    name: "baseline_items",
    kind: "items",
    outcome: missing.length === 0 ? "pass" : "inconclusive",
    message:
      missing.length === 0
        ? "the candidate ran every baseline item"
        : `${missing.length} baseline item(s) not in the candidate (${shown}${missing.length > 5 ? ", ..." : ""}): run the baseline's item set`,
  };
}

/**
 * The number a floor judges: the point estimate, a bound of the metric's own interval, or the
 * one-sided exact (Clopper–Pearson) bound at 1 − α of its events over its units.
 */
function floorValue(floor: Floor, m: Metric, alpha: number): number | null {
  if (floor.on === "value") return m.value;
  if (floor.on === "ci_high") return m.ci_high;
  if (floor.on === "ci_low") return m.ci_low;
  if (m.numerator === undefined || m.denominator === undefined || m.denominator === 0) return null;
  return floor.on === "exact_upper" ? exactUpperBound(m.numerator, m.denominator, 1 - alpha) : exactLowerBound(m.numerator, m.denominator, 1 - alpha);
}

function floorCheck(floor: Floor, a: Snapshot, alpha: number): GateCheck {
  const m = a.metrics[floor.metric];
  const name = `floor:${floor.metric}`;
  const x = m ? floorValue(floor, m, alpha) : null;
  if (x === null || m === undefined) {
    return {
      name,
      kind: "floor",
      outcome: "inconclusive",
      message: `${floor.metric} is unknown in the candidate (${m ? `n_items ${m.n_items}` : "not in summary"})`,
    };
  }
  const ok = floor.max !== undefined ? x <= floor.max : x >= floor.min!;
  const on =
    floor.on === "value"
      ? ""
      : floor.on.startsWith("ci")
        ? `${floor.on} `
        : `exact ${fmt(100 * (1 - alpha))}% ${floor.on === "exact_upper" ? "upper" : "lower"} bound (${m.numerator} of ${m.denominator}) `;
  const relation = floor.max !== undefined ? (ok ? "≤" : ">") : ok ? "≥" : "<";
  return {
    name,
    kind: "floor",
    outcome: ok ? "pass" : "fail",
    message: `${floor.metric} ${on}${fmt(x)} ${relation} floor ${floor.max ?? floor.min}`,
  };
}

/**
 * Paired per-item values of one metric over the items of both runs with the same content hash,
 * with each item's cluster (its fixture group in the baseline), so twins count as one unit.
 */
function pairedValues(metric: string, b: Snapshot, a: Snapshot, sign: 1 | -1 = 1): { a: number[]; b: number[]; clusters: string[] } {
  const aItems = new Map(a.items.map((i) => [itemKey(i), i]));
  const out = { a: [] as number[], b: [] as number[], clusters: [] as string[] };
  for (const bi of b.items) {
    const ai = aItems.get(itemKey(bi));
    const vb = bi.values[metric];
    const va = ai?.values[metric];
    if (!ai || ai.item_hash !== bi.item_hash || vb === null || vb === undefined || va === null || va === undefined) continue;
    out.a.push(sign * va);
    out.b.push(sign * vb);
    out.clusters.push(bi.cluster);
  }
  return out;
}

/**
 * The paired per-item delta of one metric, A against B (sign −1 for a metric where higher is
 * better), with its clustered t-interval. Differences with no spread (every item moved alike:
 * typically a rate at 0 in every item of both runs) give a t-interval of zero width, a certainty
 * the trials do not have: the interval is then recovered from the two runs' own intervals as for
 * independent runs (MOVER: an edge keeps its exact one-sided bound) when the paired items are all
 * the items behind both, and is null otherwise. Never [0, 0].
 */
export function metricDelta(metric: string, b: Snapshot, a: Snapshot, sign: 1 | -1 = 1): PairedDelta | null {
  const pv = pairedValues(metric, b, a, sign);
  const d = pv.a.length > 0 ? pairedDelta(pv.a, pv.b, 0.95, pv.clusters) : null;
  // Spread below rounding is none: items that all moved by 0.2 leave an SE of 1e-17, not 0.
  if (d === null || d.se === null || d.se >= ROUNDING) return d;
  const side = (m: Metric | undefined) =>
    m === undefined || m.value === null || m.ci_low === null || m.ci_high === null || m.n_items !== d.n
      ? null
      : sign === 1
        ? { value: m.value, low: m.ci_low, high: m.ci_high }
        : { value: -m.value, low: -m.ci_high, high: -m.ci_low };
  const [sa, sb] = [side(a.metrics[metric]), side(b.metrics[metric])];
  const recovered = sa && sb ? differenceInterval(sa.value, sa, sb.value, sb) : null;
  return { ...d, low: recovered?.low ?? null, high: recovered?.high ?? null };
}

/**
 * Trials per item that would give the non-inferiority test power 0.8 at a true change of zero,
 * assuming the delta's variance is all within-item (it shrinks as 1/N); item-to-item spread of
 * the change does not shrink with N, so this is a lower bound.
 */
function trialsForPower(d: PairedDelta, margin: number, alpha: number, trialsNow: number | null): number | null {
  if (d.se === null || trialsNow === null) return null;
  const target = margin / (normalQuantile(1 - alpha) + normalQuantile(0.8));
  return Math.max(trialsNow + 1, Math.ceil(trialsNow * (d.se / target) ** 2));
}

function marginChecks(policy: GatePolicy, b: Snapshot, a: Snapshot): GateCheck[] {
  const rows = policy.non_inferiority.map((m: Margin) => {
    const d = metricDelta(m.metric, b, a, m.direction === "lower_is_better" ? 1 : -1);
    return { m, d, upper: d ? nonInferiorityBound(d, policy.alpha) : null };
  });
  const testable = rows.filter((r) => r.d?.pGreater !== null && r.d?.pGreater !== undefined);
  const adjusted = holm(testable.map((r) => r.d!.pGreater!));
  const pHolm = new Map(testable.map((r, i) => [r.m.metric, adjusted[i]!]));
  return rows.map(({ m, d, upper }) => {
    const name = m.metric;
    if (d === null || upper === null) {
      return {
        name,
        kind: "non_inferiority",
        outcome: "inconclusive",
        // More items decide this, not more trials of the same ones.
        message: `${name}: ${d ? `${d.n} paired item(s) in ${d.clusters} cluster(s)` : "no paired item"} with a value in both runs; at least 2 clusters are needed`,
      } satisfies GateCheck;
    }
    const p = pHolm.get(name) ?? null;
    const delta = { mean: d.mean, se: d.se, n: d.n, upper, margin: m.margin, p_holm: p };
    const worse = m.direction === "lower_is_better" ? "higher" : "lower";
    if (upper <= m.margin) {
      return {
        name,
        kind: "non_inferiority",
        outcome: "pass",
        delta,
        message: `${name}: Δ ${fmt(d.mean)}, upper bound ${fmt(upper)} ≤ margin ${m.margin} (n ${d.n})`,
      } satisfies GateCheck;
    }
    if (p !== null && p <= policy.alpha && d.mean > m.margin) {
      return {
        name,
        kind: "non_inferiority",
        outcome: "fail",
        delta,
        message: `${name} regressed: ${worse} by ${fmt(d.mean)} (> margin ${m.margin}; Holm p ${fmt(p)}, n ${d.n})`,
      } satisfies GateCheck;
    }
    const needed = trialsForPower(d, m.margin, policy.alpha, a.trials_per_item);
    return {
      name,
      kind: "non_inferiority",
      outcome: "inconclusive",
      delta,
      trials_needed: needed,
      message: `${name}: Δ ${fmt(d.mean)}, upper bound ${fmt(upper)} > margin ${m.margin}, ${p !== null && p <= policy.alpha ? "a significant change whose estimate is within the margin" : "no significant regression"} (Holm p ${fmt(p)}); needs at least ${needed ?? "more"} trials per item`,
    } satisfies GateCheck;
  });
}

function unexplainedCheck(policy: GatePolicy, diff: DiffResult): GateCheck {
  const n = diff.unexplained.length;
  const ok = n <= policy.max_unexplained_deltas;
  const listed = diff.unexplained.slice(0, 5).map((d) => `${d.item} ${d.kind}${d.key ? ` ${d.key}` : ""}`);
  return {
    name: "unexplained_deltas",
    kind: "unexplained_deltas",
    outcome: ok ? "pass" : "fail",
    message: `${n} unexplained delta(s) (limit ${policy.max_unexplained_deltas})${n ? `: ${listed.join("; ")}${n > 5 ? "; ..." : ""}` : ""}`,
  };
}

const EXIT: Record<GateDecision, GateResult["exit"]> = { pass: 0, regression: 1, inconclusive: 2, infrastructure: 3 };

/**
 * The release gate (methodology-notes §12): infrastructure first (canary, error rate: exit 3),
 * then absolute floors on the candidate, non-inferiority of each gated metric against the
 * baseline (paired per item, one-sided at α, Holm across metrics for the regression flag), and
 * the diff's unexplained deltas. Any failure is a regression (1); otherwise anything undecided
 * (too few trials, baseline items the candidate did not run, an unknown metric, a bound above its
 * margin without a significant regression) is inconclusive (2) with the trials it needs;
 * otherwise pass (0).
 */
export function evaluateGate(policy: GatePolicy, b: Snapshot, a: Snapshot, diff: DiffResult): GateResult {
  const checks: GateCheck[] = [
    ...infrastructureChecks(policy, a),
    trialsCheck(policy, a),
    itemsCheck(diff),
    ...policy.floors.map((f) => floorCheck(f, a, policy.alpha)),
    ...marginChecks(policy, b, a),
    unexplainedCheck(policy, diff),
  ];
  const has = (o: CheckOutcome) => checks.some((c) => c.outcome === o);
  const decision: GateDecision = has("error") ? "infrastructure" : has("fail") ? "regression" : has("inconclusive") ? "inconclusive" : "pass";
  const needed = checks.map((c) => c.trials_needed ?? null).filter((n): n is number => n !== null);
  return {
    decision,
    exit: EXIT[decision],
    checks,
    failed: checks.filter((c) => c.outcome === "fail" || c.outcome === "error").map((c) => c.name),
    trials_needed: needed.length ? Math.max(...needed) : null,
  };
}
