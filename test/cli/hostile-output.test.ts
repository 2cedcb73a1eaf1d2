import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { call } from "../metrics/builders.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { handBuiltRuns, runReaders, TWO_ITEMS, type HandBuiltRuns } from "../helpers/hand-built-runs.ts";

/**
 * Text a model, a server or a run folder may hold that a terminal acts on: a window title (OSC 0),
 * a colour, a hyperlink (OSC 8), a C1 control sequence introducer, a carriage return, a NUL.
 */
const HOSTILE = "\u001b]0;pwned\u0007\u001b[31mRED\u001b]8;;http://evil.example\u001b\\link\u001b]8;;\u001b\\\u009b2J\r\u0000";
/** The same in a file name (no NUL, no slash). */
const HOSTILE_NAME = HOSTILE.replace(/[\u0000/]/g, "");
/** What a terminal acts on: C0 controls but tab and newline, DEL, C1. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let h: HandBuiltRuns;
let hostile: string;
let inputs: { goal: string; plan: string; response: string; policy: string };

beforeAll(async () => {
  h = await handBuiltRuns("ft-hostile-");
  // A run whose folder name, blocker keys, reported model, fingerprint, raw text and manifest are hostile.
  hostile = join(h.root, `run-${HOSTILE_NAME}`);
  const [seeded, clean] = TWO_ITEMS as [ItemSpec, ItemSpec];
  writeRunDir(
    hostile,
    [{ ...seeded, verdicts: seeded.verdicts.map(() => "block"), keys: seeded.verdicts.map(() => [`critic:${HOSTILE}:change`]) }, clean],
    h.hashes,
    (m) => {
      m.run_id = `hostile-${HOSTILE}`;
      m.command = ["fieldtest", "run", HOSTILE];
      m.roles.critic.model = `sim-critic${HOSTILE}`;
    },
    (t) => {
      t.calls = [{ ...call(), reported: { model: `gpt${HOSTILE}`, system_fingerprint: HOSTILE }, raw_text: HOSTILE }];
    },
  );
  const dir = join(h.root, "inputs");
  mkdirSync(dir);
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  inputs = {
    goal: file("goal.json", JSON.stringify({ id: "g", domain: "d", title: HOSTILE, description: HOSTILE, risk_tolerance: "strict" })),
    plan: file("plan.json", JSON.stringify({ id: "p", goal_id: "g", tasks: [{ id: "look", description: HOSTILE, kind: "read" }], dependencies: [] })),
    response: file(
      "response.json",
      JSON.stringify({ findings: [{ task_id: "look", family: HOSTILE, severity: "high", message: HOSTILE, evidence: { claim: HOSTILE } }] }),
    ),
    policy: file(
      "policy.yaml",
      [
        "version: 1",
        `description: ${JSON.stringify(HOSTILE)}`,
        "min_trials_per_item: 3",
        "floors:",
        "  - { metric: critic_unavailable_rate, max: 0.1 }",
        "",
      ].join("\n"),
    ),
  };
});

describe("every command's output", () => {
  it("shows the control characters of hostile fields as escapes (\\x1b), never as themselves", async () => {
    const c = ["--corpus", h.corpus];
    const commands = [
      ...runReaders(h, hostile, join(h.root, "out"), { resume: true }),
      ["diff", hostile, "--baseline", h.baseline, "--all", ...c],
      ["gate", hostile, "--baseline", h.baseline, "--policy", inputs.policy, ...c],
      ["trend", h.other, hostile, "--all", ...c],
      ["check", "--goal", inputs.goal, "--plan", inputs.plan],
      ["critique", "--goal", inputs.goal, "--plan", inputs.plan, "--response", inputs.response],
      ["plan", "--goal", inputs.goal],
      ["corpus", "validate", hostile],
      ["report", join(h.root, `missing-${HOSTILE_NAME}`)],
    ];
    const printed: string[] = [];
    for (const args of commands) {
      const r = await runFieldtest(args);
      for (const text of [r.stdout, r.stderr]) {
        expect(text, `${args[0]}: ${JSON.stringify(text).slice(0, 400)}`).not.toMatch(CONTROL);
        printed.push(text);
      }
    }
    // JSON output stays JSON of the same value: its controls are JSON escapes, which the terminal shows as text.
    for (const args of [
      ["diff", hostile, "--baseline", h.baseline, "--json", ...c],
      ["critique", "--goal", inputs.goal, "--plan", inputs.plan, "--response", inputs.response, "--json"],
    ]) {
      const r = await runFieldtest(args);
      expect(r.stdout, args[0]).not.toMatch(CONTROL);
      // Parsed back, it holds the hostile text itself (a blocker key for diff, a message for critique).
      expect(JSON.stringify(JSON.parse(r.stdout)), args[0]).toContain(JSON.stringify(HOSTILE).slice(1, -1));
    }
    // The test can fail: the hostile text reached the output, escaped.
    const all = printed.join("\n");
    expect(all).toContain("\\x1b]0;pwned\\x07\\x1b[31mRED");
    expect(all).toContain("\\x9b2J\\x0d");
    expect(all).toContain(`critic:\\x1b]0;pwned`);
  });
});
