import { runCli } from "../../harness/cli/program.ts";
import { testHost } from "../run/helpers.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `fieldtest ARGS` run in this process, as bin/fieldtest.js runs it in its own (test/cli/bin.test.ts
 * and test/cli/exit.test.ts cover that wrapper): the same commands, output and exit code, without
 * a process start per call. `env` is the whole environment the command sees (default: none).
 */
export async function runFieldtest(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const host = { ...testHost([...args]), env };
  const code = await runCli(host);
  return { code, stdout: host.stdout.text, stderr: host.stderr.text };
}

/** `fieldtest ARGS` in process, with no environment. */
export const fieldtest = (...args: string[]): Promise<CliResult> => runFieldtest(args);
