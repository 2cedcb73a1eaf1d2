import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError } from "../../src/formats/load.ts";
import { trialKey, type SpendLine, type TrialRecord } from "../../src/formats/records.ts";
import { readManifest, totalsOf } from "./manifest.ts";
import { readSpend, SpendTally } from "./journal.ts";
import { JsonlLog } from "./jsonl.ts";
import { claimOutDir, removeRunFiles } from "./lock.ts";
import { readTrialLog, RUN_FILES, trialHead, TrialLog, writeJsonAtomic, type Duplicate } from "./store.ts";
import { planTrials } from "./work.ts";
import { MANIFEST_SCHEMA_VERSION, type Manifest } from "../../src/formats/manifest.ts";
import type { RunSuite } from "../../src/formats/run-config.ts";

interface MergeInput {
  dir: string;
  manifest: Manifest;
  records: TrialRecord[];
  /** The run's spend journal: the merged run's spend is its inputs'; null when the run has none (manifest v1). */
  spend: SpendLine[] | null;
  /** Keys its log holds twice with the same record (read once; merge warns of them). */
  duplicates: Duplicate[];
}

/** The trial keys a run's manifest plans (all shards together). */
function plannedKeys(manifest: Manifest): string[] {
  const items = manifest.plan.items.map((key) => {
    const slash = key.indexOf("/");
    return { suite: key.slice(0, slash) as RunSuite, item_id: key.slice(slash + 1) };
  });
  return planTrials(items, manifest.plan.trials).map((t) => t.key);
}

const sample = (keys: readonly string[]) => `${keys.slice(0, 5).join(", ")}${keys.length > 5 ? `, ... (${keys.length} in all)` : ""}`;

/**
 * Checks that the runs can be one: same config hash and corpus hash, every planned key present
 * exactly once across them, nothing outside the plan. Returns the records in key order.
 */
function checkMergeable(inputs: readonly MergeInput[]): TrialRecord[] {
  const [first, ...rest] = inputs;
  if (!first) throw new InputError("command line", "DIR...", "give at least one run directory");
  for (const other of rest) {
    if (other.manifest.config_hash !== first.manifest.config_hash) {
      throw new InputError(
        other.dir,
        "config_hash",
        `differs from ${first.dir} (${other.manifest.config_hash.slice(0, 12)} vs ${first.manifest.config_hash.slice(0, 12)}): the runs were made with different settings or code`,
      );
    }
    if (other.manifest.corpus.hash !== first.manifest.corpus.hash) {
      throw new InputError(other.dir, "corpus.hash", `differs from ${first.dir}: the runs saw different corpora`);
    }
  }
  const owner = new Map<string, string>();
  const duplicated: string[] = [];
  let firstDuplicateIn: string | undefined;
  const records: TrialRecord[] = [];
  for (const input of inputs) {
    for (const r of input.records) {
      const key = trialKey(r);
      const seen = owner.get(key);
      if (seen !== undefined) {
        duplicated.push(`${key} (${seen} and ${input.dir})`);
        firstDuplicateIn ??= input.dir;
      }
      owner.set(key, input.dir);
      records.push(r);
    }
  }
  if (firstDuplicateIn !== undefined)
    throw new InputError(firstDuplicateIn, RUN_FILES.trials, `trial keys recorded in more than one run: ${sample(duplicated)}`);
  const planned = plannedKeys(first.manifest);
  const plannedSet = new Set(planned);
  const extra = [...owner.keys()].filter((k) => !plannedSet.has(k));
  if (extra.length) throw new InputError(owner.get(extra[0]!)!, RUN_FILES.trials, `trial keys outside the plan: ${sample(extra)}`);
  const missing = planned.filter((k) => !owner.has(k));
  if (missing.length)
    throw new InputError("command line", "DIR...", `trial keys missing from every run (a shard not given, or not completed): ${sample(missing)}`);
  const order = new Map(planned.map((k, i) => [k, i]));
  return records.sort((a, b) => order.get(trialKey(a))! - order.get(trialKey(b))!);
}

export function loadMergeInput(dir: string): MergeInput {
  const manifest = readManifest(dir);
  const log = readTrialLog(dir);
  const spend: SpendLine[] = [];
  const { journaled } = readSpend(dir, (line) => spend.push(line));
  return { dir, manifest, records: log.records, spend: journaled ? spend : null, duplicates: log.duplicates };
}

function sameFolder(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(a) === real(b);
}

/**
 * Writes one run from shard runs: every record once, in key order, and the merged manifest last.
 * A merge that fails removes what it wrote; one that is killed leaves its lock saying its output is
 * rebuildable, so the next merge into the folder removes the remains (the inputs still hold them).
 */
export function mergeRuns(
  inputs: readonly MergeInput[],
  out: string,
  opts: { now: () => Date; runId: string; command: string[]; force: boolean; breakLock?: boolean; notify?: (line: string) => void },
): Manifest {
  const records = checkMergeable(inputs);
  const first = inputs[0]!.manifest;
  const into = inputs.find((i) => sameFolder(i.dir, out));
  if (into) throw new InputError(out, "--out", `is one of the runs being merged (${into.dir}): write the merged run to a folder of its own`);
  const release = claimOutDir(out, { now: opts.now, force: opts.force, breakLock: opts.breakLock, rebuildable: true, notify: opts.notify });
  let written = false;
  try {
    const log = new TrialLog(out);
    for (const r of records) log.append(r);
    log.close();
    // Without every input's journal the merged run's spend is unknown: it gets no journal, not a partial one.
    const journals = inputs.every((i) => i.spend !== null) ? inputs.flatMap((i) => i.spend ?? []) : null;
    const spent = new SpendTally();
    if (journals !== null) {
      const journal = new JsonlLog(join(out, RUN_FILES.spend));
      for (const line of journals) {
        journal.append(line);
        spent.add(line);
      }
      journal.close();
    }
    const canaries = inputs.map((i) => i.manifest.canary);
    const manifest: Manifest = {
      ...first,
      schema_version: MANIFEST_SCHEMA_VERSION,
      run_id: opts.runId,
      state: "completed",
      started_at: inputs.map((i) => i.manifest.started_at).sort()[0]!,
      finished_at: opts.now().toISOString(),
      command: opts.command,
      plan: { ...first.plan, shard: null, shard_planned: first.plan.planned },
      canary: {
        ok: canaries.every((c) => c?.ok === true),
        failures: canaries.flatMap((c, i) => (c === null ? [`${inputs[i]!.dir}: no canary result`] : c.failures.map((f) => `${inputs[i]!.dir}: ${f}`))),
        results: canaries.find((c) => c !== null)?.results ?? null,
      },
      sessions: inputs.flatMap((i) => i.manifest.sessions.map((s) => ({ ...s, spend: journals === null ? null : spent.session(s.id) }))),
      spend: journals === null ? null : spent.total(),
      withheld_credentials: [...new Set(inputs.flatMap((i) => i.manifest.withheld_credentials))],
      totals: totalsOf(records.map(trialHead)),
      merged_from: inputs.map((i) => ({ dir: i.dir, run_id: i.manifest.run_id, shard: i.manifest.plan.shard })),
    };
    writeJsonAtomic(join(out, RUN_FILES.manifest), manifest);
    written = true;
    return manifest;
  } finally {
    let clean = written;
    try {
      if (!written) {
        removeRunFiles(out);
        clean = true;
      }
    } catch {
      // Remains that cannot be removed keep the lock: stale once this process ends, it tells the next merge they are rebuildable.
    }
    if (clean) release();
  }
}
