import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { deepFreeze, hashCanonical, sha256 } from "../../src/canonical.ts";
import { FixtureSchema, type Fixture } from "../../src/formats/fixture.ts";
import { CorpusGoalSchema, type CorpusGoal } from "../../src/formats/goal.ts";
import { InputError, parseSource, readTexts, validate, type FileText } from "../../src/formats/load.ts";
import { textMemo } from "../../src/text-memo.ts";
import { generateInjectionSuite, injectionItemHash, type InjectionItem } from "./injection.ts";
import { loadSecuritySuite, securityFiles, securityItemHash, type SecurityItem } from "./security.ts";

/**
 * The goal corpus (`<root>/goals/<domain>/<id>.yaml`) and the boundary fixtures
 * (`<root>/boundary/<id>.yaml`), parsed and hashed. The sweep runner and the baselines record
 * `hash` and `itemHashes`.
 */
export interface Corpus {
  root: string;
  goals: { file: string; goal: CorpusGoal }[];
  fixtures: { file: string; fixture: Fixture }[];
  /** Canonical SHA-256 over every item (see `corpusHash`): any content change moves it. */
  hash: string;
  /** `corpus/<id>` for a goal, `boundary/<id>` for a fixture → canonical SHA-256 of the parsed item. */
  itemHashes: Record<string, string>;
  /** The security oracle's variants (`<root>/security/`), one item each. */
  security: SecurityItem[];
  /** The injection traps generated from the clean controls, and the controls themselves. */
  injection: InjectionItem[];
  /**
   * `security/<id>` and `injection/<id>` → content hash. Kept apart from `itemHashes` and `hash`,
   * which a run records only when it selects these suites (`recordedCorpus`).
   */
  suiteItemHashes: Record<string, string>;
}

/** Suites whose items are recorded in a run's corpus only when the run selects them. */
const OPTIONAL_SUITES = ["security", "injection"] as const;

/**
 * What a run records of the corpus: the goals and boundary fixtures always (so a run of the
 * default suites records what it always did), plus the items of each optional suite it selects;
 * the hash covers exactly the recorded items.
 */
export function recordedCorpus(corpus: Corpus, suites: readonly string[]): { hash: string; items: Record<string, string> } {
  const extra = Object.entries(corpus.suiteItemHashes).filter(([key]) => OPTIONAL_SUITES.some((s) => suites.includes(s) && key.startsWith(`${s}/`)));
  if (extra.length === 0) return { hash: corpus.hash, items: corpus.itemHashes };
  const entries = [...Object.entries(corpus.itemHashes), ...extra];
  return { hash: corpusHash(entries), items: Object.fromEntries(entries) };
}

/** Goal and fixture files may be YAML or JSON (docs/design.md §2); anything else (a README) is not an item. */
const ITEM_FILE = /\.(ya?ml|json)$/;

/** Item files below `dir`, at any depth, sorted so that loading is deterministic. */
function itemFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...itemFiles(path));
    else if (ITEM_FILE.test(name)) out.push(path);
  }
  return out;
}

export const goalItemKey = (id: string) => `corpus/${id}`;
export const fixtureItemKey = (id: string) => `boundary/${id}`;

/**
 * The corpus hash: canonical SHA-256 of the list of `[item key, item hash]` sorted by key, then by
 * hash. A list rather than the `itemHashes` record, so that two items that (invalidly) share a
 * key both still move it.
 */
function corpusHash(items: readonly (readonly [string, string])[]): string {
  const sorted = [...items].sort(([ka, ha], [kb, hb]) => (ka < kb ? -1 : ka > kb ? 1 : ha < hb ? -1 : ha > hb ? 1 : 0));
  return hashCanonical(sorted);
}

/**
 * Corpora loaded in this process, by root and the paths and texts of their files: a sweep loads
 * its corpus again for its reports, and a test process loads the same corpus dozens of times; an
 * edited corpus is loaded again. A kept corpus is deeply frozen, since every caller shares it.
 */
const loaded = textMemo<Corpus>(8);

/** Load and schema-check every item; the first bad file throws an InputError naming file and key path. */
export function loadCorpus(root = "corpus"): Corpus {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new InputError(root, "", "corpus folder not found");
  if (!existsSync(join(root, "goals")) && !existsSync(join(root, "boundary")))
    throw new InputError(root, "", "not a corpus folder: it has neither goals/ nor boundary/");
  const goals = readTexts(itemFiles(join(root, "goals")));
  const fixtures = readTexts(itemFiles(join(root, "boundary")));
  const security = readTexts(securityFiles(root));
  const fingerprint = sha256([root, ...[...goals, ...fixtures, ...security].flatMap(({ file, text }) => [file, text])].join("\u0000"));
  return loaded(fingerprint, () => deepFreeze(parseCorpus(root, goals, fixtures, security)));
}

function parseCorpus(root: string, goalTexts: readonly FileText[], fixtureTexts: readonly FileText[], securityTexts: readonly FileText[]): Corpus {
  const goals = goalTexts.map(({ file, text }) => ({ file, goal: validate(parseSource(file, text), CorpusGoalSchema) }));
  const fixtures = fixtureTexts.map(({ file, text }) => ({ file, fixture: validate(parseSource(file, text), FixtureSchema) }));
  const items: [string, string][] = [
    ...goals.map(({ goal }) => [goalItemKey(goal.id), hashCanonical(goal)] as [string, string]),
    ...fixtures.map(({ fixture }) => [fixtureItemKey(fixture.id), hashCanonical(fixture)] as [string, string]),
  ];
  const security = loadSecuritySuite(root, securityTexts);
  const injection = generateInjectionSuite(fixtures.map((f) => f.fixture));
  const suiteItemHashes = Object.fromEntries([
    ...security.map((s) => [`security/${s.id}`, securityItemHash(s)]),
    ...injection.map((i) => [`injection/${i.id}`, injectionItemHash(i)]),
  ]);
  return { root, goals, fixtures, hash: corpusHash(items), itemHashes: Object.fromEntries(items), security, injection, suiteItemHashes };
}
