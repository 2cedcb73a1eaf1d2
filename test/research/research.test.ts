import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fieldtest } from "../helpers/cli.ts";
import { importPlannerCritic, type ImportResult } from "../../harness/import/planner-critic/run.ts";
import { chartId } from "../../harness/research/html.ts";
import { loadResearchRuns, RESEARCH_FILES, writeResearch } from "../../harness/research/load.ts";
import { research, type Research } from "../../harness/research/model.ts";
import { sha256 } from "../../src/canonical.ts";
import { SPEND_SCHEMA_VERSION, type SpendLine } from "../../src/formats/records.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { ARTIFACTS } from "../helpers/artifacts.ts";
import { browserSession } from "../helpers/browser.ts";
import { CRITIC_PROMPTS, removeTempDirs, SAMPLE, tempDir, writeSweepReport, writeTreeGoals, writeTreeRun, type TreeRun } from "../import/fixtures.ts";

/** One Chromium for the file's pages, each in a context of its own. */
const browser = browserSession();
afterAll(() => browser.close());

const OPTIONS = { baseline: null, referenceRuns: 3, headline: ["critic_miss_rate", "underclaim_approvals"], window: 5, reps: 200, seed: 0 };

let root: string;
const out = (name: string) => join(root, name);

/** The sample imported (two run groups), and research over it through the CLI. */
let sample: ImportResult;
/** A generated tree: the adversarial critic prompt's full sweep, then the severity-rules prompt's runs. */
let tree: Research;
/** A hand-built history: four stable runs, then a critic that misses more. */
let drift: Research;

const FULL = "0.1.0/full-sweep";
const LATER = "0.1.0-08.20.2026/remain-scenario";

function writeTree(dir: string): void {
  const reports = join(dir, "reports");
  writeTreeGoals(join(dir, "goals"), [
    { id: "db-01", risk: "strict", approve: false },
    { id: "db-02", risk: "balanced", approve: true },
  ]);
  writeSweepReport(join(reports, FULL), "deterministic-first", 1);
  const runs: TreeRun[] = [
    {
      dir: `${FULL}/core-api/db-01`,
      goalId: "db-01",
      dimension: "core-api",
      critic: "adversarial",
      at: "2026-08-19T10:00:00Z",
      status: "escalated",
      reason: "revision_cap_reached",
    },
    {
      dir: `${FULL}/core-api/db-02`,
      goalId: "db-02",
      dimension: "core-api",
      critic: "adversarial",
      at: "2026-08-19T10:01:00Z",
      status: "approved",
      reason: "approved",
    },
    {
      dir: `${FULL}/critique-modes/db-01/llm-every-revision`,
      goalId: "db-01",
      dimension: "critique-llm-every-revision",
      critic: "adversarial",
      at: "2026-08-19T10:02:00Z",
      status: "escalated",
      reason: "converged_stalled",
    },
    ...["db-01", "db-02"].flatMap((scenario, s) =>
      ["db-01", "db-02"].map((g, k): TreeRun => ({
        dir: `${LATER}/${scenario}/core-api/${g}`,
        goalId: g,
        dimension: "core-api",
        critic: "severity",
        at: `2026-08-20T10:0${2 * s + k}:00Z`,
        status: "approved",
        reason: "approved",
      })),
    ),
  ];
  for (const r of runs) writeTreeRun(reports, r);
}

const SEEDED = Array.from({ length: 24 }, (_, i) => `seeded-${i}`);
const CLEAN = Array.from({ length: 4 }, (_, i) => `clean-${i}`);
function specs(misses: number): ItemSpec[] {
  return [
    ...SEEDED.map((id, i) => ({
      suite: "boundary" as const,
      id,
      verdicts: Array.from({ length: 5 }, (_, t) => (t < (i % 2 ? misses : i % 4 === 0 ? 1 : 0) ? "pass" : "block")),
    })),
    ...CLEAN.map((id) => ({ suite: "boundary" as const, id, verdicts: Array<string>(5).fill("pass") })),
  ];
}

beforeAll(() => {
  root = tempDir("research");
  sample = importPlannerCritic({
    reportsDir: join(SAMPLE, "reports"),
    goalsDir: join(SAMPLE, "goals"),
    out: out("sample"),
    force: false,
    runId: "sample",
    command: [],
    now: () => new Date("2026-12-03T12:00:00Z"),
  });
  writeTree(out("tree"));
  importPlannerCritic({
    reportsDir: join(out("tree"), "reports"),
    goalsDir: join(out("tree"), "goals"),
    out: out("tree-runs"),
    force: false,
    runId: "tree",
    command: [],
    now: () => new Date("2026-12-03T12:00:00Z"),
  });
  tree = research(loadResearchRuns([out("tree-runs")], "corpus"), { ...OPTIONS, swap: { a: `${LATER}/core-api`, b: `${FULL}/core-api` } });
  const hashes = writeCorpus(out("corpus"), [...SEEDED.map((id) => makeFixture(id, true)), ...CLEAN.map((id) => makeFixture(id, false))], []);
  // Four stable nights, then a critic that misses every trial on half the seeded fixtures: a shift
  // the drift charts see through their false-alarm control over every metric (0.005 per run per family).
  const history = [1, 1, 1, 1, 5, 5].map((misses, i) => {
    const dir = out(`history/night-${i + 1}`);
    writeRunDir(dir, specs(misses), hashes, (m) => {
      m.run_id = `night-${i + 1}`;
      m.started_at = `2026-12-0${i + 1}T00:00:00.000Z`;
    });
    return dir;
  });
  drift = research(loadResearchRuns(history, out("corpus")), { ...OPTIONS, swap: { a: "night-6", b: "night-1" } });
});

afterAll(removeTempDirs);

describe("fieldtest research", () => {
  it("over the imported sample: two runs, oldest first, every call of the import in them", async () => {
    const r = await fieldtest("research", out("sample"), "--out", out("sample-research"), "--reps", "200");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^2 runs, 1 critic prompt variant\(s\)/);
    // Imported runs: the engine's group figures from the trial records, latency by status.
    const figures = r.stdout.split("\n").filter((l) => / latency p50 approved /.test(l));
    expect(figures.map((l) => l.trim().split(":")[0])).toEqual(["critic-fix/core-api", "remain-scenario/core-api"]);
    expect(figures[0]).toMatch(
      /^ {2}critic-fix\/core-api: latency p50 approved \S+ ms, escalated \S+ ms; blockers per goal gate \S+, critic \S+; escalations per 100 goals \S+; critic calls per goal \S+$/,
    );
    const json = JSON.parse(readFileSync(join(out("sample-research"), RESEARCH_FILES.json), "utf8")) as Research;
    expect(json.runs.map((x) => x.label)).toEqual(["critic-fix/core-api", "remain-scenario/core-api"]);
    expect(json.runs.reduce((n, x) => n + x.calls, 0)).toBe(sample.calls.logged);
    expect(json.swap).toMatchObject({ a: "remain-scenario/core-api", b: "critic-fix/core-api" });
    expect(readFileSync(join(out("sample-research"), RESEARCH_FILES.md), "utf8")).toContain("## Critic prompt variants");
    // The same figures as each run's own summary (its operational metrics over the imported goals).
    const loaded = loadResearchRuns([out("sample")], "corpus");
    json.runs.forEach((_, i) => {
      const summary = loaded[i]!.run.summary;
      expect(json.operations.engine.escalations_per_100_goals[i]!.value).toBe(summary.operational.escalations_per_100_goals!.value);
      expect(json.operations.engine.latency_ms_p50.approved[i]).toBe(summary.operational["latency_ms_p50.approved"]!.value);
      expect(json.operations.engine.critic_calls_per_goal[i]!.value).toBe(summary.operational["llm_calls_per_decided_goal.critic"]!.value);
    });
  });

  it("tells the prompt story from the logs: advisory blockers per audit and downgrades by family, before and after the severity rules", () => {
    const before = tree.prompts.find((p) => p.critic_prompt === sha256(CRITIC_PROMPTS.adversarial))!;
    const after = tree.prompts.find((p) => p.critic_prompt === sha256(CRITIC_PROMPTS.severity))!;
    expect(before.runs.sort()).toEqual([`${FULL}/core-api`, `${FULL}/critique-modes/llm-every-revision`]);
    expect(after.runs).toEqual([`${LATER}/core-api`]);
    // Each adversarial audit called risk and missing_steps blockers; code lowered every one of them.
    expect(before).toMatchObject({ audits: 3, raw_blockers: 6, advisory_raw_blockers: 6, advisory_blockers_per_audit: 2 });
    expect(before.downgrade_rate).toMatchObject({
      downgrade_rate: 1,
      "downgrade_rate.risk": 1,
      "downgrade_rate.missing_steps": 1,
      "downgrade_rate.weak_rollback": null,
    });
    expect(after).toMatchObject({ audits: 4, raw_blockers: 0, advisory_blockers_per_audit: 0 });
    expect(after.downgrade_rate.downgrade_rate).toBeNull();
    const i = tree.runs.findIndex((x) => x.label === `${FULL}/core-api`);
    expect(tree.critic.downgrade["downgrade_rate.risk"]![i]!.value).toBe(1);
    expect(tree.critic.advisory_blockers_per_audit[i]!.value).toBe(2);
    // None in the later run's 4 audits: the exact Poisson bound over those audits, never [0, 0].
    const later = tree.runs.findIndex((x) => x.label === `${LATER}/core-api`);
    expect(tree.critic.advisory_blockers_per_audit[later]).toMatchObject({ value: 0, ci_low: 0, ci_high: expect.closeTo(-Math.log(0.05) / 4, 12) });
  });

  it("names the critic's system-prompt hash as the cause of the flip in the model-swap view", () => {
    const c = tree.swap!.comparison;
    // The runs also differ in their loop settings and trials per run, named but not causes of a critic-only item.
    expect(c.differences.map((d) => d.part)).toContain("critic.system_prompt_sha256");
    expect(c.suites[0]!.changed_items).toEqual([
      expect.objectContaining({ item: "imported/db-01", b: { escalated: 1 }, a: { approved: 2 }, causes: ["critic.system_prompt_sha256"] }),
    ]);
    expect(c.suites[0]!.mcnemar).toMatchObject({ b: 0, c: 1 });
  });

  it("takes each run's cost from its spend journal, as the run report does: a send still out makes it a lower bound, no journal makes it unknown", () => {
    const hashes = writeCorpus(out("cost-corpus"), [makeFixture("seeded-0", true)], []);
    const head = { schema_version: SPEND_SCHEMA_VERSION, session: "1-a", at: "2026-12-03T00:00:00.000Z" } as const;
    const sent = (id: number): SpendLine => ({
      ...head,
      id,
      event: "sent",
      trial_key: null,
      role: "critic",
      provider: "openai",
      model: "gpt-4o-mini",
      round: 0,
      attempt: 0,
      index: 0,
    });
    const lines: SpendLine[] = [
      sent(0),
      {
        ...head,
        id: 0,
        event: "returned",
        role: "critic",
        outcome: "ok",
        error_class: null,
        http_status: 200,
        usage: { input_tokens: 10, output_tokens: 5 },
        cost_usd: 0.25,
      },
      sent(1),
    ];
    const runs = ["journaled", "unjournaled"].map((name, i) => {
      const dir = out(`cost/${name}`);
      writeRunDir(dir, [{ suite: "boundary", id: "seeded-0", verdicts: ["block", "block", "block"] }], hashes, (m) => {
        m.run_id = name;
        m.started_at = `2026-12-0${i + 1}T00:00:00.000Z`;
      });
      return dir;
    });
    writeFileSync(join(runs[0]!, "spend.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const r = research(loadResearchRuns(runs, out("cost-corpus")), { ...OPTIONS, swap: null });
    expect(r.operations.cost_usd).toEqual([0.25, null]);
    expect(r.operations.cost_is_lower_bound).toEqual([true, false]);
  });

  it("charts a critic that got worse: the drift charts alarm on the late runs only", () => {
    const m = drift.metrics.find((x) => x.metric === "underclaim_approvals")!;
    expect(m.points.map((p) => Number(p.value!.toFixed(10)))).toEqual([0.15, 0.15, 0.15, 0.15, 0.55, 0.55]);
    expect(m.points.slice(0, 4).every((p) => p.alerts.length === 0)).toBe(true);
    expect(m.points.slice(4).every((p) => p.alerts.length > 0)).toBe(true);
    // The fixed reference: the first three runs, at 0.15, not judged themselves.
    expect(m.reference).toMatchObject({ source: "first_runs", runs: 3, mu0: expect.closeTo(0.15, 12) });
    expect(m.points.map((p) => p.reference_run)).toEqual([true, true, true, false, false, false]);
    expect(drift.alarms.filter((a) => a.metric === "underclaim_approvals")).toEqual(
      [4, 5].map((run) => expect.objectContaining({ family: "headline", run, value: expect.closeTo(0.55, 10), reference_mean: expect.closeTo(0.15, 10) })),
    );
  });

  it("says beside the alarm count how large a shift of each headline rate the charts catch, in every output, and that a baseline narrows it", async () => {
    const d = drift.detectable!;
    const rated = drift.metrics.filter((m) => m.detectable !== null);
    expect(rated.map((m) => m.metric)).toEqual(d.lines.map((l) => l.metric));
    expect(rated.every((m) => m.family === "headline")).toBe(true);
    expect(d.lines[0]!.text).toMatch(/^0\.\d{3}: a rise of 0\.\d{3} is caught by 3 runs in half the cases, 0\.\d{3} in 95% \(by 1 run: 0\.\d{3}, 0\.\d{3}\)$/);
    expect(d.hint).toContain("a baseline (--baseline) or more reference runs (--reference-runs) narrows these");
    const files = writeResearch(out("detectable-research"), drift);
    const read = (name: string) =>
      readFileSync(
        files.find((f) => f.endsWith(name))!,
        "utf8",
      );
    const md = read(RESEARCH_FILES.md);
    // In the Markdown, under the alarms and escaped as the rest of the file is; in the HTML, on the first screen after the alarm count.
    for (const l of d.lines) expect(md).toContain(`- \`${l.metric}\` ${l.text.replace(/[()]/g, "\\$&")}`);
    expect(md.indexOf(d.lines[0]!.metric, md.indexOf("## Drift alarms"))).toBeLessThan(md.indexOf("Reference: "));
    const html = read(RESEARCH_FILES.html);
    expect(html.indexOf('id="detectable"')).toBeGreaterThan(html.indexOf('id="alarm-count"'));
    expect(html.indexOf('id="detectable"')).toBeLessThan(html.indexOf('id="view-metrics"'));
    expect((JSON.parse(read(RESEARCH_FILES.json)) as Research).detectable).toEqual(d);
    const cli = await fieldtest("research", out("history"), "--out", out("detectable-cli"), "--reps", "200", "--corpus", out("corpus"));
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/\n {2}critic_miss_rate 0\.\d{3}: a rise of 0\.\d{3} is caught by 3 runs in half the cases/);
    expect(cli.stdout).toContain("Judged against the first 3 runs alone");
  });
});

/** Marks each research chart must draw, read off the model the page was rendered from. */
function expectedMarks(r: Research): Record<string, number> {
  const known = (points: { value: number | null }[]) => points.filter((p) => p.value !== null).length;
  const nonzero = (rows: Record<string, number[]>) => Object.values(rows).reduce((n, v) => n + v.filter((x) => x > 0).length, 0);
  const out: Record<string, number> = {
    "chart-downgrade": Object.values(r.critic.downgrade).reduce((n, v) => n + known(v), 0),
    "chart-advisory": known(r.critic.advisory_blockers_per_audit),
    "chart-unsupported": known(r.critic.unsupported_evidence),
    "chart-evidence-runs": nonzero(r.critic.evidence_status),
    "chart-raw-blockers": nonzero(r.critic.raw_blockers),
    "chart-cost-runs": r.operations.cost_usd.filter((c) => c !== null).length,
    "chart-latency-runs": known(r.operations.latency_ms_p50.map((value) => ({ value }))) + known(r.operations.latency_ms_p95.map((value) => ({ value }))),
    "chart-calls-runs": known(r.operations.calls_per_trial.map((value) => ({ value }))),
  };
  for (const m of r.metrics) out[chartId(`metric-${m.metric}`)] = known(m.points);
  for (const m of r.metrics.filter((x) => x.family === "headline")) out[chartId(`small-${m.metric}`)] = known(m.points);
  r.confusion.forEach((c, i) => {
    if (c.defects > 0) out[`chart-confusion-${i + 1}`] = c.confusion.rows.length * c.confusion.columns.length;
  });
  for (const s of r.swap?.comparison.suites ?? []) {
    const pairs = Object.keys(s.transitions).map((t) => t.split(" → "));
    out[chartId(`transitions-${s.suite}`)] = new Set(pairs.map((p) => p[0])).size * new Set(pairs.map((p) => p[1])).size;
  }
  return out;
}

describe("research.html in headless Chromium", () => {
  it.each([
    [
      "the imported sample",
      () => join(out("sample-research"), RESEARCH_FILES.html),
      () => JSON.parse(readFileSync(join(out("sample-research"), RESEARCH_FILES.json), "utf8")) as Research,
      "research-sample",
    ],
    ["a drifting history", () => writeHtml("drift", drift), () => drift, "research"],
    ["the imported prompt history", () => writeHtml("tree", tree), () => tree, "research-prompts"],
  ])("renders %s: every chart with its marks, alarms ringed, views by hash, no console error, no request", async (_name, file, model, shot) => {
    const r = model();
    const p = await browser.openPage(file());
    try {
      const { page } = p;
      for (const [id, n] of Object.entries(expectedMarks(r))) {
        expect(await page.locator(`svg#${id}`).count(), id).toBe(1);
        expect(await page.locator(`svg#${id} .mark`).count(), id).toBe(n);
      }
      for (const m of r.metrics)
        expect(await page.locator(`svg#${chartId(`metric-${m.metric}`)} .alarm`).count(), m.metric).toBe(
          m.points.filter((x) => x.value !== null && x.alerts.length > 0).length,
        );
      expect(await page.locator(".view.active").getAttribute("id")).toBe("view-alarms");
      expect(await page.locator("#runs-table tbody tr").count()).toBe(r.runs.length);
      await page.click('nav.tabs a[href="#swap"]');
      // Views follow hashchange, which fires after the click returns.
      await page.waitForSelector("#view-swap.active");
      expect(await page.locator(".view.active").getAttribute("id")).toBe("view-swap");
      expect(await page.locator("#swap-differences li").count()).toBe(r.swap?.comparison.differences.length ?? 0);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.click('nav.tabs a[href="#metrics"]');
      await page.waitForSelector("#view-metrics.active");
      await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
      expect(p.errors).toEqual([]);
      expect(p.requests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

describe("research.html's first screen", () => {
  it("leads with the alarms, each one click from its chart, then small multiples of the headline family; every axis honest", async () => {
    const p = await browser.openPage(writeHtml("first-screen", drift));
    try {
      const { page } = p;
      expect(await page.locator(".view.active").getAttribute("id")).toBe("view-alarms");
      expect(await page.locator("nav.tabs a").first().textContent()).toBe(`Alarms (${drift.alarms.length})`);
      expect(drift.alarms.length).toBeGreaterThan(0);
      expect(await page.locator("#alarm-count").textContent()).toBe(
        `${drift.alarms.length} drift alarm(s), ${drift.alarms.filter((a) => a.family === "headline").length} on the headline family.`,
      );
      // Beside the count, what the charts could catch of each headline rate.
      expect(await page.locator("#detectable li").allTextContents()).toEqual(drift.detectable!.lines.map((l) => `${l.metric} ${l.text}`));
      expect(await page.locator("#detectable").isVisible()).toBe(true);
      // One row per alarm, headline first: metric, family, run, value, reference, size, charts.
      const rows = page.locator("#alarms-table tbody tr");
      expect(await rows.count()).toBe(drift.alarms.length);
      const first = drift.alarms[0]!;
      expect((await rows.first().locator("td").allTextContents()).slice(0, 3)).toEqual([
        first.metric,
        first.family,
        `R${first.run + 1} ${drift.runs[first.run]!.label}`,
      ]);
      const headline = drift.metrics.filter((m) => m.family === "headline");
      expect(await page.locator("#view-alarms figure.small svg").count()).toBe(headline.length);
      // The chart is one click away, scrolled into view.
      await rows.first().locator("a.to-chart").click();
      await page.waitForSelector("#view-metrics.active");
      const figure = page.locator(`#fig-${first.metric}`);
      expect(await figure.count()).toBe(1);
      expect(await figure.isVisible()).toBe(true);
      expect(
        await figure.evaluate((el) => {
          const b = el.getBoundingClientRect();
          return b.top < window.innerHeight && b.bottom > 0;
        }),
      ).toBe(true);
      // Every chart: distinct tick labels, rates within [0, 1], legends inside the chart.
      for (const view of ["alarms", "metrics", "critic", "operations"]) {
        await page.evaluate((v) => (location.hash = v), view);
        await page.waitForSelector(`#view-${view}.active`);
        const problems = await page.evaluate(() =>
          [...document.querySelectorAll(".view.active svg.chart")].flatMap((svg) => {
            const out: string[] = [];
            const ticks = [...svg.querySelectorAll("text.tick")].map((t) => t.textContent ?? "");
            if (new Set(ticks).size !== ticks.length) out.push(`${svg.id}: repeated tick labels ${ticks.join(" ")}`);
            const width = (svg as SVGSVGElement).viewBox.baseVal.width;
            for (const t of svg.querySelectorAll("text")) {
              const b = (t as SVGTextElement).getBBox();
              if (b.width > 0 && !t.getAttribute("transform") && b.x + b.width > width + 1) out.push(`${svg.id}: "${t.textContent}" cut at the right edge`);
            }
            return out;
          }),
        );
        expect(problems, view).toEqual([]);
      }
      const rateTicks = await page.evaluate(() =>
        [...document.querySelectorAll('svg[id^="chart-metric-"] text.tick, svg#chart-downgrade text.tick, svg#chart-unsupported text.tick')].map((t) =>
          Number(t.textContent),
        ),
      );
      expect(rateTicks.length).toBeGreaterThan(0);
      expect(rateTicks.every((v) => v >= 0 && v <= 1)).toBe(true);
      expect(p.errors).toEqual([]);
      expect(p.requests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

function writeHtml(name: string, r: Research): string {
  return writeResearch(out(`${name}-research`), r).find((f) => f.endsWith(RESEARCH_FILES.html))!;
}
