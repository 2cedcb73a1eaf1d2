import { join } from "node:path";
import type { RunSpend } from "../../src/formats/summary.ts";
import { itemSummaries, type ItemSummary } from "../../src/metrics/items.ts";
import { RUN_FILES, writeFileAtomic, writeJsonAtomic } from "../run/store.ts";
import { decide, type Decision, type DecisionInput } from "./decision.ts";
import { renderHtml } from "./html.ts";
import { loadRun, type LoadedRun } from "../run/load.ts";
import { renderMarkdown } from "./markdown.ts";
import { reportModel } from "./model.ts";
import { triage } from "./triage.ts";
import { trialsCsv } from "./trials-csv.ts";

/**
 * summary.json: the metrics summary (schema_version, metrics, operational, expectations, ...)
 * with the run's identity and the per-item reductions that later diffs pair on.
 */
export function summaryFile(run: LoadedRun, items: ItemSummary[] = itemSummaries(run.trials)) {
  const m = run.manifest;
  return {
    ...run.summary,
    run: { run_id: m.run_id, state: m.state, started_at: m.started_at, finished_at: m.finished_at, config_hash: m.config_hash, corpus_hash: m.corpus.hash },
    spend: run.spend,
    warnings: run.warnings,
    items,
  };
}

/**
 * Write summary.json, trials.csv, report.md and report.html into the run directory; returns their
 * paths, the decision and what the run spent. With a baseline and a policy the reports lead with
 * the release gate's decision.
 */
export function writeReport(
  dir: string,
  corpusRoot = "corpus",
  decisionInput: DecisionInput | null = null,
): { paths: string[]; decision: Decision | null; spend: RunSpend | null; warnings: string[] } {
  const run = loadRun(dir, corpusRoot);
  const decision = decisionInput === null ? null : decide(run, decisionInput);
  const items = itemSummaries(run.trials);
  const paths = {
    summary: join(dir, RUN_FILES.summary),
    csv: join(dir, RUN_FILES.csv),
    md: join(dir, RUN_FILES.reportMd),
    html: join(dir, RUN_FILES.reportHtml),
  };
  // Both reports render one model of the report's sections, with the per-item triage made once.
  const details = triage(run);
  writeJsonAtomic(paths.summary, summaryFile(run, items));
  writeFileAtomic(paths.csv, trialsCsv(run.trials));
  const model = reportModel(run, items, decision, details);
  writeFileAtomic(paths.md, renderMarkdown(model));
  writeFileAtomic(paths.html, renderHtml(model));
  return { paths: Object.values(paths), decision, spend: run.spend, warnings: run.warnings };
}
