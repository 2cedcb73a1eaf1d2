import { join } from "node:path";
import { PACKAGE_ROOT } from "./package.ts";
import { judgePackCanaries } from "../src/packs/canary.ts";
import type { CompiledPack } from "../src/packs/compile.ts";

/** The domain packs that ship with fieldtest (`packs/<name>/`), found from the sources and from the build alike. */
export const SHIPPED_PACKS_DIR = join(PACKAGE_ROOT, "packs");

/**
 * Judges the packs' own canaries before a command uses their rules (a rule that cannot fire, or
 * fires on its near twin, would pass every plan it should block): on any failure, says so on
 * `stderr` (what was not done, then one line per failure) and returns false.
 */
export function packsBehave(packs: readonly CompiledPack[], stderr: NodeJS.WritableStream, notDone: string): boolean {
  const failures = packCanaryFailures(packs);
  if (failures.length > 0) sayPackFailures(failures, stderr, notDone);
  return failures.length === 0;
}

/** Every canary failure of the packs, one line each. */
export const packCanaryFailures = (packs: readonly CompiledPack[]): string[] => packs.flatMap((p) => judgePackCanaries(p).failures);

/** Says on `stderr` what was not done because a pack failed its canaries, then one line per failure. */
export function sayPackFailures(failures: readonly string[], stderr: NodeJS.WritableStream, notDone: string): void {
  stderr.write(`fieldtest: pack canary failed, ${notDone}:\n  ${failures.join("\n  ")}\n`);
}
