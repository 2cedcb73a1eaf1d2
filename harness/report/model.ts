import type { RunSpend } from "../../src/formats/summary.ts";
import { HEADLINE_METRICS, orderedMetricNames } from "../../src/metrics/catalogue.ts";
import type { ItemSummary } from "../../src/metrics/items.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import type { Manifest } from "../../src/formats/manifest.ts";
import type { LoadedRun } from "../run/load.ts";
import type { Decision } from "./decision.ts";
import { expectationMeaning, failuresByCheck, headlineMetrics, type CheckFailures, type HeadlineRow } from "./overview.ts";
import { triage, type ItemDetail, type ItemRow } from "./triage.ts";

/**
 * The report's sections, pure data, in document order: report.md renders them in turn,
 * report.html places each on its tab (`view`) in the same order. A section one format does not
 * show has no rendering there (null). Adding a section is one entry here (its data in
 * `reportModel`) and its rendering in markdown.ts and html.ts, which the compiler asks for.
 */
export type ReportSection =
  | { id: "warnings"; view: "decision"; warnings: string[] }
  | { id: "decision"; view: "decision"; decision: Decision | null }
  | { id: "metrics"; view: "metrics"; metrics: Record<string, MetricValue>; names: string[]; headline: string[] }
  | { id: "suites"; view: "metrics"; metrics: Record<string, MetricValue> }
  | { id: "expectations"; view: "decision"; expectations: Expectations }
  /** The headline metrics the run measured: the overview's answer when there is no baseline to decide against. */
  | { id: "headline"; view: "decision"; rows: HeadlineRow[]; unmeasured: string[] }
  | { id: "operational"; view: "metrics"; metrics: Record<string, MetricValue>; names: string[] }
  | { id: "charts"; view: "charts"; run: LoadedRun; items: ItemSummary[] }
  | { id: "items"; view: "items"; details: readonly ItemDetail[] }
  | { id: "item"; view: "item" }
  | { id: "transcript"; view: "trial" }
  /** The run's facts, roles and spend (report.md states the facts in its header and shows the spend). */
  | { id: "run"; view: "run"; manifest: Manifest; spend: RunSpend | null }
  | { id: "checks"; view: "run"; decision: Decision | null }
  | { id: "unstable"; view: "items"; unstable: ItemSummary[]; items: number };

type SectionId = ReportSection["id"];
export type SectionOf<K extends SectionId> = Extract<ReportSection, { id: K }>;
/** One rendering per section: a format lists every section, and says null where it shows none. */
export type Renderings<T> = { [K in SectionId]: (section: SectionOf<K>) => T | null };

/** The expectations of the run's items: how many were judged and failed, which items and checks failed, and what it means. */
export interface Expectations {
  judged: number;
  failed: number;
  /** The rows of the items that failed an expectation. */
  failing: ItemRow[];
  checks: CheckFailures[];
  meaning: string;
  trials: number;
}

export interface ReportModel {
  run: LoadedRun;
  decision: Decision | null;
  details: readonly ItemDetail[];
  sections: ReportSection[];
}

/** The sections of a run's report, with the data each shows. */
export function reportModel(run: LoadedRun, items: ItemSummary[], decision: Decision | null = null, details: readonly ItemDetail[] = triage(run)): ReportModel {
  const { summary } = run;
  const names = orderedMetricNames(summary.metrics);
  const e = summary.expectations;
  const judged = e.goals.n_items_judged + e.fixtures.n_items_judged;
  const expectations: Expectations = {
    judged,
    failed: e.goals.n_items_failed + e.fixtures.n_items_failed,
    failing: details.map((d) => d.row).filter((r) => r.expectation === "fail"),
    checks: failuresByCheck(details),
    meaning: judged > 0 ? expectationMeaning(run) : "",
    trials: run.trials.length,
  };
  const sections: ReportSection[] = [
    { id: "warnings", view: "decision", warnings: run.warnings },
    { id: "decision", view: "decision", decision },
    { id: "metrics", view: "metrics", metrics: summary.metrics, names, headline: names.filter((n) => HEADLINE_METRICS.includes(n)) },
    { id: "suites", view: "metrics", metrics: summary.metrics },
    { id: "expectations", view: "decision", expectations },
    ...(decision === null ? [{ id: "headline", view: "decision", ...headlineMetrics(summary.metrics) } as const] : []),
    { id: "operational", view: "metrics", metrics: summary.operational, names: Object.keys(summary.operational).sort() },
    { id: "charts", view: "charts", run, items },
    { id: "items", view: "items", details },
    { id: "item", view: "item" },
    { id: "transcript", view: "trial" },
    { id: "run", view: "run", manifest: run.manifest, spend: run.spend },
    { id: "checks", view: "run", decision },
    { id: "unstable", view: "items", unstable: items.filter((i) => i.unanimous === false), items: items.length },
  ];
  return { run, decision, details, sections };
}

/** Each section rendered by its format's rendering, in the model's order; those it does not show left out. */
export function renderSections<T>(sections: readonly ReportSection[], render: Renderings<T>): { section: ReportSection; out: T }[] {
  return sections.flatMap((section) => {
    const out = (render[section.id] as (s: ReportSection) => T | null)(section);
    return out === null ? [] : [{ section, out }];
  });
}
