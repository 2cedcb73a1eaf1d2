import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_IDS } from "../../harness/report/html.ts";
import { writeReport } from "../../harness/report/write.ts";
import { launchChromium } from "../helpers/browser.ts";
import { makeCorpusGoal, makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";

const ITEMS: ItemSpec[] = [
  { suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "pass", "block", "block"] },
  { suite: "boundary", id: "seeded-b", verdicts: ["pass", "pass", "pass", "pass", "unavailable"] },
  { suite: "boundary", id: "clean-a", verdicts: ["pass", "pass", "pass", "pass", "block"] },
  { suite: "corpus", id: "goal-a", verdicts: ["approved", "approved", "escalated", "approved", "error"] },
];

let root: string;
let dir: string;
let paths: string[];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-report-"));
  const hashes = writeCorpus(join(root, "corpus"), [makeFixture("seeded-a", true), makeFixture("seeded-b", true), makeFixture("clean-a", false)], [makeCorpusGoal("goal-a")]);
  dir = join(root, "run");
  writeRunDir(dir, ITEMS, hashes);
  paths = writeReport(dir, join(root, "corpus"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fieldtest report", () => {
  it("writes summary.json with the documented metric keys", () => {
    expect(paths.map((p) => p.slice(dir.length + 1))).toEqual(["summary.json", "trials.csv", "report.md", "report.html"]);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.schema_version).toBe(1);
    for (const name of ["label_flip_rate", "engine_flip_rate", "underclaim_approvals", "overclaim_rate", "critic_unavailable_rate"]) {
      expect(Object.keys(summary.metrics[name]).sort()).toEqual(expect.arrayContaining(["ci_high", "ci_low", "n_items", "n_trials", "value"]));
    }
    // Known answers: Q of 4/1 is 0.4, of 4/0 (the unavailable trial is not counted) 0, of 4/1 again 0.4.
    expect(summary.metrics.label_flip_rate.value).toBeCloseTo(0.8 / 3, 10);
    // Under-claim: seeded-a 1 pass of 5 counted, seeded-b 4 of 4 → (0.2 + 1) / 2.
    expect(summary.metrics.underclaim_approvals.value).toBeCloseTo(0.6, 10);
    expect(summary.metrics.critic_unavailable_rate.value).toBeCloseTo(0.2 / 3, 10);
    expect(summary.run.run_id).toBe("run-1");
    expect(summary.items).toHaveLength(4);
  });

  it("writes one trials.csv row per trial, unknown numbers left empty", () => {
    const text = readFileSync(join(dir, "trials.csv"), "utf8");
    expect(text).not.toContain('"'); // nothing here needs quoting, so a plain split reads it
    const [header, ...lines] = text.trimEnd().split("\n").map((l) => l.split(","));
    const rows = lines.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i] ?? ""])));
    expect(rows).toHaveLength(20);
    const row = rows.find((r) => r.item_id === "seeded-b" && r.trial === "4")!;
    expect(row.verdict_label).toBe("unavailable");
    expect(row.input_tokens).toBe("0");
    expect(rows.find((r) => r.item_id === "goal-a" && r.trial === "4")!.status).toBe("error");
  });

  it("writes report.md with the metrics and the items whose trials disagree", () => {
    const md = readFileSync(join(dir, "report.md"), "utf8");
    expect(md).toContain("| `label_flip_rate` | 0.267 [");
    expect(md).toContain("boundary/seeded-a");
  });

  it("report.html opens in headless Chromium without console errors and draws every chart", async () => {
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).not.toMatch(/https?:\/\//);
    const profile = mkdtempSync(join(tmpdir(), "chromium-"));
    const browser = await launchChromium(profile);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("request", (r) => requests.push(r.url()));
      await page.goto(`file://${join(dir, "report.html")}`);
      for (const id of CHART_IDS) {
        const shapes = await page.locator(`svg#${id} rect, svg#${id} text`).count();
        expect(shapes, id).toBeGreaterThan(0);
      }
      expect(await page.locator("section[data-item]").count()).toBe(4);
      await page.fill("#item-filter", "goal");
      expect(await page.locator("section[data-item]:visible").count()).toBe(1);
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
