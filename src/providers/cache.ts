import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Reply } from "./adapter.ts";
import { maskedJson } from "../secrets.ts";

const HEX_KEY = /^[0-9a-f]{64}$/;

const ReplySchema = z.strictObject({
  text: z.string(),
  usage: z.strictObject({ input_tokens: z.number(), output_tokens: z.number() }).nullable(),
  reportedModel: z.string().nullable(),
  fingerprint: z.string().nullable(),
  httpStatus: z.number().nullable(),
  // Entries kept before the field existed were answers that finished.
  incomplete: z.string().nullable().default(null),
});

/** A store of answers keyed by replyCacheKey (request_sha256: full canonical request + role + trial index; the sim adds its seed and profile). */
export interface ReplyStore {
  get(key: string): Reply | undefined;
  put(key: string, reply: Reply): void;
}

/**
 * Content-addressed directory store: `<dir>/<key[0:2]>/<key>.json`. Keys must be SHA-256 hex, so a
 * path can never leave the directory; an unreadable entry is a miss (it will be bought again).
 */
export function createDirectoryCache(dir: string): ReplyStore {
  const pathOf = (key: string) => {
    if (!HEX_KEY.test(key)) throw new Error(`cache key is not a SHA-256 hex digest: ${key.slice(0, 80)}`);
    return join(dir, key.slice(0, 2), `${key}.json`);
  };
  return {
    get(key) {
      const path = pathOf(key);
      try {
        const parsed = ReplySchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    },
    put(key, reply) {
      const path = pathOf(key);
      mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
      // Write then rename, so a concurrent reader never sees half an entry; a file, so masked as the records are.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, maskedJson(reply));
      renameSync(tmp, path);
    },
  };
}
