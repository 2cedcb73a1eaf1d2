import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { instrumentedEngine } from "./fixtures/instrumented.ts";
import { cli, smallCorpus, tempDir, testHost } from "./helpers.ts";

/** How a storage failure reads: a full disk, or a folder that may no longer be written. */
const FAILURES = { ENOSPC: "ENOSPC: no space left on device, write", EACCES: "EACCES: permission denied, write" } as const;

/** Runs `body` while the file system answers the `nth` write of a trial record with `code`, as a full disk or a folder made unwritable does. */
function withFailingDiskAt<T>(nth: number, code: keyof typeof FAILURES, body: () => Promise<T>): Promise<T> {
  let trialLines = 0;
  return withFailingWrites((data) => typeof data === "string" && data.startsWith('{"schema_version":1,"suite":') && ++trialLines === nth, code, body);
}

/** Runs `body` while the file system answers every write `fails` picks with `code`. */
async function withFailingWrites<T>(fails: (data: unknown) => boolean, code: keyof typeof FAILURES, body: () => Promise<T>): Promise<T> {
  const real = fs.writeSync;
  fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fails(data)) throw Object.assign(new Error(FAILURES[code]), { code, syscall: "write" });
    return (real as (...a: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  // The compiled modules import writeSync by name: the ESM bindings follow the patched builtin only when synced.
  syncBuiltinESMExports();
  try {
    return await body();
  } finally {
    fs.writeSync = real;
    syncBuiltinESMExports();
  }
}

describe("a run folder whose storage fails", () => {
  it.each(Object.keys(FAILURES) as (keyof typeof FAILURES)[])(
    "%s: stops the run at once, says so in one line with the resume command (exit 3), spends nothing after it, and a resume completes the run",
    async (failure) => {
      const root = tempDir("ft-storage-");
      const corpusRoot = smallCorpus(root, 3, 2);
      const out = join(root, "run");
      const flags = { trials: "2", concurrency: "2", out };
      const host = testHost();
      const started = new Set<string>();
      const code = await withFailingDiskAt(3, failure, () =>
        runSweep(
          cli(flags),
          {},
          instrumentedEngine(corpusRoot, (key) => started.add(key)),
          host,
        ),
      );
      expect(code).toBe(3);
      const atStop = started.size;
      // Let whatever was still queued have its chance to start (it must not).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(host.stderr.text).toContain(
        `\nfieldtest: run ${out}: its records cannot be written (${FAILURES[failure]}); every trial written before is kept. Fix the storage, then resume with:\n  npx --no-install fieldtest run --resume ${out}\n`,
      );
      const kept = readTrialLog(out).records;
      expect(kept).toHaveLength(2);
      // Nothing queued started after the failure: no trial but those in flight made a call.
      expect(started.size).toBe(atStop);
      expect(atStop).toBeLessThanOrEqual(kept.length + 2);

      const resumed = testHost();
      expect(await runSweep(cli({ resume: out }), {}, realEngine({}, corpusRoot), resumed)).toBe(0);
      expect(readTrialLog(out).records).toHaveLength(10);
      expect(readManifest(out).state).toBe("completed");
    },
  );

  it("a resume on a disk still full says so in one line naming the run and the resume command (exit 3), and loses nothing", async () => {
    const root = tempDir("ft-storage-full-");
    const corpusRoot = smallCorpus(root, 2, 1);
    const out = join(root, "run");
    expect(await withFailingDiskAt(2, "ENOSPC", () => runSweep(cli({ trials: "2", concurrency: "1", out }), {}, realEngine({}, corpusRoot), testHost()))).toBe(
      3,
    );
    const kept = readTrialLog(out).records.length;
    const host = testHost();
    // Every write fails: the disk is still full.
    expect(
      await withFailingWrites(
        () => true,
        "ENOSPC",
        () => runSweep(cli({ resume: out }), {}, realEngine({}, corpusRoot), host),
      ),
    ).toBe(3);
    expect(host.stderr.text).toBe(
      `\nfieldtest: run ${out}: its records cannot be written (${FAILURES.ENOSPC}); every trial written before is kept. Fix the storage, then resume with:\n  npx --no-install fieldtest run --resume ${out}\n`,
    );
    expect(readTrialLog(out).records).toHaveLength(kept);
    expect(await runSweep(cli({ resume: out }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
    expect(readTrialLog(out).records).toHaveLength(6);
  });
});
