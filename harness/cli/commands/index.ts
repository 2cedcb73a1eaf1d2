import type { Command } from "commander";
import { register as check } from "./check.ts";
import { register as critique } from "./critique.ts";
import { register as canary } from "./canary.ts";
import { register as corpus } from "./corpus.ts";
import { register as schema } from "./schema.ts";
import { register as run } from "./run.ts";
import { register as plan } from "./plan.ts";
import { register as report } from "./report.ts";
import { register as merge } from "./merge.ts";
import { register as importCmd } from "./import.ts";
import { register as baseline } from "./baseline.ts";
import { register as diff } from "./diff.ts";
import { register as gate } from "./gate.ts";
import { register as compare } from "./compare.ts";
import { register as trend } from "./trend.ts";

/** Every command, in the order `fieldtest --help` lists them. Each module registers itself. */
export const COMMANDS: ((program: Command) => void)[] = [
  run, check, critique, plan, canary, corpus, schema, report, merge, importCmd, baseline, diff, gate, compare, trend,
];
