import fc from "fast-check";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mdText } from "../../harness/report/format.ts";
import { writeReport } from "../../harness/report/write.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { fieldtest } from "../helpers/cli.ts";

/** What a Markdown renderer shows for mdText's output: backslash escapes and the three entities undone. */
const rendered = (md: string) =>
  md
    .replace(/\\([\\`*_{}[\]()#+!~])/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Hostile names a run can bring in: a model name, an imported tree's run label. */
const HOSTILE = { critic: "<img src=x onerror=alert(1)>", planner: "[click](javascript:alert(1)) **bold** `code`" };

describe("Markdown escaping", () => {
  it("shows any text as written: what a renderer shows is the text, a line break a space", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", " ", "<", ">", "&", "\\", "`", "*", "_", "[", "]", "(", ")", "#", "!", "~", "\n", "é", "|"), maxLength: 40 }),
        (s) => {
          const md = mdText(s);
          expect(md).not.toMatch(/[<>\n\r]/);
          expect(rendered(md)).toBe(s.replace(/\r?\n|\r/g, " "));
        },
      ),
    );
  });

  it("leaves plain words, digits and dashes alone", () => {
    expect(mdText("sim/sim-critic-1 run-2026-12-01T10:00:00Z")).toBe("sim/sim-critic-1 run-2026-12-01T10:00:00Z");
  });
});

describe("report.md and research.md of a run with hostile model names", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "fieldtest-escaping-"));
    const items: ItemSpec[] = [
      { suite: "boundary", id: "seeded-a", verdicts: ["block", "pass", "block"] },
      { suite: "boundary", id: "clean-a", verdicts: ["pass", "pass", "block"] },
    ];
    const hashes = writeCorpus(join(root, "corpus"), [makeFixture("seeded-a", true), makeFixture("clean-a", false)], []);
    for (const name of ["a", "b"])
      writeRunDir(join(root, name), items, hashes, (m) => {
        m.run_id = `run-${name}`;
        // The second run's critic differs, so the model swap names both.
        m.roles.critic.model = name === "a" ? HOSTILE.critic : `${HOSTILE.critic}<b>`;
        m.roles.planner.model = HOSTILE.planner;
      });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("writes every model name inert in report.md, report.html and research.md", async () => {
    writeReport(join(root, "a"), join(root, "corpus"));
    const r = await fieldtest("research", join(root, "a"), join(root, "b"), "--corpus", join(root, "corpus"), "--reps", "100", "--out", join(root, "research"));
    expect(r.code, r.stderr).toBe(0);
    for (const file of [join(root, "a", "report.md"), join(root, "research", "research.md")]) {
      const md = readFileSync(file, "utf8");
      expect(md, file).not.toMatch(/<(img|b)>?/);
      expect(md, file).not.toContain("](javascript:");
      expect(md, file).toContain(mdText(HOSTILE.critic));
    }
    expect(readFileSync(join(root, "a", "report.md"), "utf8")).toContain(`planner: sim/${mdText(HOSTILE.planner)}`);
    // The model swap names the critic change, both sides escaped.
    expect(readFileSync(join(root, "research", "research.md"), "utf8")).toMatch(
      new RegExp(`: ${escapeRe(mdText(HOSTILE.critic))} → ${escapeRe(mdText(`${HOSTILE.critic}<b>`))}$`, "m"),
    );
    const html = readFileSync(join(root, "a", "report.html"), "utf8");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});
