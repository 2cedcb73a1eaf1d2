import { type Command, Argument } from "commander";
import { z } from "zod";
import { CriticOutputSchema } from "../../../src/formats/findings.ts";
import { CorpusGoalSchema, GoalSchema } from "../../../src/formats/goal.ts";
import { PlanSchema } from "../../../src/formats/plan.ts";
import { PackManifestSchema } from "../../../src/packs/schema.ts";
import { EXIT, guarded } from "../exit.ts";

/** The formats whose JSON Schema can be printed; `corpus-goal` is a goal file with its expectation, `pack` a domain pack's pack.yaml. */
const FORMATS = { goal: GoalSchema, "corpus-goal": CorpusGoalSchema, plan: PlanSchema, critic: CriticOutputSchema, pack: PackManifestSchema } as const;
type Format = keyof typeof FORMATS;

/**
 * JSON Schema of a format, generated from its zod schema. File formats are described as they are
 * written (`io: "input"`: optional fields and nulls accepted before defaults apply).
 */
export function jsonSchemaOf(format: Format): unknown {
  return z.toJSONSchema(FORMATS[format], { io: "input" });
}

export function register(program: Command): void {
  program
    .command("schema")
    .description("Print the JSON Schema of a format (goal, corpus-goal, plan, critic, pack)")
    .addArgument(new Argument("<format>", "the format").choices(Object.keys(FORMATS)))
    .action(guarded((format: Format) => {
      process.stdout.write(`${JSON.stringify(jsonSchemaOf(format), null, 2)}\n`);
      return EXIT.ok;
    }));
}
