import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { InputError } from "../../src/formats/load.ts";
import { snapshotOfLoaded } from "../baseline/io.ts";
import { makeOutputDir } from "../output.ts";
import { loadRun, runWarnings } from "../run/load.ts";
import { RUN_FILES, writeFileAtomic, writeJsonAtomic } from "../run/store.ts";
import { renderResearchHtml } from "./html.ts";
import { renderResearchMarkdown } from "./markdown.ts";
import type { Research, ResearchRun } from "./model.ts";

/** The files `fieldtest research` writes into its --out folder. */
export const RESEARCH_FILES = { html: "research.html", md: "research.md", json: "research.json" } as const;

const isRun = (dir: string) => existsSync(join(dir, RUN_FILES.manifest));

/** Run directories named on the command line: a run itself, or a folder of runs (an import's --out) meaning every run in it. */
function expandRuns(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p) || !statSync(p).isDirectory()) throw new InputError(p, "RUNS", "not a directory");
    if (isRun(p)) return [p];
    const inside = readdirSync(p, { withFileTypes: true })
      .filter((e) => e.isDirectory() && isRun(join(p, e.name)))
      .map((e) => join(p, e.name))
      .sort();
    if (inside.length === 0) throw new InputError(p, "RUNS", `neither a run directory (no ${RUN_FILES.manifest}) nor a folder of runs`);
    return inside;
  });
}

/** A run's name in the report: an imported run's source run, else its folder; repeated names get a number. */
function labels(runs: readonly { dir: string; imported: string | null }[]): string[] {
  const seen = new Map<string, number>();
  return runs.map((r) => {
    const base = r.imported ?? basename(resolve(r.dir));
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} (${n})`;
  });
}

/**
 * Read every run (each with its summary and snapshot), ordered by start time: research is a
 * history, oldest first. Each run's warnings are said on `warn`.
 */
export function loadResearchRuns(paths: readonly string[], corpusRoot: string, warn?: (line: string) => void): ResearchRun[] {
  const dirs = [...new Set(expandRuns(paths).map((d) => resolve(d)))];
  const loaded = dirs.map((dir) => loadRun(dir, corpusRoot));
  for (const line of loaded.flatMap(runWarnings)) warn?.(line);
  loaded.sort((a, b) => (a.manifest.started_at < b.manifest.started_at ? -1 : a.manifest.started_at > b.manifest.started_at ? 1 : a.dir < b.dir ? -1 : 1));
  const names = labels(
    loaded.map((r) => ({ dir: r.dir, imported: ((r.manifest.fingerprint.import as { run?: unknown } | undefined)?.run as string | undefined) ?? null })),
  );
  return loaded.map((run, i) => ({ label: names[i]!, run, snapshot: snapshotOfLoaded(run, names[i]) }));
}

/** Write research.html, research.md and research.json into `out`; returns their paths. */
export function writeResearch(out: string, r: Research): string[] {
  makeOutputDir(out, "--out");
  const paths = { html: join(out, RESEARCH_FILES.html), md: join(out, RESEARCH_FILES.md), json: join(out, RESEARCH_FILES.json) };
  writeFileAtomic(paths.html, renderResearchHtml(r));
  writeFileAtomic(paths.md, renderResearchMarkdown(r));
  writeJsonAtomic(paths.json, r);
  return Object.values(paths);
}
