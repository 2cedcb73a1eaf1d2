import { randomBytes } from "node:crypto";
import { PACKAGE_VERSION } from "../package.ts";
import { monitorEventLoop } from "../../src/event-loop.ts";
import type { SweepHost } from "../run/sweep.ts";

/**
 * Node's own execFile (a process-spawning library would load more modules than the rest of `run`
 * for two git calls), loaded when `run` asks: every other command starts without it.
 */
async function git(args: string[]): Promise<{ stdout: string }> {
  const [{ execFile }, { promisify }] = await Promise.all([import("node:child_process"), import("node:util")]);
  return promisify(execFile)("git", args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

async function gitInfo(): Promise<{ sha: string | null; dirty: boolean | null }> {
  try {
    const sha = (await git(["rev-parse", "HEAD"])).stdout.trim();
    const status = (await git(["status", "--porcelain"])).stdout;
    return { sha, dirty: status.trim() !== "" };
  } catch {
    return { sha: null, dirty: null };
  }
}

/** This process, as every command runs in it: its command line, environment, streams, clock, signals and git. */
export function realHost(argv: readonly string[]): SweepHost {
  return {
    now: () => new Date(),
    randomId: () => randomBytes(3).toString("hex"),
    argv,
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    onSignal: (handler) => {
      const onInt = () => handler("SIGINT");
      const onTerm = () => handler("SIGTERM");
      process.on("SIGINT", onInt);
      process.on("SIGTERM", onTerm);
      return () => {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
      };
    },
    git: gitInfo,
    harnessVersion: PACKAGE_VERSION,
    monitorEventLoop: () => monitorEventLoop(),
  };
}
