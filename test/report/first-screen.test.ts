import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importPlannerCritic } from "../../harness/import/planner-critic/run.ts";
import { HEADLINE_METRICS, metricInfo } from "../../src/metrics/catalogue.ts";
import { directionMark } from "../../harness/report/format.ts";
import { writeReport } from "../../harness/report/write.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { ARTIFACTS } from "../helpers/artifacts.ts";
import { browserSession } from "../helpers/browser.ts";
import { fieldtest } from "../helpers/cli.ts";
import { SAMPLE } from "../import/fixtures.ts";

/** One Chromium for the file's pages, each in a context of its own. */
const browser = browserSession();
afterAll(() => browser.close());

/**
 * The first screen of report.html: without a baseline, the headline metrics with their direction
 * and meaning and what the expectation failures mean for the run's providers (read from its
 * roles); and a run with no trial left, which warns and never shows a green line.
 */

const ONLY = "batch-04-reprocess-with-skip-checks,bkp-02-postgres-pitr,missing-step-checkout-flag-absent,clean-soft-hard-erp-soft,latency-vs-unsafe-*";

let root: string;
const at = (name: string) => join(root, name);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-first-screen-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("report.html's first screen", () => {
  it("without a baseline shows the headline metrics with direction and meaning, and says what the sim's failures mean", async () => {
    const dir = at("plain");
    expect((await fieldtest("run", "--only", ONLY, "--trials", "3", "--out", dir)).code).toBeLessThan(2);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    const measured = HEADLINE_METRICS.filter((m) => (summary.metrics[m]?.n_items ?? 0) > 0);
    await browser.inPage(join(dir, "report.html"), async (p) => {
      const { page } = p;
      expect(await page.locator("#view-decision.active #verdict").getAttribute("data-decision")).toBe("none");
      const rows = await page
        .locator("#headline tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute("data-metric"),
            (tr as HTMLTableRowElement).cells[2]!.textContent,
            (tr as HTMLTableRowElement).cells[3]!.textContent,
          ]),
        );
      expect(rows).toEqual(measured.map((m) => [m, directionMark(metricInfo(m).direction), metricInfo(m).meaning]));
      // On the first screen: the headline table starts, and the failures are explained, above the fold.
      expect((await page.locator("#headline tbody tr").first().boundingBox())!.y).toBeLessThan(900);
      const meaning = (await page.locator("#expectation-meaning").textContent())!;
      expect(meaning).toMatch(
        /^Both roles are the simulator, sim profile default \(.*\)\. By design its planner plants defects .* its critic misses a seeded defect .*These failures measure the profile, not a model/,
      );
      const failed = summary.expectations.goals.n_items_failed + summary.expectations.fixtures.n_items_failed;
      expect(failed).toBeGreaterThan(0);
      expect(await page.locator("#expectations").getAttribute("data-failed")).toBe(String(failed));
      expect(await page.locator("#failed-checks [data-check]").count()).toBeGreaterThan(0);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "report-first-screen.png") });
    });
    expect(readFileSync(join(dir, "report.md"), "utf8")).toContain("Both roles are the simulator, sim profile default");
  }, 120_000);

  it("names the providers from the run's roles: models, or another engine's imported record", () => {
    const items: ItemSpec[] = [{ suite: "boundary", id: "seeded-a", verdicts: ["pass", "block"] }];
    const hashes = writeCorpus(at("corpus"), [makeFixture("seeded-a", true)], []);
    writeRunDir(at("model"), items, hashes, (m) => {
      for (const role of ["planner", "critic"] as const) {
        m.config.client[role] = { provider: "openai", model: "gpt-4o" };
        m.roles[role] = { ...m.roles[role], provider: "openai", model: "gpt-4o" };
      }
    });
    writeReport(at("model"), at("corpus"));
    expect(readFileSync(at("model/report.html"), "utf8")).toContain(
      "Both roles are models (planner openai/gpt-4o, critic openai/gpt-4o): each failure is an item this engine decided otherwise",
    );
    const imported = importPlannerCritic({
      reportsDir: join(SAMPLE, "reports"),
      goalsDir: join(SAMPLE, "goals"),
      out: at("imported"),
      force: false,
      runId: "i",
      command: [],
      now: () => new Date("2026-12-05T12:00:00Z"),
    });
    const dir = imported.runs[0]!.dir;
    writeReport(dir, dir);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toContain("This run was recorded by another engine and imported");
  });

  it("warns on stderr and first on the page when no trial is left, and never shows a green line", async () => {
    const items: ItemSpec[] = [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "pass"] }];
    const hashes = writeCorpus(at("corpus-empty"), [makeFixture("seeded-a", true)], []);
    const dir = at("emptied");
    writeRunDir(dir, items, hashes, (m) => {
      m.plan.planned = 3;
      m.plan.shard_planned = 3;
    });
    writeFileSync(join(dir, "trials.jsonl"), "");
    const r = await fieldtest("report", dir, "--corpus", at("corpus-empty"));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^fieldtest: warning: trials\.jsonl holds 0 of the 3 trials the run planned/m);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toContain("**No item was judged against its expectation** (0 trial(s) recorded)");
    await browser.inPage(join(dir, "report.html"), async (p) => {
      const { page } = p;
      const first = await page.locator("#view-decision > section, #view-decision > div").evaluateAll((els) => els.map((e) => e.id));
      expect(first[0]).toBe("warnings");
      expect(await page.locator("#expectations").getAttribute("data-judged")).toBe("0");
      expect(await page.locator("#view-decision .ok").count()).toBe(0);
      expect(await page.locator("#expectations").textContent()).toContain("No item was judged against its expectation: the run has no trial left to judge");
    });
  }, 60_000);
});
