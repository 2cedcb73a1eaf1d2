import type { Command } from "commander";
import { z } from "zod";
import type { Comparison } from "../../baseline/compare.ts";
import { compare, CompareOptionsSchema } from "../../api/baseline.ts";
import { verdictText } from "../../report/format.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { formatDifferences } from "./diff.ts";
import { corpusOption, CORPUS_HELP, numberOption, parseOptions, wholeText } from "../options.ts";

const { shape } = CompareOptionsSchema;
const OptionsSchema = CompareOptionsSchema.omit({ a: true, b: true }).extend({
  alpha: numberOption(shape.alpha),
  reps: wholeText(shape.reps),
  seed: wholeText(shape.seed),
  corpus: corpusOption,
  json: z.boolean().default(false),
});

const f = (x: number | null, digits = 3) => (x === null ? "n/a" : Number(x.toPrecision(digits)).toString());

export function formatComparison(c: Comparison): string {
  const lines = [`A ${c.a.runs} vs B ${c.b.runs}`, `verdict: ${c.verdict.line}`];
  // compare diffs B (as the baseline) against A (as the candidate).
  lines.push(...formatDifferences(c.differences, c.coverage, { baseline: "B", candidate: "A" }));
  for (const s of c.suites) {
    lines.push(`${s.suite}: ${s.n_items} items with a modal verdict in both runs`);
    lines.push(
      `  transitions (B -> A): ${Object.entries(s.transitions)
        .map(([t, n]) => `${t}: ${n}`)
        .join(", ")}`,
    );
    lines.push(`  McNemar (${s.mcnemar.method}): ${s.mcnemar.b} newly blocking in A, ${s.mcnemar.c} no longer blocking, p ${f(s.mcnemar.p)}`);
    const e = s.excess_disagreement;
    lines.push(
      e.same_run
        ? `  excess disagreement: 0 over ${e.n_items} items (A and B are the same run: every pair of distinct trials is a within-run pair)`
        : `  excess disagreement: ${f(e.statistic)} over ${e.n_items} items, permutation p ${f(e.p)} (${e.reps} re-splits, seed ${e.seed})`,
    );
    lines.push(
      `  changed items: ${s.changed_items.length}${s.changed_items.length ? ` (${s.changed_items.filter((x) => x.beyond_noise).length} beyond noise, Fisher exact with Holm over items)` : ""}`,
    );
    for (const x of s.changed_items) {
      const causes = x.causes.length ? x.causes.join(", ") : "none recorded";
      lines.push(
        `    ${x.item}: B ${verdictText(x.b)} -> A ${verdictText(x.a)} (p ${f(x.p)}, Holm ${f(x.p_holm)}${x.beyond_noise ? ", beyond noise" : ""}; causes: ${causes})`,
      );
    }
  }
  if (c.coverage.paired.length === 0) {
    lines.push("metric deltas: none: A and B share no item with the same content (nothing to pair)");
    return `${lines.join("\n")}\n`;
  }
  // The two values are each side's metric over its own trials (pooled over its runs); Δ is the mean
  // of the per-item differences over the shared items, so it need not equal their difference.
  lines.push(
    `metric deltas (B -> A: each side's own value; Δ: mean per-item difference A − B over the shared items, clustered by fixture group (ratios: by the delta method over the items' counts; agreement: paired bootstrap), 95% interval; with no spread across items, recovered from the two sides' own intervals; p two-sided, Holm across the ${c.metrics.filter((m) => m.p !== null).length} paired metrics at ${c.verdict.alpha}):`,
  );
  for (const m of c.metrics) {
    const test = m.p === null ? (m.note ? `; not tested: ${m.note}` : "") : `; p ${f(m.p)}, Holm ${f(m.p_holm)}${m.beyond_noise ? ", beyond noise" : ""}`;
    lines.push(`  ${m.metric}: ${f(m.b)} -> ${f(m.a)}; Δ ${f(m.delta)} [${f(m.ci_low)}, ${f(m.ci_high)}] over ${m.n_items} items${test}`);
  }
  lines.push(...formatProfile(c));
  return `${lines.join("\n")}\n`;
}

/** The defect-family profile: blockers per goal by origin and family, A beside B, and the test of "same profile". */
function formatProfile(c: Comparison): string[] {
  const p = c.profile;
  if (p.n_goals === 0) return ["defect-family profile: no goal in both runs"];
  const d = p.distance;
  const same =
    d.statistic === null
      ? "no blocker in one of the runs: no profile to compare"
      : `distance between the profiles' shapes (total variation of the blocker shares) ${f(d.statistic)} [${f(d.ci_low)}, ${f(d.ci_high)}], permutation p ${f(d.p)} for "the same profile": ${d.p !== null && d.p <= c.verdict.alpha ? "different structural mistakes" : "the same mix of mistakes, within noise"}`;
  return [
    `defect-family profile over ${p.n_goals} goals (distinct blocker keys per trial, mean over goals, B -> A; Δ paired with its 95% interval):`,
    `  all blockers: ${f(p.total.b)} -> ${f(p.total.a)}; Δ ${f(p.total.delta)} [${f(p.total.ci_low)}, ${f(p.total.ci_high)}]`,
    ...p.cells.map((x) => `  ${x.origin} ${x.family}: ${f(x.b)} -> ${f(x.a)}; Δ ${f(x.delta)} [${f(x.ci_low)}, ${f(x.ci_high)}]`),
    `  ${same}`,
  ];
}

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("compare")
    .description(
      "Model-swap comparison of run A against run B on the same items (run directories or baseline files): one verdict over every summary metric paired (Holm), verdict transitions, excess disagreement, and the defect-family profile",
    )
    .argument("<a>", "run A (candidate): a run directory or a baseline file")
    .argument("<b>", "run B (reference): a run directory or a baseline file")
    .option("--json", "print the comparison as JSON")
    .option("--alpha <p>", "family-wise level of the verdict across the paired metrics (Holm)", "0.05")
    .option("--reps <n>", "permutation re-splits for excess disagreement (at most 1000000; the bootstraps use at most 2000)", "10000")
    .option("--seed <n>", "seed of the permutation tests and bootstraps", "0")
    .option("--corpus <dir>", `corpus the runs were made on (${CORPUS_HELP})`)
    .action(
      action((a: string, b: string, raw: unknown) => {
        const { json, ...options } = parseOptions(OptionsSchema, raw);
        const c = compare({ ...options, a, b }, { warn });
        host.stdout.write(json ? jsonText(c) : formatComparison(c));
        return EXIT.ok;
      }),
    );
}
