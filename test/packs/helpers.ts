import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";

/** A goal every test pack's canaries share. */
const CANARY_GOAL = { id: "canary", domain: "canary", title: "Pack canary", description: "Pins one rule", risk_tolerance: "strict", constraints: { environment: "production" } };

export const plan = (tasks: Record<string, unknown>[], dependencies: Record<string, unknown>[] = []) => ({ id: "p", goal_id: "canary", tasks, dependencies });

/** A one-rule pack: `open` fires when a task sets attribute `open` true. Its canaries cover it unless told otherwise. */
export function rulePack(overrides: { rule?: Record<string, unknown>; manifest?: Record<string, unknown>; cases?: Record<string, unknown>[] } = {}) {
  const manifest = {
    name: "test",
    version: "1.0.0",
    description: "A pack for tests",
    attributes: { open: { type: "boolean", description: "Whether the task opens something" } },
    rules: [{ code: "opened", family: "risk", description: "Nothing is opened", when: "task.attributes.open == true", message: "task {{task.id}} opens it", ...overrides.rule }],
    ...overrides.manifest,
  };
  const cases = overrides.cases ?? [
    { name: "open", note: "Opens", fires: ["opened"], plan: plan([{ id: "a", description: "A", kind: "mutate", attributes: { open: true } }]) },
    { name: "closed", note: "Does not", silent_for: ["opened"], plan: plan([{ id: "a", description: "A", kind: "mutate", attributes: { open: false } }]) },
  ];
  return { manifest, canaries: { "rules.yaml": { description: "Canaries", goal: CANARY_GOAL, cases } } };
}

/** Write a pack folder (pack.yaml, canaries/<file>) under a fresh temporary directory; returns its path. */
export function writePack(pack: { manifest: unknown; canaries: Record<string, unknown> }, raw?: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "ft-pack-")), "pack");
  mkdirSync(join(dir, "canaries"), { recursive: true });
  writeFileSync(join(dir, "pack.yaml"), raw ?? stringify(pack.manifest));
  for (const [name, content] of Object.entries(pack.canaries)) writeFileSync(join(dir, "canaries", name), stringify(content));
  return dir;
}
