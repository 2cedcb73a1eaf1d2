// The docs' two report screenshots (docs/report.png, docs/research.png), made from real sim runs.
//
//   node dist/scripts/screenshots.js [WORKDIR] [report|research]     (after `npm ci` or `npm run build`; the browser is the tests')
//
// report.png: the noisy sim profile's sweep decided against baselines/sim-default.json with
// gate.yaml (a regression), its Decision tab. research.png: seven boundary sweeps, the last three
// under the high-miss profile, its Metrics tab with the drift alarms. WORKDIR (default a fresh
// temp folder) keeps the runs; the PNGs are cropped to the first screen to stay small. Naming one
// of the two makes only that one.
import { execa } from "execa";
import { mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT as ROOT } from "../harness/package.ts";
import { browserSession } from "../test/helpers/browser.ts";

const DOCS = join(ROOT, "docs");
const work = process.argv[2] ?? mkdtempSync(join(tmpdir(), "ft-screenshots-"));
const only = process.argv[3];
if (only !== undefined && only !== "report" && only !== "research") throw new Error(`${only}: name report or research`);
const profile = (name: string) => join(ROOT, "src/sim/profiles", `${name}.yaml`);

async function fieldtest(...args: string[]): Promise<void> {
  process.stdout.write(`fieldtest ${args.join(" ")}\n`);
  await execa(process.execPath, [join(ROOT, "bin/fieldtest.js"), ...args], { cwd: ROOT, stdout: "ignore", stderr: "inherit" });
}

const browser = browserSession();

async function shoot(file: string, hash: string, png: string): Promise<void> {
  const p = await browser.openPage(file, { width: 1080, height: 760 });
  try {
    await p.page.evaluate((h) => (location.hash = h), hash);
    await p.page.waitForTimeout(200);
    await p.page.screenshot({ path: png });
    if (p.errors.length || p.requests.length) throw new Error(`${file}: console errors ${JSON.stringify(p.errors)}, requests ${JSON.stringify(p.requests)}`);
  } finally {
    await p.close();
  }
  process.stdout.write(`wrote ${png} (${Math.round(statSync(png).size / 1024)} KB)\n`);
}

mkdirSync(DOCS, { recursive: true });
if (only !== "research") {
  const noisy = join(work, "noisy");
  await fieldtest("run", "--sim-profile", profile("noisy"), "--out", noisy, "--force", "--baseline", "baselines/sim-default.json", "--policy", "gate.yaml");
  await shoot(join(noisy, "report.html"), "#decision", join(DOCS, "report.png"));
}

if (only !== "report") {
  const history = join(work, "history");
  for (let night = 1; night <= 7; night++) {
    const sim = night <= 4 ? [] : ["--sim-profile", profile("high-miss")];
    await fieldtest("run", "--suite", "boundary", "--seed", String(night), ...sim, "--out", join(history, `night-${night}`), "--force");
  }
  await fieldtest("research", history, "--out", join(work, "research"));
  await shoot(join(work, "research", "research.html"), "#metrics", join(DOCS, "research.png"));
}
await browser.close();
