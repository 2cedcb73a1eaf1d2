import { fileURLToPath } from "node:url";
import { z } from "zod";
import { loadFile } from "../formats/load.ts";
import { isWireProvider, providerDefinition } from "./registry.ts";

const PriceTableSchema = z.strictObject({
  version: z.string().min(1),
  models: z.record(z.string(), z.strictObject({ input: z.number().min(0), output: z.number().min(0) })),
});

const TABLE = loadFile(fileURLToPath(new URL("./prices.yaml", import.meta.url)), PriceTableSchema);

/** Recorded in run manifests so cost deltas can be told apart from price changes. */
export const PRICE_TABLE_VERSION: string = TABLE.version;

/** A dated snapshot (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) is priced as its base model. */
const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * Whether a provider's sends cost money, as its registry entry says; a provider that bills nothing
 * (the sim) costs $0 whatever its model is called, a send lost in flight too. A provider this
 * build does not know (a record of another) is priced like a vendor: from the table, or unknown.
 */
export const isBilled = (provider: string): boolean => !isWireProvider(provider) || providerDefinition(provider).billed;

/** USD for the given usage; null when the model is not in the price table (unknown is never 0). */
export function estimateCost(model: string, inputTokens: number, outputTokens: number): number | null {
  const price = TABLE.models[model] ?? TABLE.models[model.replace(SNAPSHOT_SUFFIX, "")];
  if (!price) return null;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}
