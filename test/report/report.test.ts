import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotOfRun, writeSnapshot } from "../../harness/baseline/io.ts";
import { decide } from "../../harness/report/decision.ts";
import { loadRun } from "../../harness/run/load.ts";
import { CHART_IDS, FOREST_CHART_ID, ITEMS_PER_PAGE } from "../../harness/report/html.ts";
import { writeReport } from "../../harness/report/write.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { makeCorpusGoal, makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { call } from "../metrics/builders.ts";
import { browserSession } from "../helpers/browser.ts";
import { ARTIFACTS } from "../helpers/artifacts.ts";

/** One Chromium for the file's pages, each in a context of its own. */
const browser = browserSession();
afterAll(() => browser.close());

const GOALS = Array.from({ length: 56 }, (_, i) => `goal-${String(i).padStart(2, "0")}`);
const ITEMS: ItemSpec[] = [
  { suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "pass", "block", "block"] },
  { suite: "boundary", id: "seeded-b", verdicts: ["pass", "pass", "pass", "pass", "unavailable"] },
  { suite: "boundary", id: "clean-a", verdicts: ["pass", "pass", "pass", "pass", "block"] },
  { suite: "corpus", id: "goal-a", verdicts: ["approved", "approved", "escalated", "approved", "error"] },
  ...GOALS.map((id) => ({ suite: "corpus" as const, id, verdicts: ["approved", "approved", "approved", "approved", "approved"] })),
];
const BASELINE_ITEMS = ITEMS.map((i) => (i.id === "seeded-a" ? { ...i, verdicts: ["block", "block", "block", "block", "block"] } : i));

/** One critic call with reported usage on every trial, so the token chart has something to draw. */
function withUsage(t: TrialRecord): void {
  t.calls = [call({ role: "critic", usage: { input_tokens: 100, output_tokens: 20 }, cost: 0 })];
}

let root: string;
let dir: string;
let paths: string[];
const corpus = () => join(root, "corpus");
const decision = () => ({ baseline: join(root, "base.json"), policy: join(root, "policy.yaml") });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-report-"));
  const hashes = writeCorpus(
    corpus(),
    [makeFixture("seeded-a", true), makeFixture("seeded-b", true), makeFixture("clean-a", false)],
    [makeCorpusGoal("goal-a"), ...GOALS.map(makeCorpusGoal)],
  );
  writeRunDir(join(root, "base"), BASELINE_ITEMS, hashes, undefined, withUsage);
  writeSnapshot(join(root, "base.json"), snapshotOfRun(join(root, "base"), corpus(), { name: "base" }));
  writeFileSync(
    join(root, "policy.yaml"),
    "version: 1\nmin_trials_per_item: 3\nmax_error_rate: 0.5\nnon_inferiority:\n  - { metric: underclaim_approvals, margin: 0.1 }\n  - { metric: label_flip_rate, margin: 0.1 }\n",
  );
  dir = join(root, "run");
  writeRunDir(dir, ITEMS, hashes, undefined, withUsage);
  paths = writeReport(dir, corpus(), decision()).paths;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fieldtest report", () => {
  it("writes summary.json with the documented metric keys", () => {
    expect(paths.map((p) => p.slice(dir.length + 1))).toEqual(["summary.json", "trials.csv", "report.md", "report.html"]);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.schema_version).toBe(2);
    for (const name of ["label_flip_rate", "engine_flip_rate", "underclaim_approvals", "overclaim_rate", "critic_unavailable_rate"]) {
      expect(Object.keys(summary.metrics[name]).sort()).toEqual(expect.arrayContaining(["ci_high", "ci_low", "n_items", "n_trials", "value"]));
    }
    // Known answers: Q of 4/1 is 0.4, of 4/0 (the unavailable trial is not counted) 0, of 4/1 again 0.4.
    expect(summary.metrics.label_flip_rate.value).toBeCloseTo(0.8 / 3, 10);
    // Under-claim: seeded-a 1 pass of 5 counted, seeded-b 4 of 4 → (0.2 + 1) / 2.
    expect(summary.metrics.underclaim_approvals.value).toBeCloseTo(0.6, 10);
    expect(summary.metrics.critic_unavailable_rate.value).toBeCloseTo(0.2 / 3, 10);
    expect(summary.run.run_id).toBe("run-1");
    expect(summary.items).toHaveLength(ITEMS.length);
  });

  it("writes one trials.csv row per trial, unknown numbers left empty", () => {
    const text = readFileSync(join(dir, "trials.csv"), "utf8");
    expect(text).not.toContain('"'); // nothing here needs quoting, so a plain split reads it
    const [header, ...lines] = text
      .trimEnd()
      .split("\n")
      .map((l) => l.split(","));
    const rows = lines.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i] ?? ""])));
    expect(rows).toHaveLength(ITEMS.length * 5);
    const row = rows.find((r) => r.item_id === "seeded-b" && r.trial === "4")!;
    expect(row.verdict_label).toBe("unavailable");
    expect(rows.find((r) => r.item_id === "goal-a" && r.trial === "4")!.status).toBe("error");
  });

  it("writes report.md with directions, the failing items with their expected verdict and failed checks, and the unstable items", () => {
    const md = readFileSync(join(dir, "report.md"), "utf8");
    expect(md).toContain("| `label_flip_rate` | 0.267 [");
    expect(md).toContain("↓ lower is better");
    expect(md).toContain("| boundary/seeded-b | escalate | pass 4 · unavailable 1 | verdict ×4");
    expect(md).toContain("boundary/seeded-a");
  });

  it("report.html shows no raw JSON in the items table and labels a simulated run with its profile", () => {
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).not.toMatch(/https?:\/\//);
    const table = html.slice(html.indexOf('<table id="items-table">'), html.indexOf("</table>", html.indexOf('<table id="items-table">')));
    expect(table).not.toMatch(/[{}]/);
    expect(html).toContain('id="sim-label"');
    expect(html).toContain("SIMULATED · sim profile default");
  });
});

describe("report.html in headless Chromium", () => {
  it("draws every chart with its marks, routes views by hash, sorts, filters and pages the items, renders one item", async () => {
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    const p = await browser.openPage(join(dir, "report.html"));
    try {
      const { page } = p;
      const marks = (id: string) => page.locator(`svg#${id} .mark`).count();
      expect(await marks("chart-flip")).toBe(2); // seeded-a and clean-a flipped, seeded-b did not
      const conf = summary.family_confusion;
      expect(await marks("chart-confusion")).toBe(conf.rows.length * conf.columns.length);
      expect(await marks("chart-cost")).toBe(2);
      expect(await marks("chart-tokens")).toBe(2); // critic input and output; the planner reported none
      expect(await marks("chart-evidence")).toBe(0); // the hand-built audits carry no findings
      const latencyTitles = await page
        .locator("svg#chart-latency .mark")
        .evaluateAll((els) => els.map((e) => e.parentElement!.querySelector("title")!.textContent!));
      expect(latencyTitles.reduce((n, t) => n + Number(/: (\d+) in/.exec(t)![1]), 0)).toBe(ITEMS.length * 5);
      for (const id of CHART_IDS) expect(await page.locator(`svg#${id}`).count(), id).toBe(1);
      const decided = decide(loadRun(dir, corpus()), decision());
      const forest = decided.forest;
      expect(await marks(FOREST_CHART_ID)).toBe(forest.filter((r) => r.delta !== null).length);
      expect(await page.locator(`svg#${FOREST_CHART_ID} .ci`).count()).toBe(forest.filter((r) => r.ci_low !== null && r.ci_high !== null).length);
      // Every row has its interval, or says at its right why it has none.
      const rows = await page
        .locator(`svg#${FOREST_CHART_ID} g`)
        .evaluateAll((gs) => gs.map((g) => ({ ci: g.querySelector(".ci") !== null, note: g.querySelector(".no-interval")?.textContent ?? null })));
      expect(rows).toHaveLength(forest.length);
      expect(rows.filter((r) => r.ci === (r.note !== null))).toEqual([]);
      expect(rows.filter((r) => r.note !== null).length).toBeGreaterThan(0);
      expect(await page.locator(`svg#${FOREST_CHART_ID} .margin`).count()).toBe(2);

      // One view at a time, chosen by the hash.
      expect(await page.locator(".view.active").count()).toBe(1);
      expect(await page.locator("#view-decision.active #verdict").getAttribute("data-decision")).toBe(decided.result.decision);
      await page.click('nav.tabs a[href="#items"]');
      // Views follow hashchange, which fires after the click returns.
      await page.waitForSelector("#view-items.active");
      expect(await page.locator(".view.active").getAttribute("id")).toBe("view-items");
      const visible = () => page.locator("#items-table tbody tr:visible");
      expect(await visible().count()).toBe(ITEMS_PER_PAGE);
      await page.click("#page-next");
      expect(await visible().count()).toBe(ITEMS.length - ITEMS_PER_PAGE);
      await page.fill("#item-filter", "seeded");
      expect(await visible().count()).toBe(2);
      await page.fill("#item-filter", "");
      await page.selectOption("#exp-filter", "fail");
      const failed = summary.expectations.goals.n_items_failed + summary.expectations.fixtures.n_items_failed;
      expect(await visible().count()).toBe(failed);
      await page.selectOption("#exp-filter", "");
      await page.click('#items-table th:has-text("Q")');
      await page.click('#items-table th:has-text("Q")');
      expect(await visible().first().getAttribute("data-key")).toMatch(/^(boundary\/seeded-a|boundary\/clean-a|corpus\/goal-a)$/);

      // The item view renders one item, its trials side by side, blockers with the round they came from.
      await page.click('#items-table a[href="#item/boundary%2Fseeded-a"]');
      await page.waitForSelector('#item-view h2[data-item="boundary/seeded-a"]');
      expect(await page.locator("#item-view h2").getAttribute("data-item")).toBe("boundary/seeded-a");
      expect(await page.locator("#item-view .trial").count()).toBe(5);
      expect(await page.locator("#item-view .trial").first().textContent()).toContain("blocking since round 0");
      expect(await page.locator("[data-item]").count()).toBe(1);

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.evaluate(() => (location.hash = "#decision"));
      await page.waitForSelector("#view-decision.active");
      await page.screenshot({ path: join(ARTIFACTS, "report.png"), fullPage: true });
      expect(p.errors).toEqual([]);
      expect(p.requests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
