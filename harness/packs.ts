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
  const failures = packs.flatMap((p) => judgePackCanaries(p).failures);
  if (failures.length > 0) stderr.write(`fieldtest: pack canary failed, ${notDone}:\n  ${failures.join("\n  ")}\n`);
  return failures.length === 0;
}
