// Second half of `npm run build` (after tsc): copies every non-TypeScript file under src/ and
// harness/ (prompts, schemas, the price table, sim profiles) to the same place under dist/, so
// the compiled modules find them beside themselves exactly as the sources do.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../harness/package.ts";

const isSource = (path: string) => /\.tsx?$/.test(path);
for (const dir of ["src", "harness"]) {
  cpSync(join(PACKAGE_ROOT, dir), join(PACKAGE_ROOT, "dist", dir), { recursive: true, filter: (path) => !isSource(path) });
}
