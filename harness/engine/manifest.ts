import { dirname, resolve } from "node:path";
import { z } from "zod";
import { sha256 } from "../../src/canonical.ts";
import { InputError, loadFile, readText } from "../../src/formats/load.ts";
import type { LiveProvider } from "../../src/providers/registry.ts";
import { placeholdersIn, variablesIn, CREDENTIAL_VARIABLE } from "./template.ts";

/** The wire formats the recording proxy serves (proxy.ts): an engine speaks one, and each role's provider must be it. */
export const ENGINE_WIRES = ["openai", "anthropic"] as const satisfies readonly LiveProvider[];
export type EngineWire = (typeof ENGINE_WIRES)[number];

/** How fieldtest hands an engine its goal and reads its result back: its own formats, or a named built-in translator. */
export const GOAL_FORMATS = ["fieldtest", "planner-critic"] as const;
const RESULT_FORMATS = ["fieldtest", "planner-critic"] as const;

/** What each role's placeholders give: the proxy's URL for the role, the model to ask for, the trial's token. */
const ROLE_FIELDS = ["base_url", "model", "token"] as const;
const ROLE_PLACEHOLDERS = ["planner", "critic"].flatMap((role) => ROLE_FIELDS.map((f) => `${role}.${f}`));

/** `{name}`s fieldtest fills for one trial (the command protocol, and every file it writes for the trial). */
const TRIAL_PLACEHOLDERS = ["trial_dir", "goal_id", "trial", "trial_key", "goal_file", "config_file", ...ROLE_PLACEHOLDERS] as const;
/** `{name}`s a long-lived worker is started with: its slot, and a folder of its own. */
const WORKER_PLACEHOLDERS = ["slot", "slot_dir"] as const;

const text = z.string().min(1);
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");

const NormalizeRuleSchema = z
  .strictObject({
    /** A JavaScript regular expression, applied (globally) to the canonical JSON text of each request body. */
    pattern: text,
    replace: z.string(),
  })
  .superRefine((rule, ctx) => {
    try {
      new RegExp(rule.pattern, "g");
    } catch (e) {
      ctx.addIssue({ code: "custom", path: ["pattern"], message: `not a regular expression: ${(e as Error).message}` });
    }
  });

/**
 * An engine manifest (`fieldtest schema engine`): how to start an external planner–critic engine
 * for a trial, hand it its goal, point its roles at the recording proxy, and read its result.
 * docs/reference/engine-protocol.md describes it field by field.
 */
export const EngineManifestSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lower-case letters, digits, '.', '_' and '-'"),
    description: z.string().optional(),
    /** `command`: one process per trial; `worker`: one long-lived process per concurrency slot, a JSON line per trial each way. */
    protocol: z.enum(["command", "worker"]),
    /** The wire format the engine's LLM calls are in: each role's provider must speak it. */
    speaks: z.enum(ENGINE_WIRES),
    start: z.strictObject({
      argv: z.array(text).min(1),
      cwd: text.optional(),
      /**
       * Added to fieldtest's environment, from which every variable that looks like a credential is
       * removed first (an engine that reads its key from OPENAI_API_KEY is given `{planner.token}` there).
       */
      env: z.record(envName, z.string()).default({}),
      /** How long one trial may take before the engine is stopped and the trial is `engine_timeout`. */
      timeout_s: z.number().positive().max(86_400).default(600),
      /** Exit codes of a finished trial (command protocol): an engine whose exit code carries no verdict lists more than 0. */
      ok_exit_codes: z.array(z.number().int()).min(1).default([0]),
    }),
    /** A command that prints the engine's version (its first line is recorded in the run's manifest), with its own additions to the environment. */
    version: z.strictObject({ argv: z.array(text).min(1), env: z.record(envName, z.string()).default({}) }).optional(),
    goal: z
      .strictObject({
        format: z.enum(GOAL_FORMATS).default("fieldtest"),
        /** Where the goal file is written for the command protocol. */
        path: text.default("{trial_dir}/goal.json"),
      })
      .default({ format: "fieldtest", path: "{trial_dir}/goal.json" }),
    /** A configuration file written for every trial from a template (relative to the manifest) with the trial's placeholders. */
    config: z.strictObject({ template: text, path: text }).optional(),
    result: z
      .strictObject({
        format: z.enum(RESULT_FORMATS).default("fieldtest"),
        /** `stdout`: the last JSON line the engine prints; `file`: the file at `path` once it exits. */
        from: z.enum(["stdout", "file"]).default("stdout"),
        path: text.optional(),
      })
      .default({ format: "fieldtest", from: "stdout" }),
    /** What differs from run to run in an engine's requests without changing them (a timestamp): replaced before a request is keyed for replay. */
    replay: z.strictObject({ normalize: z.array(NormalizeRuleSchema).default([]) }).default({ normalize: [] }),
  })
  .superRefine((m, ctx) => {
    const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: "custom", path, message });
    if (m.result.from === "file" && m.result.path === undefined) issue(["result", "path"], "a result read from a file needs its path");
    if (m.result.from === "stdout" && m.result.path !== undefined) issue(["result", "path"], "a result read from stdout has no path");
    if (m.protocol === "worker") {
      if (m.result.from !== "stdout") issue(["result", "from"], "a worker answers on stdout, one JSON line per trial");
      if (m.config !== undefined) issue(["config"], "a worker gets each trial's roles in its input line, not in a file");
      if (m.start.ok_exit_codes.length !== 1 || m.start.ok_exit_codes[0] !== 0)
        issue(["start", "ok_exit_codes"], "a worker's exit ends its slot, whatever its code");
    }
    const startNames: readonly string[] = m.protocol === "command" ? TRIAL_PLACEHOLDERS : WORKER_PLACEHOLDERS;
    const fields: [PropertyKey[], string, readonly string[]][] = [
      ...m.start.argv.map((a, i): [PropertyKey[], string, readonly string[]] => [["start", "argv", i], a, startNames]),
      ...(m.start.cwd === undefined ? [] : [[["start", "cwd"], m.start.cwd, startNames] as [PropertyKey[], string, readonly string[]]]),
      ...Object.entries(m.start.env).map(([k, v]): [PropertyKey[], string, readonly string[]] => [["start", "env", k], v, startNames]),
      ...(m.version?.argv ?? []).map((a, i): [PropertyKey[], string, readonly string[]] => [["version", "argv", i], a, []]),
      ...Object.entries(m.version?.env ?? {}).map(([k, v]): [PropertyKey[], string, readonly string[]] => [["version", "env", k], v, []]),
      [["goal", "path"], m.goal.path, TRIAL_PLACEHOLDERS.filter((p) => p !== "goal_file")],
      ...(m.config
        ? [[["config", "path"], m.config.path, TRIAL_PLACEHOLDERS.filter((p) => p !== "config_file")] as [PropertyKey[], string, readonly string[]]]
        : []),
      ...(m.result.path === undefined ? [] : [[["result", "path"], m.result.path, TRIAL_PLACEHOLDERS] as [PropertyKey[], string, readonly string[]]]),
    ];
    for (const [path, value, allowed] of fields) {
      const unknown = placeholdersIn(value).find((p) => !allowed.includes(p));
      if (unknown !== undefined)
        issue(path, `{${unknown}} is not filled here (${allowed.length ? allowed.map((p) => `{${p}}`).join(", ") : "no {placeholder} is"})`);
      const credential = variablesIn(value).find((v) => CREDENTIAL_VARIABLE.test(v));
      if (credential !== undefined)
        issue(path, `\${${credential}} looks like a credential: an engine never gets one (give it {planner.token} or {critic.token})`);
    }
  });
export type EngineManifest = z.output<typeof EngineManifestSchema>;

/** A manifest as loaded: its file, its config template's text, and the hash of both (what can change a result). */
export interface LoadedEngine {
  file: string;
  manifest: EngineManifest;
  /** The config template's text, read once; null without `config`. */
  template: string | null;
  /** SHA-256 over the manifest's text and the template's: recorded in the run and covered by its config hash. */
  sha256: string;
}

/** Reads and checks an engine manifest: bad input (exit 2) names the file, the key path and the line. */
export function loadEngineManifest(file: string): LoadedEngine {
  const manifest = loadFile(file, EngineManifestSchema);
  const manifestText = readText(file);
  let template: string | null = null;
  if (manifest.config) {
    const templateFile = resolve(dirname(file), manifest.config.template);
    template = readText(templateFile);
    const unknown = placeholdersIn(template).find((p) => !(TRIAL_PLACEHOLDERS as readonly string[]).includes(p));
    if (unknown !== undefined)
      throw new InputError(
        templateFile,
        "",
        `{${unknown}} is not a placeholder fieldtest fills (${TRIAL_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}; {{ for a literal {)`,
      );
    const credential = variablesIn(template).find((v) => CREDENTIAL_VARIABLE.test(v));
    if (credential !== undefined)
      throw new InputError(templateFile, "", `\${${credential}} looks like a credential: an engine never gets one (give it {planner.token} or {critic.token})`);
  }
  return { file, manifest, template, sha256: sha256(`${manifestText}\n${template ?? ""}`) };
}
