import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MASK, SecretSet } from "../src/secrets.ts";

/** Secrets as vendors and proxies make them, with the characters encodings change ('+', '/', '=', ' ', '%', quotes, non-ASCII). `K` starts each, and no filler holds a `K`. */
const secretArb = fc.string({ unit: fc.constantFrom(...'abcXYZ0189-_.+/= %"\\:é€'), minLength: 7, maxLength: 24 }).map((s) => `K${s}`);

/** Filler text around and between the secrets. */
const filler = fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "{", '"'), maxLength: 6 });

/** How a secret shows in a field: as it is, URL-encoded (either way of writing a space), JSON-escaped, or base64 (alone or inside a longer base64 text, at any alignment, either alphabet). */
const shown = (secret: string) =>
  fc.oneof(
    fc.constant(secret),
    fc.constant(encodeURIComponent(secret)),
    fc.constant(encodeURIComponent(secret).replace(/%20/g, "+")),
    fc.constant(JSON.stringify(secret).slice(1, -1)),
    fc.tuple(fc.uint8Array({ maxLength: 5 }), fc.uint8Array({ maxLength: 5 }), fc.boolean()).map(([before, after, url]) => {
      const b64 = Buffer.concat([Buffer.from(before), Buffer.from(secret), Buffer.from(after)]).toString(url ? "base64url" : "base64");
      return ` ${b64} `;
    }),
  );

/** A string holding some secrets, each shown some way, between filler. */
const textWith = (secrets: readonly string[]) =>
  fc.array(fc.oneof(filler, fc.constantFrom(...secrets).chain(shown)), { maxLength: 4 }).map((parts) => parts.join(""));

/** A record: nested objects and arrays whose strings and keys may hold secrets. */
const recordWith = (secrets: readonly string[]) =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      textWith(secrets),
      fc.constantFrom(null, 0, true, 1.5),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(textWith(secrets), tie("value"), { maxKeys: 3 }),
    ),
  })).value;

/** Every string of a value, keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...stringsOf(v)]);
  return [];
}

/** Whether a string shows the secret in any of the ways a reader could get it back. */
function shows(text: string, secret: string): boolean {
  if (text.includes(secret) || text.includes(encodeURIComponent(secret)) || text.includes(JSON.stringify(secret).slice(1, -1))) return true;
  const form = text.replace(/\+/g, " ");
  try {
    if (decodeURIComponent(form).includes(secret)) return true;
  } catch {
    // not URL-encoded text
  }
  const bytes = Buffer.from(secret);
  // Any base64 run, decoded at each alignment in either alphabet.
  for (const run of text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
    for (let k = 0; k < 4; k++) {
      for (const alphabet of ["base64", "base64url"] as const) if (Buffer.from(run.slice(k), alphabet).includes(bytes)) return true;
    }
  }
  return false;
}

const maskerOf = (secrets: readonly string[]) => {
  const set = new SecretSet();
  for (const s of secrets) set.add(s);
  return set;
};

describe("the masker", () => {
  for (const [label, count] of [
    ["a few secrets (one regular expression)", { minLength: 1, maxLength: 3 }],
    ["many secrets (found by their first characters)", { minLength: 8, maxLength: 14 }],
  ] as const) {
    it(`${label}: finds none in a record after masking, in any field, key or encoding`, () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(secretArb, count).chain((secrets) => fc.tuple(fc.constant(secrets), recordWith(secrets))),
          ([secrets, record]) => {
            const set = maskerOf(secrets);
            const masked = set.value(record);
            for (const text of stringsOf(masked)) for (const secret of secrets) expect(shows(text, secret), `${secret} in ${JSON.stringify(text)}`).toBe(false);
            // The JSON a writer writes is the masked value's.
            expect(JSON.parse(set.json(record))).toEqual(JSON.parse(JSON.stringify(masked)));
          },
        ),
        { numRuns: 200 },
      );
    });
  }

  it("masks the same whether it finds forms with one regular expression or by their first characters", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(secretArb, { minLength: 1, maxLength: 2 }).chain((secrets) => fc.tuple(fc.constant(secrets), textWith(secrets))),
        fc.array(fc.stringMatching(/^Q[0-9a-f]{19}$/), { minLength: 12, maxLength: 12 }),
        ([secrets, text], unrelated) => {
          // The unrelated secrets appear nowhere; they only push the set past the regular expression.
          expect(maskerOf([...secrets, ...unrelated]).text(text)).toBe(maskerOf(secrets).text(text));
        },
      ),
    );
  });

  it("leaves a value without a secret as it is (the same object) and masks nothing shorter than 8 characters", () => {
    const record = { model: "gpt-4o", nested: [{ key: "production" }] };
    const set = maskerOf(["seven77", "production-token-1"]);
    expect(set.value(record)).toBe(record);
    expect(set.size).toBe(1);
    expect(set.text("seven77 and production-token-1")).toBe(`seven77 and ${MASK}`);
    expect(new SecretSet().value(record)).toBe(record);
  });

  it("keeps both of two keys that mask alike", () => {
    const set = maskerOf(["Kfirst-secret", "Ksecond-secret"]);
    expect(set.value({ "Kfirst-secret": 1, "Ksecond-secret": 2, plain: 3 })).toEqual({ [MASK]: 1, [`${MASK} (2)`]: 2, plain: 3 });
  });
});
