import { isCleanControl } from "../../src/formats/fixture.ts";
import type { Corpus } from "./load.ts";

interface CorpusCounts {
  goals: number;
  /** Domain → goals, sorted by domain. */
  byDomain: Record<string, number>;
  /** Category → goals, sorted by category. */
  byCategory: Record<string, number>;
  /** Every boundary fixture, injection twins included. */
  fixtures: number;
  /** Fixtures without a seeded defect that are not injection twins (the over-claim denominator). */
  cleanControls: number;
  injectionTwins: number;
  /** Fixtures with at least one seeded defect that no gate can see (only the critic can speak). */
  gateInvisible: number;
  /** The security oracle: variants by kind, their goals and CWEs. */
  security: { flawed: number; correct: number; goals: number; cwes: number };
  /** Generated injection traps and the clean controls they pair with. */
  injection: { traps: number; controls: number };
}

function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of [...values].sort()) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

export function corpusCounts(corpus: Corpus): CorpusCounts {
  const fixtures = corpus.fixtures.map((x) => x.fixture);
  const controls = fixtures.filter((f) => f.injection_of === null);
  return {
    goals: corpus.goals.length,
    byDomain: tally(corpus.goals.map((g) => g.goal.domain)),
    byCategory: tally(corpus.goals.map((g) => g.goal.category)),
    fixtures: fixtures.length,
    cleanControls: controls.filter(isCleanControl).length,
    injectionTwins: fixtures.length - controls.length,
    gateInvisible: controls.filter((f) => f.seeded_defects.some((d) => !d.gate_visible)).length,
    security: {
      flawed: corpus.security.filter((s) => s.kind === "flawed").length,
      correct: corpus.security.filter((s) => s.kind === "correct").length,
      goals: new Set(corpus.security.map((s) => s.group)).size,
      cwes: new Set(corpus.security.map((s) => s.cwe)).size,
    },
    injection: { traps: corpus.injection.filter((i) => i.control !== null).length, controls: corpus.injection.filter((i) => i.control === null).length },
  };
}
