import { HEADLINE_METRICS, metricInfo, type Direction } from "../../src/metrics/catalogue.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import { SimProfileSchema, type SimProfile } from "../../src/sim/profile.ts";
import { IMPORTED_SUITE } from "../../src/formats/run-config.ts";
import { fmt, modelLabel } from "./format.ts";
import { isSimulated, type LoadedRun } from "../run/load.ts";
import type { ItemDetail } from "./triage.ts";

/**
 * What a report's first screen says without a baseline: the headline metrics with their
 * direction and meaning, how the expectation failures split by check, and what those failures
 * mean for the providers this run used. Pure: read from the loaded run and its triage.
 */

export interface HeadlineRow {
  name: string;
  value: MetricValue;
  direction: Direction;
  meaning: string;
}

/** The headline metrics the run measured (an item behind them), and those it has no item for. */
export function headlineMetrics(metrics: Record<string, MetricValue>): { rows: HeadlineRow[]; unmeasured: string[] } {
  const names = HEADLINE_METRICS.filter((n) => metrics[n] !== undefined);
  const measured = names.filter((n) => metrics[n]!.n_items > 0);
  return {
    rows: measured.map((name) => ({ ...metricInfo(name), value: metrics[name]! })),
    unmeasured: names.filter((n) => !measured.includes(n)),
  };
}

export interface CheckFailures {
  /** The check, without its subject (`mandatory_element`, not `mandatory_element:backup`). */
  check: string;
  items: number;
  trials: number;
}

/** Failed expectation checks by kind, most items first: what the failures are made of. */
export function failuresByCheck(details: readonly ItemDetail[]): CheckFailures[] {
  const byCheck = new Map<string, { items: Set<string>; trials: number }>();
  for (const d of details)
    for (const [name, trials] of Object.entries(d.row.failed_checks)) {
      const check = name.split(":")[0]!;
      const entry = byCheck.get(check) ?? { items: new Set<string>(), trials: 0 };
      entry.items.add(d.row.key);
      entry.trials += trials;
      byCheck.set(check, entry);
    }
  return [...byCheck].map(([check, e]) => ({ check, items: e.items.size, trials: e.trials })).sort((a, b) => b.items - a.items || (a.check < b.check ? -1 : 1));
}

const range = (values: number[]) => {
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  return lo === hi ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
};

/** The sim's planted noise in a sentence, from the profile the run recorded. */
function simNoise(p: SimProfile, roles: { planner: boolean; critic: boolean }): string[] {
  const out: string[] = [];
  if (roles.planner)
    out.push(
      `its planner plants defects in fresh plans (${Object.entries(p.planner.defect_rate)
        .map(([d, r]) => `${d} ${fmt(r)}`)
        .join(", ")}), which a revision fixes with probability ${fmt(p.planner.fix_rate)}, so a goal whose defects outlast its rounds escalates`,
    );
  if (roles.critic)
    out.push(
      `its critic misses a seeded defect at ${range(Object.values(p.critic.miss_rate))} by family and files ${fmt(p.critic.migration_rate)} of the defects it reports under another family, so fixtures fail their seeded-defect and verdict checks`,
    );
  return out;
}

/**
 * What the expectation failures of this run mean, from its recorded roles (never guessed): the
 * simulator fails some by design, an imported run's are the other engine's, a model's are findings.
 */
export function expectationMeaning(run: LoadedRun): string {
  const m = run.manifest;
  if (m.config.suites[0] === IMPORTED_SUITE)
    return "This run was recorded by another engine and imported: its expectations are converted from that engine's own assertions (docs/guides/importing.md), so each failure is that engine deciding otherwise than its test plan asked. Open a failing trial's transcript to see the round it went wrong in.";
  const client = m.config.client;
  const simulated = { planner: isSimulated(client.planner), critic: isSimulated(client.critic) };
  const models = `planner ${modelLabel(m.roles.planner)}, critic ${modelLabel(m.roles.critic)}`;
  if (!simulated.planner && !simulated.critic)
    return `Both roles are models (${models}): each failure is an item this engine decided otherwise than its expectation says, a finding about the model or its prompts to read in the failing trial's transcript.`;
  const parsed = SimProfileSchema.safeParse(client.sim?.profile);
  const who =
    simulated.planner && simulated.critic
      ? "Both roles are the simulator"
      : simulated.planner
        ? `The planner is the simulator (the critic is ${modelLabel(m.roles.critic)})`
        : `The critic is the simulator (the planner is ${modelLabel(m.roles.planner)})`;
  if (!parsed.success) return `${who}, whose profile this run did not record: its failures are the simulator's, not a model's.`;
  const p = parsed.data;
  const noise = simNoise(p, simulated);
  const prose =
    simulated.planner && simulated.critic
      ? "; and neither role reads a goal's prose, so a goal that must escalate for a risk only its description states is approved"
      : "";
  return `${who}, sim profile ${p.name}${p.description ? ` (${p.description.trim().replace(/\.$/, "")})` : ""}. By design ${noise.join("; ")}${prose}. These failures measure the profile, not a model: src/sim/README.md gives the rates to expect.`;
}
