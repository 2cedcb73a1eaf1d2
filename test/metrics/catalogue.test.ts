/**
 * The metric catalogue (src/metrics/catalogue.ts) against what runs emit: every metric a run's
 * summary holds has a definition, in the section it sits in, and every definition is a metric some
 * run emits (a default sweep, a security and injection sweep, an external engine's trial). A
 * definition's own parts agree with one another and with METHODOLOGY.md, and on real runs its
 * per-item values make its summary value.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotOfLoaded } from "../../harness/baseline/io.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";
import { loadConfigFile } from "../../harness/config.ts";
import { engineTrialOutcome } from "../../harness/engine/trial.ts";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { loadRun } from "../../harness/run/load.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { HEADLINE_METRICS, METRIC_DEFS, metricDef, metricInfo, type MetricDef } from "../../src/metrics/catalogue.ts";
import { summarize, type Summary } from "../../src/metrics/summary.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";
import { makeGoal, makePlan, mutate } from "../helpers/plans.ts";
import { call } from "./builders.ts";

const CORPUS = join(PACKAGE_ROOT, "corpus");
type Section = "metrics" | "operational";

let root: string;
/** The summaries and snapshots of the fixture runs, by name. */
const runs = new Map<string, { summary: Summary; snapshot: Snapshot }>();

async function sweep(name: string, options: Record<string, unknown>): Promise<void> {
  const out = join(root, name);
  const host = testHost(["run", "--out", out]);
  const code = await runSweep(cli({ ...options, out }), loadConfigFile(join(PACKAGE_ROOT, "fieldtest.config.yaml")), realEngine({}, CORPUS), host);
  expect(code, host.stderr.text).toBe(0);
  const run = loadRun(out, CORPUS);
  runs.set(name, { summary: run.summary, snapshot: snapshotOfLoaded(run, name) });
}

/** One trial of an external engine that approved a plan fieldtest's gates block, its critic call failed: the shape `run --engine` records. */
function engineShapedSummary(): Summary {
  const outcome = engineTrialOutcome({
    goal: makeGoal(),
    calls: [
      { ...call({ role: "planner", outcome: "ok" }), request_sha256: "p" },
      { ...call({ role: "critic", outcome: "error" }), request_sha256: "c", error_class: "server_error" },
    ],
    refusedRequests: 0,
    ending: { kind: "exited", code: 0, signal: null, ok: true },
    stderrTail: null,
    result: {
      status: "approved",
      reasons: [],
      error: null,
      rounds: [{ plan: makePlan([mutate("change", { risk: "high" })]), translatedTasks: [], engineFindings: [], critic: null }],
    },
  });
  const trial = { ...outcome, schema_version: 1 as const, suite: "corpus" as const, item_id: "g", trial: 0, item_hash: "h" };
  const timed = { ...trial, cost_usd: 0, latency_ms: 1, started_at: "", finished_at: "" };
  return summarize({ trials: [timed], fixtures: [], goals: [] }, { seed: 0, bootstrapReps: 20 });
}

beforeAll(async () => {
  root = tempDir("ft-catalogue-");
  await sweep("default", { trials: "2", seed: "3" });
  await sweep("security-injection", { suite: "security,injection", trials: "2", seed: "3" });
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

const emitted = (s: Summary): [string, Section][] =>
  (["metrics", "operational"] as const).flatMap((section) => Object.keys(s[section]).map((k): [string, Section] => [k, section]));
const allEmitted = () => [...[...runs.values()].flatMap((r) => emitted(r.summary)), ...emitted(engineShapedSummary())];

describe("the catalogue against the metrics runs emit", () => {
  it("defines every metric a run emits, in the section the run puts it", () => {
    const undefinedOnes = allEmitted().filter(([name, section]) => metricDef(name)?.section !== section);
    expect(undefinedOnes).toEqual([]);
  });

  it("has no definition that no run emits (a family: at least one part)", () => {
    const names = new Set(allEmitted().map(([name]) => name));
    const silent = METRIC_DEFS.filter((d) => ![...names].some((n) => metricDef(n) === d));
    expect(silent.map((d) => d.id)).toEqual([]);
  });

  it("gives each emitted metric the interval its definition names, or the exact bound at an edge", () => {
    const edge = new Set(["clopper_pearson", "poisson_exact"]);
    for (const { summary } of runs.values()) {
      for (const [name, m] of [...Object.entries(summary.metrics), ...Object.entries(summary.operational)]) {
        const def = metricDef(name)!;
        if (!edge.has(m.interval)) expect(m.interval, name).toBe(def.interval);
      }
    }
  });

  it("on real runs, averages each item's value (or sums its counts) to the summary's value", () => {
    const checked = new Set<string>();
    for (const { summary, snapshot } of runs.values()) {
      for (const def of METRIC_DEFS) {
        const m = summary.metrics[def.id];
        if (def.perItem === null || m === undefined) continue;
        if (def.perItem.kind === "counts") {
          const sum = (part: "num" | "den") => snapshot.items.reduce((s, i) => s + (i.ratios[def.id]?.[part] ?? 0), 0);
          expect([sum("num"), sum("den")], def.id).toEqual([m.numerator ?? 0, m.denominator ?? 0]);
        } else {
          const values = snapshot.items.map((i) => i.values[def.id]).filter((v): v is number => v !== null && v !== undefined);
          expect(values.length, def.id).toBe(m.n_items);
          if (values.length) expect(values.reduce((s, v) => s + v, 0) / values.length, def.id).toBeCloseTo(m.value!, 12);
        }
        if (snapshot.items.some((i) => def.id in i.values || def.id in i.ratios)) checked.add(def.id);
      }
    }
    // Every per-item rule met an item of its base in these runs.
    expect(METRIC_DEFS.filter((d) => d.perItem !== null && !checked.has(d.id)).map((d) => d.id)).toEqual([]);
  });
});

describe("each definition", () => {
  const ids = METRIC_DEFS.map((d) => d.id);

  it("has an id of its own", () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(METRIC_DEFS.map((d) => [d.id, d] as const))("%s: is computed from something, and paired by what it has per item", (_, d: MetricDef) => {
    expect(d.computedBy !== undefined || d.perItem !== null || d.statistic !== undefined).toBe(true);
    const byValue = ["paired_t", "mantel_haenszel"];
    const pairings = d.statistic ? ["cluster_bootstrap"] : d.perItem?.kind === "counts" ? ["delta_method"] : d.perItem?.kind === "value" ? byValue : [null];
    expect(pairings).toContain(d.pairing);
    // Mantel–Haenszel tests a per-trial rate's event counts; a ratio's units are not items.
    if (d.pairing === "mantel_haenszel") expect(d.kind).toBe("rate_per_trial");
    if (d.perItem !== null) expect(d.kind === "ratio").toBe(d.perItem.kind === "counts");
  });

  it("names a METHODOLOGY.md section that defines it (by its name, or its family's)", () => {
    const text = readFileSync(join(PACKAGE_ROOT, "METHODOLOGY.md"), "utf8");
    const lines = text.split("\n");
    const section = (n: string) => {
      const start = lines.findIndex((l) => l.startsWith("#") && new RegExp(`^#+ ${n.replaceAll(".", "\\.")}[ .]`).test(l));
      if (start < 0) return null;
      const level = lines[start]!.match(/^#+/)![0].length;
      const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.match(/^#+/)![0].length <= level);
      return lines.slice(start, end < 0 ? undefined : end).join("\n");
    };
    const missing = METRIC_DEFS.filter((d) => {
      const s = section(d.methodology);
      const name = d.id.replace(/\.[^.]*\*$/, "");
      return s === null || !s.includes(name.split(".")[0]!);
    });
    expect(missing.map((d) => `${d.id} §${d.methodology}`)).toEqual([]);
  });

  it("ranks the headline metrics 1, 2, 3, ... once each, and shows a family's part with the part named", () => {
    const ranks = METRIC_DEFS.flatMap((d) => (d.headline === null ? [] : [d.headline])).sort((a, b) => a - b);
    expect(ranks).toEqual(ranks.map((_, i) => i + 1));
    expect(HEADLINE_METRICS.slice(0, 3)).toEqual(["label_flip_rate", "engine_flip_rate", "underclaim_approvals"]);
    const cwe = metricInfo("security_flawed_blocked.CWE-89");
    expect(cwe.meaning).toBe("Share of trials on flawed security variants of this CWE that the engine blocks. (CWE-89)");
    expect(metricInfo("no_such_metric")).toMatchObject({ direction: "neutral", meaning: expect.stringContaining("not described") });
  });
});
