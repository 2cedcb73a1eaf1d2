import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { TrialRecordSchema, type TrialRecord } from "../../src/formats/records.ts";

/** The stand-in engine the tests field-test (plain Node, run by this Node). */
const STAND_IN = join(PACKAGE_ROOT, "test", "tools", "stand-in-engine.mjs");

export const engineDir = () => mkdtempSync(join(tmpdir(), "ft-engine-"));

interface StandInOptions {
  protocol?: "command" | "worker";
  /** Misbehaviours (test/tools/stand-in-engine.mjs --mode). */
  modes?: string[];
  timeoutS?: number;
  /** Extra stand-in arguments. */
  args?: string[];
  /** Manifest keys to add or replace. */
  extra?: Record<string, unknown>;
}

/** Writes a manifest for the stand-in engine into `dir` and returns its path. */
export function standInManifest(dir: string, o: StandInOptions = {}, name = "stand-in.yaml"): string {
  const protocol = o.protocol ?? "command";
  const args = [...(o.modes?.length ? ["--mode", o.modes.join(",")] : []), ...(o.args ?? [])];
  const roles = Object.fromEntries(
    ["PLANNER", "CRITIC"].flatMap((r) => {
      const role = r.toLowerCase();
      return [
        [`STANDIN_${r}_URL`, `{${role}.base_url}`],
        [`STANDIN_${r}_KEY`, `{${role}.token}`],
        [`STANDIN_${r}_MODEL`, `{${role}.model}`],
      ];
    }),
  );
  const manifest = {
    name: "stand-in",
    protocol,
    speaks: "openai",
    start:
      protocol === "command"
        ? { argv: [process.execPath, STAND_IN, "--goal", "{goal_file}", ...args], env: roles, timeout_s: o.timeoutS ?? 30 }
        : { argv: [process.execPath, STAND_IN, "--protocol", "worker", ...args], timeout_s: o.timeoutS ?? 30 },
    version: { argv: [process.execPath, STAND_IN, "--version"] },
    ...o.extra,
  };
  const file = join(dir, name);
  writeFileSync(file, stringify(manifest));
  return file;
}

export function trialsOf(runDir: string): TrialRecord[] {
  return readFileSync(join(runDir, "trials.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => TrialRecordSchema.parse(JSON.parse(l)));
}

export function summaryOf(runDir: string): { metrics: Record<string, { value: number | null; numerator?: number; denominator?: number }> } {
  return JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8"));
}

/** `run` arguments that serve both roles from an OpenAI-compatible server. */
export const served = (url: string, model = "stand-in-model") => ["--provider", "openai", "--model", model, "--base-url", url];
