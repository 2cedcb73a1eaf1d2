import { type Command, Argument } from "commander";
import { z } from "zod";
import { CriticOutputSchema } from "../../../src/formats/findings.ts";
import { CorpusGoalSchema, GoalSchema } from "../../../src/formats/goal.ts";
import { PlanSchema } from "../../../src/formats/plan.ts";
import { SpendLineSchema, TrialRecordSchema } from "../../../src/formats/records.ts";
import { SummaryFileSchema } from "../../../src/formats/summary.ts";
import { PackManifestSchema } from "../../../src/packs/schema.ts";
import { ManifestSchema } from "../../../src/formats/manifest.ts";
import { CallJournalLineSchema } from "../../../src/formats/call-journal.ts";
import { EngineManifestSchema } from "../../engine/manifest.ts";
import { EngineResultSchema } from "../../engine/result.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";

/**
 * The formats whose JSON Schema can be printed: the input files (`corpus-goal` is a goal file with
 * its expectation, `pack` a domain pack's pack.yaml, `engine` an external engine's manifest), the
 * critic's answer, an engine's result (`engine-result`), and the run files, each
 * versioned by its `schema_version` (`trial`: one line of trials.jsonl; `journal`: one line of spend.jsonl; `calls`: one line of calls.jsonl).
 */
const FORMATS = {
  goal: GoalSchema,
  "corpus-goal": CorpusGoalSchema,
  plan: PlanSchema,
  critic: CriticOutputSchema,
  pack: PackManifestSchema,
  engine: EngineManifestSchema,
  "engine-result": EngineResultSchema,
  trial: TrialRecordSchema,
  manifest: ManifestSchema,
  summary: SummaryFileSchema,
  journal: SpendLineSchema,
  calls: CallJournalLineSchema,
} as const;
type Format = keyof typeof FORMATS;

/**
 * JSON Schema of a format, generated from its zod schema. File formats are described as they are
 * written (`io: "input"`: optional fields and nulls accepted before defaults apply).
 */
export function jsonSchemaOf(format: Format): unknown {
  return z.toJSONSchema(FORMATS[format], { io: "input" });
}

export function register(program: Command, { host, action }: CommandContext): void {
  program
    .command("schema")
    .description(
      "Print the JSON Schema of a format (goal, corpus-goal, plan, critic, pack, engine, engine-result) or of a run file (trial, manifest, summary, journal, calls)",
    )
    .addArgument(new Argument("<format>", "the format").choices(Object.keys(FORMATS)))
    .action(
      action((format: Format) => {
        host.stdout.write(jsonText(jsonSchemaOf(format)));
        return EXIT.ok;
      }),
    );
}
