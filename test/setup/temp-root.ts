// Every temporary folder of a test run (the tests' own, and those of the CLIs and browsers they
// start, which inherit the environment) is made under one folder that is removed when the run
// ends, so a machine that runs the suite every night does not fill its temporary space.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function tempRoot(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "fieldtest-tests-"));
  // os.tmpdir() reads TMPDIR at each call, here and in the test workers started after this.
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
