import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { fieldtest } from "../helpers/cli.ts";
import { parse, stringify } from "yaml";
import { InputError } from "../../src/formats/load.ts";
import { corpusCounts } from "../../harness/corpus/counts.ts";
import { loadCorpus, type Corpus } from "../../harness/corpus/load.ts";
import { validateCorpus } from "../../harness/corpus/validate.ts";
import { validateCommand } from "../../harness/cli/commands/corpus.ts";
import { formatProblem, type Problem } from "../../harness/corpus/problem.ts";
import { SECURITY_SUITE_PACKS } from "../../harness/corpus/security.ts";
import type { CompiledPack } from "../../src/packs/compile.ts";
import { loadPacks } from "../../src/packs/load.ts";

const ROOT = "corpus";
let real: Corpus;
/** The packs the security suite is judged with, as validateCorpus loads them by default: compiled once for the file's many validations. */
let securityPacks: CompiledPack[];
beforeAll(() => {
  real = loadCorpus(ROOT);
  securityPacks = loadPacks(SECURITY_SUITE_PACKS);
});

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A private copy of the real corpus to break. */
function copyCorpus(): string {
  const dir = mkdtempSync(join(tmpdir(), "fieldtest-corpus-"));
  temps.push(dir);
  cpSync(ROOT, dir, { recursive: true });
  return dir;
}

/** A fixture as free-form YAML: the tests break it into shapes no schema types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type LooseYaml = Record<string, any>;

function editYaml(file: string, edit: (data: LooseYaml) => void): void {
  const data = parse(readFileSync(file, "utf8")) as LooseYaml;
  edit(data);
  writeFileSync(file, stringify(data));
}

const fixtureFile = (root: string, id: string) => join(root, "boundary", `${id}.yaml`);

/** A copy of the corpus with one fixture file edited. */
function breakFixture(id: string, edit: (f: LooseYaml) => void): { root: string; file: string } {
  const root = copyCorpus();
  const file = fixtureFile(root, id);
  editYaml(file, edit);
  return { root, file };
}
const firstGoal = () => real.goals[0]!;
const goalFileIn = (root: string) => join(root, firstGoal().file.slice(ROOT.length + 1));

function loadError(root: string): InputError {
  try {
    loadCorpus(root);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("loadCorpus accepted a broken corpus");
}

const problemsOf = (root: string): Problem[] => validateCorpus(loadCorpus(root), securityPacks);

describe("the real corpus", () => {
  it("is valid", () => {
    expect(validateCorpus(real).map(formatProblem)).toEqual([]);
  });

  it("meets the issue 5 counts", () => {
    const c = corpusCounts(real);
    expect(c.goals).toBe(170);
    expect(Object.keys(c.byDomain).length).toBeGreaterThanOrEqual(40);
    expect(c.fixtures - c.injectionTwins).toBeGreaterThanOrEqual(60);
    expect(c.cleanControls).toBeGreaterThanOrEqual(20);
    expect(c.injectionTwins).toBeGreaterThanOrEqual(10);
  });

  it("keys every item and hashes every content change", () => {
    expect(Object.keys(real.itemHashes)).toHaveLength(real.goals.length + real.fixtures.length);
    expect(real.itemHashes[`boundary/${real.fixtures[0]!.fixture.id}`]).toMatch(/^[0-9a-f]{64}$/);
    expect(real.itemHashes[`corpus/${firstGoal().goal.id}`]).toMatch(/^[0-9a-f]{64}$/);

    const root = copyCorpus();
    expect(loadCorpus(root).hash).toBe(real.hash);
    const id = "clean-soft-hard-erp-soft";
    editYaml(fixtureFile(root, id), (f) => {
      f.plan.tasks[0].description += " (and record who froze them)";
    });
    const changed = loadCorpus(root);
    expect(changed.hash).not.toBe(real.hash);
    const moved = Object.keys(real.itemHashes).filter((k) => real.itemHashes[k] !== changed.itemHashes[k]);
    expect(moved).toEqual([`boundary/${id}`]);
  });
});

describe("a broken copy fails with file and path", () => {
  it("unknown key", () => {
    const { root, file } = breakFixture("rb-inconsistent-idp-broken", (f) => {
      f.plan.tasks[1].owner = "sre";
    });
    const e = loadError(root);
    expect(e.file).toBe(file);
    expect(e.path).toBe("plan.tasks[1].owner");
    expect(e.message).toContain('unknown key "owner"');
  });

  it("wrong enum value", () => {
    const root = copyCorpus();
    const file = goalFileIn(root);
    editYaml(file, (g) => {
      g.risk_tolerance = "lenient";
    });
    const e = loadError(root);
    expect(e.file).toBe(file);
    expect(e.path).toBe("risk_tolerance");
  });

  it("duplicate id", () => {
    const { root, file } = breakFixture("tool-available-pki", (f) => {
      f.id = firstGoal().goal.id;
    });
    const problems = problemsOf(root);
    expect(problems).toContainEqual(expect.objectContaining({ file, path: "id", message: expect.stringContaining(`duplicate id "${firstGoal().goal.id}"`) }));
  });

  it("non-reciprocal twin", () => {
    const { root } = breakFixture("soft-vs-hard-cdn-optional", (f) => {
      f.twins = [];
    });
    const problems = problemsOf(root);
    expect(problems).toContainEqual({
      file: fixtureFile(root, "soft-vs-hard-cdn-required"),
      path: "twins[0]",
      message: '"soft-vs-hard-cdn-optional" does not name soft-vs-hard-cdn-required among its twins',
    });
    expect(problems).toContainEqual(expect.objectContaining({ file: fixtureFile(root, "soft-vs-hard-cdn-optional"), path: "twins" }));
  });

  it("expected gate finding that the gates do not return", () => {
    const { root, file } = breakFixture("rb-self-dependent-search-broken", (f) => {
      f.expected_gate_findings.push({ code: "rollback_missing", task_id: "switch_alias" });
    });
    expect(problemsOf(root)).toContainEqual({
      file,
      path: "expected_gate_findings",
      message: "the gates do not return rollback_missing@switch_alias",
    });
  });

  it("gate finding the fixture does not expect", () => {
    const { root, file } = breakFixture("rollback-improvement-orders", (f) => {
      delete f.plan.tasks[2].rollback;
    });
    const problems = problemsOf(root);
    expect(problems).toContainEqual({ file, path: "expected_gate_findings", message: "the gates also return rollback_missing@partition_orders" });
  });

  it("goal in the wrong domain folder", () => {
    const root = copyCorpus();
    const from = goalFileIn(root);
    const other = firstGoal().goal.domain === "dns" ? "cdn" : "dns";
    const to = join(root, "goals", other, `${firstGoal().goal.id}.yaml`);
    mkdirSync(join(root, "goals", other), { recursive: true });
    renameSync(from, to);
    expect(problemsOf(root)).toContainEqual({
      file: to,
      path: "domain",
      message: `is "${firstGoal().goal.domain}" but the file is in goals/${other}`,
    });
  });

  it("twins that differ in a second field", () => {
    const { root } = breakFixture("latency-vs-unsafe-kafka-concurrent", (f) => {
      f.plan.tasks[5].kind = "approve";
    });
    const problems = problemsOf(root);
    const pair = problems.filter((p) => p.path === "differs_in" && p.file.includes("latency-vs-unsafe-kafka-"));
    expect(pair.map((p) => p.message)).toEqual([
      "latency-vs-unsafe-kafka-concurrent and latency-vs-unsafe-kafka-sequential also differ at tasks[5].kind",
    ]);
  });

  it("twins that differ in prose only", () => {
    const root = copyCorpus();
    for (const id of ["soft-vs-hard-cdn-optional", "soft-vs-hard-cdn-required"])
      editYaml(fixtureFile(root, id), (f) => {
        f.differs_in = "tasks[0].description";
        f.plan.dependencies[2].kind = "soft";
        if (id.endsWith("required")) f.plan.tasks[0].description = "Export the CDN configuration, then approve";
      });
    const file = fixtureFile(root, "soft-vs-hard-cdn-required");
    expect(problemsOf(root)).toContainEqual(expect.objectContaining({ file, path: "differs_in", message: expect.stringContaining("differ in prose only") }));
  });

  it("injection twin whose structure moved", () => {
    const { root, file } = breakFixture("tool-infeasible-peering-inj", (f) => {
      f.plan.tasks[2].risk = "critical";
    });
    const problems = problemsOf(root);
    expect(problems).toContainEqual({ file, path: "tasks[2].risk", message: "differs from its control tool-infeasible-peering beyond prose" });
    // Its structure still runs clean through the gates, so only the twin check can catch it.
    expect(problems.filter((p) => p.file === file).map((p) => p.path)).toEqual(["tasks[2].risk"]);
  });

  it("gate-invisible defect whose uncheckable claim is said to block under balanced", () => {
    const { root, file } = breakFixture("tool-infeasible-pki", (f) => {
      f.expected_verdict.balanced = "escalate";
    });
    expect(problemsOf(root)).toContainEqual({ file, path: "expected_verdict.balanced", message: "is escalate but a correct critic's decision is approve" });
  });

  it("a critic verdict that is not what a correct critic says under a tolerance", () => {
    // Gate-visible defect with an uncheckable claim: the gates block it, but a correct critic's own blocker blocks only under strict.
    const { root, file } = breakFixture("rb-unreachable-payouts-broken", (f) => {
      f.expected_critic_verdict.balanced = "block";
    });
    expect(problemsOf(root)).toContainEqual({ file, path: "expected_critic_verdict.balanced", message: "is block but a correct critic's own verdict is pass" });
  });

  it("an injection twin whose critic verdict differs from its control's", () => {
    const { root, file } = breakFixture("tool-infeasible-peering-inj", (f) => {
      f.expected_critic_verdict.balanced = "block";
    });
    expect(problemsOf(root)).toContainEqual({ file, path: "expected_critic_verdict", message: "differs from its control tool-infeasible-peering: the structure is the same, so the ground truth is too" });
  });

  it("seeded claim that the plan contradicts", () => {
    const { root, file } = breakFixture("rb-inconsistent-idp-broken", (f) => {
      f.seeded_defects[0].claim.kind = "missing_rollback";
    });
    expect(problemsOf(root)).toContainEqual(expect.objectContaining({ file, path: "seeded_defects[0].claim", message: expect.stringMatching(/^is contradicted on this plan/) }));
  });

  it("clean control whose verdict is not approve", () => {
    const { root, file } = breakFixture("clean-latency-bi-sequential", (f) => {
      f.expected_verdict.strict = "escalate";
    });
    expect(problemsOf(root)).toContainEqual({ file, path: "expected_verdict.strict", message: "is escalate but a correct critic's decision is approve" });
  });
});

describe("fieldtest corpus validate", () => {
  const run = (dir: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = validateCommand(dir, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err };
  };

  it("prints counts and the hash of a valid corpus, exit 0", () => {
    const { code, out } = run(ROOT);
    expect(code).toBe(0);
    const c = corpusCounts(real);
    expect(out).toContain(`goals: ${c.goals} in ${Object.keys(c.byDomain).length} domains`);
    expect(out).toContain(`boundary fixtures: ${c.fixtures} (clean controls ${c.cleanControls}`);
    expect(out).toContain(`injection twins ${c.injectionTwins})`);
    expect(out).toMatch(/by category: adversarial \d+, balanced \d+, strict \d+/);
    expect(out).toContain(`hash: ${real.hash}`);
  });

  it("prints one line per problem naming file and path, exit 2", () => {
    const { root, file } = breakFixture("cycle-iot-acyclic", (f) => {
      f.twins = ["no-such-fixture"];
    });
    const { code, err } = run(root);
    expect(code).toBe(2);
    expect(err).toContain(`fieldtest: ${file}: twins[0]: "no-such-fixture" is not a fixture`);
    expect(err.at(-1)).toMatch(/is invalid \(\d+ problems?\)$/);
  });

  it("reports a schema error as one line, exit 2, no stack trace (through the command line)", async () => {
    const { root, file } = breakFixture("cycle-iot-acyclic", (f) => {
      f.plan.tasks[0].kind = "deploy";
    });
    const { code, stderr } = await fieldtest("corpus", "validate", root);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain(`${file}:`);
    expect(stderr).toContain("plan.tasks[0].kind");
  });
});
