import { basename, extname, relative, sep } from "node:path";
import { canonicalJson } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import { BLOCKER_ELIGIBLE_FAMILIES, RISK_TOLERANCES } from "../../src/formats/enums.ts";
import { runGates } from "../../src/gates/index.ts";
import { correctCriticFindings, correctVerdicts } from "./ground-truth.ts";
import type { Corpus } from "./load.ts";
import type { Problem } from "./problem.ts";
import { checkSecuritySuite, SECURITY_SUITE_PACKS } from "./security.ts";
import type { CompiledPack } from "../../src/packs/compile.ts";
import { loadPacks } from "../../src/packs/load.ts";
import { differsOnlyIn, fixtureView, structuralDifference } from "./twins.ts";

/** Goals whose descriptions open with the same words are near-duplicates (issue 5). */
const NEAR_DUPLICATE_WORDS = 12;

/** The first words of a description, lower-cased, for the near-duplicate check. */
function openingWords(description: string): string {
  return description.toLowerCase().split(/\s+/).filter(Boolean).slice(0, NEAR_DUPLICATE_WORDS).join(" ");
}

/**
 * Every check that the schema alone cannot make, over the whole corpus; an empty list means
 * valid. Pure except for the gates it runs, which are pure functions of (goal, plan) too. The
 * security oracle's ground truth is judged with the packs the suite is gated with (loaded by the
 * caller; the shipped ones by default).
 */
export function validateCorpus(corpus: Corpus, securityPacks: readonly CompiledPack[] = corpus.security.length ? loadPacks(SECURITY_SUITE_PACKS) : []): Problem[] {
  return [...checkIds(corpus), ...checkGoals(corpus), ...corpus.fixtures.flatMap((f) => checkFixture(f)), ...checkTwins(corpus), ...checkSecuritySuite(corpus.security, securityPacks)];
}

/** Ids are unique across goals and fixtures, and every file is named after its id. */
function checkIds(corpus: Corpus): Problem[] {
  const out: Problem[] = [];
  const firstFile = new Map<string, string>();
  const items = [
    ...corpus.goals.map(({ file, goal }) => ({ file, id: goal.id })),
    ...corpus.fixtures.map(({ file, fixture }) => ({ file, id: fixture.id })),
  ];
  for (const { file, id } of items) {
    const earlier = firstFile.get(id);
    if (earlier !== undefined) out.push({ file, path: "id", message: `duplicate id "${id}" (also in ${earlier})` });
    else firstFile.set(id, file);
    const stem = basename(file, extname(file));
    if (stem !== id) out.push({ file, path: "id", message: `is "${id}" but the file is named "${stem}"` });
  }
  return out;
}

/** A goal lives at goals/<domain>/<file>, and no two goals open their description with the same words. */
function checkGoals(corpus: Corpus): Problem[] {
  const out: Problem[] = [];
  const opening = new Map<string, string>();
  for (const { file, goal } of corpus.goals) {
    const folders = relative(`${corpus.root}${sep}goals`, file).split(sep).slice(0, -1);
    if (folders.length !== 1 || folders[0] !== goal.domain)
      out.push({ file, path: "domain", message: `is "${goal.domain}" but the file is in goals/${folders.join("/")}` });
    const words = openingWords(goal.description);
    const earlier = opening.get(words);
    if (earlier !== undefined)
      out.push({ file, path: "description", message: `opens with the same ${NEAR_DUPLICATE_WORDS} words as ${earlier}` });
    else opening.set(words, file);
  }
  return out;
}

const sortedFindings = (list: readonly { code: string; task_id: string | null }[]) =>
  list.map((f) => `${f.code}@${f.task_id ?? "-"}`).sort();

/** One fixture on its own: references, ground truth consistent with itself and with the gates. */
function checkFixture({ file, fixture: f }: { file: string; fixture: Fixture }): Problem[] {
  const out: Problem[] = [];
  const add = (path: string, message: string) => out.push({ file, path, message });
  const taskIds = new Set(f.plan.tasks.map((t) => t.id));
  if (f.plan.goal_id !== f.goal.id) add("plan.goal_id", `is "${f.plan.goal_id}" but the goal's id is "${f.goal.id}"`);

  f.seeded_defects.forEach((d, i) => {
    if (!taskIds.has(d.task)) add(`seeded_defects[${i}].task`, `"${d.task}" is not a task of the plan`);
    d.claim.tasks.forEach((t, j) => {
      if (!taskIds.has(t)) add(`seeded_defects[${i}].claim.tasks[${j}]`, `"${t}" is not a task of the plan`);
    });
  });

  const gateFindings = runGates(f.goal, f.plan);
  const expected = sortedFindings(f.expected_gate_findings);
  const actual = sortedFindings(gateFindings);
  const missing = actual.filter((x) => !expected.includes(x));
  const extra = expected.filter((x) => !actual.includes(x));
  if (missing.length > 0) add("expected_gate_findings", `the gates also return ${missing.join(", ")}`);
  if (extra.length > 0) add("expected_gate_findings", `the gates do not return ${extra.join(", ")}`);
  const gateVisible = f.seeded_defects.some((d) => d.gate_visible);
  if (gateVisible !== expected.length > 0)
    add("expected_gate_findings", gateVisible ? "a gate-visible seeded defect needs expected gate findings" : "gate findings need a gate-visible seeded defect");

  // A correct critic's claims hold up, its blockers count, and the decision follows from them.
  const findings = correctCriticFindings(f);
  findings.forEach((finding, i) => {
    if (finding.evidence_status === "contradicted" || finding.evidence_status === "unsupported_reference")
      add(`seeded_defects[${i}].claim`, `is ${finding.evidence_status} on this plan (${finding.evidence_reason}); a correct critic's claim is not`);
    if (!BLOCKER_ELIGIBLE_FAMILIES.includes(f.seeded_defects[i]!.family))
      add(`seeded_defects[${i}].family`, `"${f.seeded_defects[i]!.family}" is never blocker-eligible, so the defect could not block; seed defects in a gate-worthy family`);
  });
  const correct = correctVerdicts(gateFindings, findings);
  for (const tolerance of RISK_TOLERANCES) {
    if (f.expected_verdict[tolerance] !== correct.verdict[tolerance])
      add(`expected_verdict.${tolerance}`, `is ${f.expected_verdict[tolerance]} but a correct critic's decision is ${correct.verdict[tolerance]}`);
    if (f.expected_critic_verdict[tolerance] !== correct.critic[tolerance])
      add(`expected_critic_verdict.${tolerance}`, `is ${f.expected_critic_verdict[tolerance]} but a correct critic's own verdict is ${correct.critic[tolerance]}`);
  }
  return out;
}

/**
 * Pairs and triplets: the fixtures of a group (injection twins aside) name each other as twins,
 * all name the same `differs_in`, and every two of them differ in exactly that field. An injection
 * twin has its control's group, structure and ground truth.
 */
function checkTwins(corpus: Corpus): Problem[] {
  const out: Problem[] = [];
  const byId = new Map(corpus.fixtures.map((x) => [x.fixture.id, x]));
  const groups = new Map<string, { file: string; fixture: Fixture }[]>();
  for (const entry of corpus.fixtures) {
    const { file, fixture: f } = entry;
    const add = (path: string, message: string) => out.push({ file, path, message });
    if (f.injection_of !== null) {
      out.push(...checkInjectionTwin(entry, byId.get(f.injection_of)));
      continue;
    }
    const members = groups.get(f.group) ?? [];
    members.push(entry);
    groups.set(f.group, members);
    if (f.differs_in === null) add("differs_in", "a fixture of a pair or triplet names the field it differs in");
    f.twins.forEach((id, i) => {
      const twin = byId.get(id)?.fixture;
      if (id === f.id) add(`twins[${i}]`, "a fixture is not its own twin");
      else if (!twin) add(`twins[${i}]`, `"${id}" is not a fixture`);
      else if (twin.injection_of !== null) add(`twins[${i}]`, `"${id}" is an injection twin; those name their control in injection_of`);
      else if (!twin.twins.includes(f.id)) add(`twins[${i}]`, `"${id}" does not name ${f.id} among its twins`);
      else if (twin.group !== f.group) add(`twins[${i}]`, `"${id}" is in group "${twin.group}", not "${f.group}"`);
    });
  }

  for (const [group, members] of groups) {
    const { file, fixture: first } = members[0]!;
    if (members.length < 2 || members.length > 3) {
      out.push({ file, path: "group", message: `group "${group}" has ${members.length} fixture(s); a pair or triplet has 2 or 3` });
      continue;
    }
    for (const { file: f, fixture } of members) {
      const others = members.filter((m) => m.fixture !== fixture).map((m) => m.fixture.id);
      const unnamed = others.filter((id) => !fixture.twins.includes(id));
      if (unnamed.length > 0) out.push({ file: f, path: "twins", message: `does not name ${unnamed.join(", ")} of its group "${group}"` });
      if (fixture.differs_in !== first.differs_in)
        out.push({ file: f, path: "differs_in", message: `is "${fixture.differs_in}" but ${first.id} of the same group names "${first.differs_in}"` });
    }
    if (first.differs_in === null) continue;
    members.forEach((a, i) => {
      for (const b of members.slice(i + 1)) {
        const why = differsOnlyIn(a.fixture, b.fixture, first.differs_in!);
        if (why !== null) out.push({ file: b.file, path: "differs_in", message: why });
        else if (structuralDifference(a.fixture, b.fixture) === null)
          out.push({ file: b.file, path: "differs_in", message: `${a.fixture.id} and ${b.fixture.id} differ in prose only; a prose twin is an injection twin (injection_of)` });
      }
    });
  }
  return out;
}

function checkInjectionTwin(
  { file, fixture: twin }: { file: string; fixture: Fixture },
  control: { file: string; fixture: Fixture } | undefined,
): Problem[] {
  const out: Problem[] = [];
  const add = (path: string, message: string) => out.push({ file, path, message });
  if (!control) return [{ file, path: "injection_of", message: `"${twin.injection_of}" is not a fixture` }];
  const c = control.fixture;
  if (c.injection_of !== null) add("injection_of", `"${c.id}" is itself an injection twin`);
  if (twin.twins.length > 0) add("twins", "an injection twin names its control in injection_of, not in twins");
  if (twin.differs_in !== null) add("differs_in", "an injection twin differs from its control in prose only");
  if (twin.group !== c.group) add("group", `is "${twin.group}" but its control ${c.id} is in "${c.group}"`);
  const structural = structuralDifference(twin, c);
  if (structural !== null) add(structural, `differs from its control ${c.id} beyond prose`);
  else if (canonicalJson(fixtureView(twin)) === canonicalJson(fixtureView(c)))
    add("injection_of", `its prose is the same as its control ${c.id}'s: there is no injection`);
  for (const key of ["seeded_defects", "expected_gate_findings", "expected_verdict", "expected_critic_verdict"] as const) {
    if (canonicalJson(twin[key]) !== canonicalJson(c[key])) add(key, `differs from its control ${c.id}: the structure is the same, so the ground truth is too`);
  }
  return out;
}
