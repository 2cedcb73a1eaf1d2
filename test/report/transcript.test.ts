import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importPlannerCritic } from "../../harness/import/planner-critic/run.ts";
import { writeReport } from "../../harness/report/write.ts";
import { readTrials } from "../../harness/run/store.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { makeFixture, writeCorpus, writeRunDir } from "../baseline/builders.ts";
import { ARTIFACTS } from "../helpers/artifacts.ts";
import { browserSession, type OpenedPage } from "../helpers/browser.ts";
import { fieldtest } from "../helpers/cli.ts";
import { SAMPLE } from "../import/fixtures.ts";

/** One Chromium for the file's pages, each in a context of its own. */
const browser = browserSession();
afterAll(() => browser.close());

/**
 * report.html's transcripts in headless Chromium: reached from an item and from a failed check,
 * showing each round's plan, gate findings (set-aside ones marked), the critic's raw answer and
 * normalized findings with evidence status, the decision and every call's decision context; and
 * model text that stays text.
 */

const ONLY = [
  "batch-04-reprocess-with-skip-checks",
  "bkp-02-postgres-pitr",
  "missing-step-checkout-flag-absent",
  "latency-vs-unsafe-stream-concurrent",
  "clean-soft-hard-erp-soft",
];
const HOSTILE = `<img src=x onerror="window.__pwned = 1">`;

let root: string;
let sim: string;
const trialsOf = (dir: string) => readTrials(dir);

/** The transcript of `key` (suite/item) trial `n`, opened by its hash; resolves once it is drawn. */
async function openTranscript(p: OpenedPage, key: string, n: number): Promise<void> {
  await p.page.evaluate((h) => (location.hash = h), `#trial/${encodeURIComponent(`${key}/${n}`)}`);
  await p.page.waitForSelector(`#trial-view h2[data-trial="${key}/${n}"]`);
}

/** What the transcript of a trial shows, round by round, as data. */
async function shown(p: OpenedPage) {
  return p.page.locator("#trial-view .t-round[data-round]").evaluateAll((rounds) =>
    rounds.map((r) => ({
      index: Number(r.getAttribute("data-round")),
      decision: r.querySelector(".decision")!.getAttribute("data-decision"),
      tasks: [...r.querySelectorAll("table.plan tbody tr")].map((tr) => tr.getAttribute("data-task")),
      gate: [...r.querySelectorAll("ul.gate-findings li")].map((li) => `${li.getAttribute("data-code")}@${li.getAttribute("data-task")}`),
      setAside: [...r.querySelectorAll("ul.set-aside li")].map((li) => `${li.getAttribute("data-code")}@${li.getAttribute("data-task")}`),
      invented: [...r.querySelectorAll("tr.invented")].map((tr) => tr.getAttribute("data-task")),
      evidence: [...r.querySelectorAll("tr.critic-finding")].map((tr) => tr.getAttribute("data-evidence")),
      raw: r.querySelector("details.critic-raw pre")?.textContent ?? null,
      // The decision context's first line: provider and model.
      calls: [...r.querySelectorAll("tr.call")].map(
        (tr) => `${tr.getAttribute("data-role")}:${(tr as HTMLTableRowElement).cells[6]!.innerHTML.split("<br>")[0]}`,
      ),
    })),
  );
}

/** What the record says the transcript must show. */
function expected(t: TrialRecord) {
  return t.rounds.map((r) => ({
    index: r.index,
    decision: r.decision,
    tasks: r.plan.tasks.map((x) => x.id),
    gate: r.gate_findings.map((f) => `${f.code}@${f.task_id ?? ""}`),
    setAside: (r.translated?.gate_findings ?? []).map((f) => `${f.code}@${f.task_id ?? ""}`),
    invented: r.translated?.tasks ?? [],
    evidence: (r.critic?.findings ?? []).map((f) => f.evidence_status),
    raw: r.critic === null ? null : (r.critic.raw_text ?? "(no answer)"),
    calls: t.calls.filter((c) => c.round === r.index).map((c) => `${c.role}:${c.context.provider} · ${c.context.model}`),
  }));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-transcript-"));
  sim = join(root, "sim");
  const r = await fieldtest("run", "--only", ONLY.join(","), "--trials", "5", "--out", sim);
  expect(r.code, r.stderr).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("report.html transcripts in headless Chromium", () => {
  it("reaches every trial's transcript from its item and from each failed check, and shows what the record holds", async () => {
    const summary = JSON.parse(readFileSync(join(sim, "summary.json"), "utf8"));
    const failing = [...summary.expectations.goals.items, ...summary.expectations.fixtures.items].filter((i: { pass: boolean | null }) => i.pass === false);
    expect(failing.length).toBeGreaterThan(0);
    const trials = trialsOf(sim);
    await browser.inPage(join(sim, "report.html"), async (p) => {
      const { page } = p;
      // From a failed check in the items table: the transcript of the first trial that failed it.
      await page.click('nav.tabs a[href="#items"]');
      await page.waitForSelector("#view-items.active");
      const links = await page
        .locator("#items-table td a[href^='#trial/']")
        .evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute("href")!.slice("#trial/".length))));
      const checks = failing.reduce((n: number, i: { failed_checks: Record<string, number> }) => n + Object.keys(i.failed_checks).length, 0);
      expect(links).toHaveLength(checks);
      for (const item of failing) {
        for (const check of Object.keys(item.failed_checks)) {
          const first = item.trials.find((t: { failures: string[] }) => t.failures.some((f) => f.startsWith(`${check}: `)));
          expect(links).toContain(`${item.suite}/${item.item_id}/${first.trial}`);
        }
      }
      await page.locator("#items-table td a[href^='#trial/']").first().click();
      await page.waitForSelector("#trial-view h2[data-trial]");
      expect(await page.locator(".view.active").getAttribute("id")).toBe("view-trial");
      expect(await page.locator("#trial-view .failures li").count()).toBeGreaterThan(0);

      // From an item: each trial card links to its transcript.
      const key = `corpus/${ONLY[1]}`;
      await page.evaluate((h) => (location.hash = h), `#item/${encodeURIComponent(key)}`);
      await page.waitForSelector(`#item-view h2[data-item="${key}"]`);
      expect(await page.locator("#item-view a.transcript-link").count()).toBe(5);
      await page.locator("#item-view a.transcript-link").nth(2).click();
      await page.waitForSelector(`#trial-view h2[data-trial="${key}/2"]`);

      // Every trial of every item: the transcript shows what its record holds, round by round.
      for (const t of trials) {
        await openTranscript(p, `${t.suite}/${t.item_id}`, t.trial);
        expect(await shown(p), `${t.item_id}/${t.trial}`).toEqual(expected(t));
      }
      mkdirSync(ARTIFACTS, { recursive: true });
      await openTranscript(p, key, 0);
      await page.screenshot({ path: join(ARTIFACTS, "transcript.png"), fullPage: true });
      expect(p.requests).toEqual([]);
    });
  }, 120_000);

  it("marks the gate findings an import set aside, and the tasks its translation invented", async () => {
    const out = join(root, "imported");
    const result = importPlannerCritic({
      reportsDir: join(SAMPLE, "reports"),
      goalsDir: join(SAMPLE, "goals"),
      out,
      force: false,
      runId: "t",
      command: [],
      now: () => new Date("2026-12-05T12:00:00Z"),
    });
    const dir = result.runs[0]!.dir;
    writeReport(dir, dir);
    const trials = trialsOf(dir);
    expect(trials.some((t) => t.rounds.some((r) => (r.translated?.gate_findings.length ?? 0) > 0))).toBe(true);
    await browser.inPage(join(dir, "report.html"), async (p) => {
      for (const t of trials) {
        await openTranscript(p, `${t.suite}/${t.item_id}`, t.trial);
        expect(await shown(p)).toEqual(expected(t));
        // An imported call carries its prompt.
        expect(await p.page.locator("#trial-view tr.call details summary", { hasText: "prompt" }).count()).toBe(t.calls.length);
      }
    });
  }, 60_000);

  it("keeps model text inert: a raw answer and a finding message that carry markup are shown as text", async () => {
    const dir = join(root, "hostile");
    const hashes = writeCorpus(join(root, "corpus"), [makeFixture("seeded-a", true)], []);
    writeRunDir(dir, [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass"] }], hashes, undefined, (t) => {
      for (const r of t.rounds) {
        r.critic = { outcome: "ok", reason: null, raw_text: `{"findings": []} ${HOSTILE}`, findings: [], malformed_findings: 0 };
        r.gate_findings = [
          {
            origin: "gate",
            gate: "rollback_present",
            code: "rollback_missing",
            family: "weak_rollback",
            severity: "blocker",
            task_id: "change",
            message: HOSTILE,
            key: "rollback_present:rollback_missing:change:rollback",
          },
        ];
        r.plan = { ...r.plan, tasks: r.plan.tasks.map((x) => ({ ...x, description: HOSTILE })) };
      }
      t.error = HOSTILE;
    });
    writeReport(dir, join(root, "corpus"));
    expect(readFileSync(join(dir, "report.html"), "utf8")).not.toContain("<img");
    await browser.inPage(join(dir, "report.html"), async (p) => {
      await openTranscript(p, "boundary/seeded-a", 0);
      expect(await p.page.locator("#trial-view img").count()).toBe(0);
      expect(await p.page.locator("#trial-view").textContent()).toContain(HOSTILE);
      expect(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    });
  }, 60_000);
});
