import type { Fixture } from "../formats/fixture.ts";
import type { CorpusGoal } from "../formats/goal.ts";
import type { RoundRecord, TrialRecord } from "../formats/records.ts";
import type { ItemTrials } from "./items.ts";
import { criticFindings, isAtTask } from "./trial-facts.ts";

/** One trial judged against its item's expectation; failures name each failed check. */
interface TrialExpectation {
  trial: number;
  /** False when nothing could be judged (status error); the reason says why. */
  judged: boolean;
  reason: string | null;
  pass: boolean | null;
  failures: string[];
}

export interface ItemExpectation {
  suite: string;
  item_id: string;
  n_trials: number;
  n_judged: number;
  n_passed: number;
  /** Every judged trial passed; null when no trial could be judged. */
  pass: boolean | null;
  /** Failed check name → number of trials that failed it. */
  failed_checks: Record<string, number>;
  trials: TrialExpectation[];
}

export interface ExpectationReport {
  n_items: number;
  n_items_judged: number;
  n_items_failed: number;
  n_trials_judged: number;
  n_trials_failed: number;
  /** Ids of items with at least one failing trial: listed, never hidden in a pooled rate. */
  failing_items: string[];
  items: ItemExpectation[];
}

interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

/** Families of the blockers that block in a round, of either origin. */
function blockerFamilies(round: RoundRecord): Set<string> {
  const blocking = new Set(round.blocker_keys);
  const families = new Set<string>();
  for (const f of round.gate_findings) if (blocking.has(f.key)) families.add(f.family);
  for (const f of [...(round.critic?.findings ?? []), ...round.carried_forward]) if (blocking.has(f.key)) families.add(f.family);
  return families;
}

/** docs/design.md §2: the expect block of a corpus goal, judged on one engine trial's final round. */
export function goalChecks(goal: CorpusGoal, trial: TrialRecord): Check[] {
  const { expect } = goal;
  const got = trial.status === "approved" ? "approve" : "escalate";
  const checks: Check[] = [{ name: "verdict", pass: got === expect.verdict, detail: `expected ${expect.verdict}, got ${trial.status}` }];
  if (trial.status === "escalated" && expect.verdict === "escalate" && expect.escalation_reasons.length > 0) {
    checks.push({
      name: "escalation_reasons",
      pass: trial.escalation_reasons.some((r) => expect.escalation_reasons.includes(r)),
      detail: `expected any of [${expect.escalation_reasons.join(", ")}], got [${trial.escalation_reasons.join(", ")}]`,
    });
  }
  const final = trial.rounds.at(-1);
  if (final === undefined) return checks;
  const tasks = final.plan.tasks;
  if (expect.min_tasks !== undefined) {
    checks.push({ name: "min_tasks", pass: tasks.length >= expect.min_tasks, detail: `expected ≥ ${expect.min_tasks} tasks, got ${tasks.length}` });
  }
  for (const element of expect.mandatory_elements) {
    const needle = element.toLowerCase();
    checks.push({
      name: `mandatory_element:${element}`,
      pass: tasks.some((t) => t.id.toLowerCase().includes(needle) || t.description.toLowerCase().includes(needle)),
      detail: `no task id or description contains "${element}"`,
    });
  }
  if (expect.forbidden_blocker_families.length > 0) {
    const found = [...blockerFamilies(final)].filter((f) => (expect.forbidden_blocker_families as string[]).includes(f));
    checks.push({ name: "forbidden_blocker_families", pass: found.length === 0, detail: `final-round blockers in [${found.join(", ")}]` });
  }
  return checks;
}

const gateSignature = (code: string, task: string | null) => `${code}@${task ?? "-"}`;

/**
 * A boundary fixture's ground truth judged on one critic-only trial: the gates' findings equal
 * the expected ones; and, when the critic answered, the full decision equals expected_verdict
 * under the fixture goal's tolerance and each seeded defect gets the claim a correct critic makes
 * (a critic finding at the defect's task, in its family, with its claim kind).
 */
export function fixtureChecks(fixture: Fixture, trial: TrialRecord): Check[] {
  const first = trial.rounds[0];
  const got = [...new Set((first?.gate_findings ?? []).map((f) => gateSignature(f.code, f.task_id)))].sort();
  const expected = [...new Set(fixture.expected_gate_findings.map((f) => gateSignature(f.code, f.task_id)))].sort();
  const checks: Check[] = [
    { name: "gate_findings", pass: got.join() === expected.join(), detail: `expected [${expected.join(", ")}], got [${got.join(", ")}]` },
  ];
  if (trial.critic_verdict === "unavailable") return checks;
  const wanted = fixture.expected_verdict[fixture.goal.risk_tolerance];
  checks.push({ name: "verdict", pass: trial.verdict === wanted, detail: `expected ${wanted}, got ${trial.verdict}` });
  const findings = criticFindings(trial);
  for (const d of fixture.seeded_defects) {
    checks.push({
      name: `seeded_defect:${d.task}:${d.family}`,
      pass: findings.some((f) => isAtTask(f, d.task) && f.family === d.family && f.evidence?.claim.trim().toLowerCase() === d.claim.kind),
      detail: `no critic finding at ${d.task} in ${d.family} claiming ${d.claim.kind}`,
    });
  }
  return checks;
}

function judgeItem<T>(item: ItemTrials, definition: T, checksOf: (def: T, trial: TrialRecord) => Check[]): ItemExpectation {
  const failed: Record<string, number> = {};
  const trials = item.trials.map((trial): TrialExpectation => {
    if (trial.status === "error") return { trial: trial.trial, judged: false, reason: `error: ${trial.error ?? "unknown"}`, pass: null, failures: [] };
    const failing = checksOf(definition, trial).filter((c) => !c.pass);
    for (const c of failing) failed[c.name] = (failed[c.name] ?? 0) + 1;
    const reason = trial.critic_verdict === "unavailable" ? "critic_unavailable: only the gate findings were judged" : null;
    return { trial: trial.trial, judged: true, reason, pass: failing.length === 0, failures: failing.map((c) => `${c.name}: ${c.detail}`) };
  });
  const judged = trials.filter((t) => t.judged);
  const passed = judged.filter((t) => t.pass).length;
  return {
    suite: item.suite,
    item_id: item.item_id,
    n_trials: trials.length,
    n_judged: judged.length,
    n_passed: passed,
    pass: judged.length === 0 ? null : passed === judged.length,
    failed_checks: failed,
    trials,
  };
}

function report(items: ItemExpectation[]): ExpectationReport {
  const failing = items.filter((it) => it.pass === false);
  return {
    n_items: items.length,
    n_items_judged: items.filter((it) => it.pass !== null).length,
    n_items_failed: failing.length,
    n_trials_judged: items.reduce((s, it) => s + it.n_judged, 0),
    n_trials_failed: items.reduce((s, it) => s + it.n_judged - it.n_passed, 0),
    failing_items: failing.map((it) => it.item_id),
    items,
  };
}

/** Judge every item that has a definition; the caller lists items without one. */
export function judgeExpectations<T>(
  items: readonly { item: ItemTrials; definition: T }[],
  checksOf: (def: T, trial: TrialRecord) => Check[],
): ExpectationReport {
  return report(items.map(({ item, definition }) => judgeItem(item, definition, checksOf)));
}
