import type { Command } from "commander";
import { startSweep } from "../../api/sweep.ts";
import { RunCliSchema } from "../../run/settings.ts";
import { shardFromEnv } from "../../run/shard-env.ts";
import { WIRE_PROVIDERS } from "../../../src/providers/registry.ts";
import type { CommandContext } from "../context.ts";
import { collect, defaultCorpus, endpointOptions, flagOf, parseOptions } from "../options.ts";

export function register(program: Command, { host, action }: CommandContext): void {
  endpointOptions(
    program
      .command("run")
      .description(
        "Run a sweep: canaries (gates and packs), then corpus goals (full engine) and boundary fixtures (critic alone), N trials each; the security oracle and injection traps when --suite names them; exits 3 when more than half of the trials are errors (a provider that never answered) or the run folder cannot be written (resume it once there is room)",
      )
      .option("--config <file>", "config file (default: ./fieldtest.config.yaml when present; not read on --resume)")
      .option(
        "--suite <list>",
        "suites to run: corpus,boundary (the default), security (the CWE oracle), injection (generated traps with their controls, and the adversarial goals); canary always runs first",
      )
      .option("--only <globs>", "item id globs, comma-separated (matched on <id> and <suite>/<id>; * ** ? {a,b})")
      .option("--domain <list>", "corpus domains, comma-separated")
      .option("--category <list>", "corpus categories: balanced,strict,adversarial (leaves out boundary fixtures)")
      .option("--trials <n>", "trials per item (default 5, at most 10000)")
      .option("--seed <s>", "run seed (default 0)")
      .option("--provider <p>", `provider for both roles: ${WIRE_PROVIDERS.join(" | ")} (replay: see --replay)`)
      .option("--model <m>", "model for both roles")
      .option("--planner-provider <p>", "planner provider")
      .option("--planner-model <m>", "planner model")
      .option("--critic-provider <p>", "critic provider")
      .option("--critic-model <m>", "critic model"),
  )
    .option("--temperature <t>", "sampling temperature for both roles")
    .option("--mode <mode>", "critic mode: gates-first | every-round | gates-only")
    .option("--sim-profile <file>", "sim noise profile YAML (src/sim/profiles/)")
    .option("--pack <dir>", "enable a domain pack (repeatable): its rules gate every plan, its canaries run first", collect)
    .option(
      "--engine <file>",
      "field-test an external engine (its manifest: docs/reference/engine-protocol.md): it runs every corpus trial, its LLM calls go through fieldtest's recording proxy to the --provider/--model/--base-url of each role",
    )
    .option("--concurrency <n>", "trials in flight at once (default 8, at most 1024; per-provider limits live in the config)")
    .option(
      "--budget-usd <x>",
      "refuse to start when spend so far plus the estimate exceeds it (exit 3); stop cleanly when spend plus the sends in flight (each at the dearest so far) leave no room for another, or a call's cost is unknown (exit 3, resumable)",
    )
    .option("--max-calls <n>", "refuse to start when calls so far plus the estimate exceed it (exit 3); stop cleanly when reached (exit 3, resumable)")
    .option("--dry-run", "print planned calls, tokens and cost per role (with --resume: for the trials left, and what was spent), and exit 0")
    .option(
      "--shard <i/n|auto>",
      "run shard I of N (1-based) of the trial keys, or auto: I and N from the CI or Kubernetes environment (docs/guides/nightly-regression.md); merge shards with `fieldtest merge`",
    )
    .option("--out <dir>", "run directory (default runs/<timestamp>-<id>); must be empty unless --force")
    .option("--force", "reuse a non-empty --out, removing the previous run's files (refused while a live run holds it)")
    .option("--break-lock", "take a run lock held by a process on another host (its host and pid are printed)")
    .option("--fail-on-expectations", "exit 1 when an item fails its expectation")
    .option("--resume <dir>", "complete an interrupted run with its recorded configuration")
    .option("--retry-errors", "with --resume: also re-run trials whose status is error (e.g. a provider that never answered)")
    .option(
      "--replay <dir>",
      "answer every role from DIR's recorded calls (by request hash and trial index; provider and model per role from DIR's manifest); a miss is the trial's error",
    )
    .option("--replay-fall-through", "with --replay: call the live provider on a miss instead of failing the trial")
    .option(
      "--baseline <file>",
      "the reports lead with the release gate's decision against this baseline (the exit code stays the run's); --resume keeps the run's own unless given",
    )
    .option("--policy <file>", "with --baseline: the pre-registered gate policy (default: the shipped gate.yaml)")
    .action(
      action(async (raw: unknown) => {
        const options = raw as { shard?: string };
        const cli = parseOptions(RunCliSchema, options.shard === "auto" ? { ...options, shard: shardFromEnv(host.env) } : raw);
        return startSweep(cli, defaultCorpus(), host, { source: "command line", name: (key) => flagOf([key]) });
      }),
    );
}
