import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CorpusGoalSchema, type CorpusGoal } from "../../src/formats/goal.ts";
import { loadFile } from "../../src/formats/load.ts";

const GOALS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "corpus", "goals");

interface Loaded {
  file: string;
  folder: string;
  goal: CorpusGoal;
}

function goalFiles(): { file: string; folder: string }[] {
  const out: { file: string; folder: string }[] = [];
  for (const folder of readdirSync(GOALS_DIR).sort()) {
    const dir = join(GOALS_DIR, folder);
    if (!statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json")) {
        out.push({ file: join(dir, name), folder });
      }
    }
  }
  return out;
}

const files = goalFiles();
// Parse once; a failure here names file, key path and line (InputError), which is the message we want.
const loaded: Loaded[] = files.map(({ file, folder }) => ({ file, folder, goal: loadFile(file, CorpusGoalSchema) }));

/** First n words, lower-cased, with whitespace normalised. */
function firstWords(text: string, n: number): string {
  return text.trim().toLowerCase().split(/\s+/).slice(0, n).join(" ");
}

function duplicates<T>(items: { key: T; file: string }[]): string[] {
  const seen = new Map<T, string>();
  const dups: string[] = [];
  for (const { key, file } of items) {
    const prev = seen.get(key);
    if (prev !== undefined) dups.push(`${relative(GOALS_DIR, prev)} <-> ${relative(GOALS_DIR, file)}`);
    else seen.set(key, file);
  }
  return dups;
}

describe("goal corpus", () => {
  it("has exactly 170 goal files, each valid under CorpusGoalSchema", () => {
    expect(files.length).toBe(170);
    expect(loaded.length).toBe(170);
  });

  it("has unique ids, and each file is named after its id", () => {
    expect(duplicates(loaded.map((l) => ({ key: l.goal.id, file: l.file })))).toEqual([]);
    const misnamed = loaded.filter((l) => !l.file.endsWith(`/${l.goal.id}.yaml`)).map((l) => l.file);
    expect(misnamed).toEqual([]);
  });

  it("keeps every goal in the folder named after its domain", () => {
    const wrong = loaded.filter((l) => l.goal.domain !== l.folder).map((l) => `${l.file}: domain ${l.goal.domain}`);
    expect(wrong).toEqual([]);
  });

  it("spans at least 40 domains", () => {
    expect(new Set(loaded.map((l) => l.goal.domain)).size).toBeGreaterThanOrEqual(40);
  });

  it("has a category mix within ±5 of 75 balanced / 80 strict / 15 adversarial", () => {
    const count = (c: string) => loaded.filter((l) => l.goal.category === c).length;
    expect(Math.abs(count("balanced") - 75)).toBeLessThanOrEqual(5);
    expect(Math.abs(count("strict") - 80)).toBeLessThanOrEqual(5);
    expect(Math.abs(count("adversarial") - 15)).toBeLessThanOrEqual(5);
  });

  it("matches risk_tolerance to category for balanced and strict goals", () => {
    const wrong = loaded
      .filter((l) => l.goal.category !== "adversarial" && l.goal.category !== l.goal.risk_tolerance)
      .map((l) => l.file);
    expect(wrong).toEqual([]);
  });

  it("has no two equal descriptions", () => {
    const key = (d: string) => d.trim().replace(/\s+/g, " ");
    expect(duplicates(loaded.map((l) => ({ key: key(l.goal.description), file: l.file })))).toEqual([]);
  });

  it("has no two descriptions sharing their first 12 words (case-insensitive, whitespace-normalised)", () => {
    expect(duplicates(loaded.map((l) => ({ key: firstWords(l.goal.description, 12), file: l.file })))).toEqual([]);
  });

  it("gives every goal an environment, tools and facts", () => {
    const missing = loaded
      .filter((l) => !l.goal.constraints.environment || l.goal.constraints.tools.length === 0 || l.goal.constraints.facts.length === 0)
      .map((l) => l.file);
    expect(missing).toEqual([]);
  });

  it("names escalation reasons exactly when escalation is expected", () => {
    const wrong = loaded
      .filter((l) => (l.goal.expect.verdict === "escalate") !== l.goal.expect.escalation_reasons.length > 0)
      .map((l) => l.file);
    expect(wrong).toEqual([]);
  });

  it("expects replan_aborted for every escalating goal under abort policy", () => {
    const wrong = loaded
      .filter((l) => l.goal.expect.verdict === "escalate" && l.goal.replan_policy === "abort")
      .filter((l) => !l.goal.expect.escalation_reasons.includes("replan_aborted"))
      .map((l) => l.file);
    expect(wrong).toEqual([]);
  });

  it("gives every goal a min_tasks and at least one mandatory element", () => {
    const wrong = loaded
      .filter((l) => l.goal.expect.min_tasks === undefined || l.goal.expect.mandatory_elements.length === 0)
      .map((l) => l.file);
    expect(wrong).toEqual([]);
  });
});
