import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashCanonical } from "../../src/canonical.ts";
import { ROLES } from "../../src/formats/records.ts";
import { requestHash } from "../../src/providers/context.ts";

/** The definition of request_sha256 (docs/design.md §7): the canonical hash of the whole wire request. */
const byDefinition = (provider: string, baseUrl: string | null, body: unknown, role: string, trial: number) =>
  hashCanonical({ provider, base_url: baseUrl, body, role, trial });

describe("requestHash", () => {
  it("is the canonical hash of provider, endpoint, body, role and trial, with the body's text spliced in", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("openai", "anthropic", "sim" as const),
        fc.option(fc.webUrl(), { nil: null }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.constantFrom(...ROLES),
        fc.nat(),
        (provider, baseUrl, body, role, trial) => {
          expect(requestHash({ provider, baseUrl }, canonicalJson(body), role, trial)).toBe(byDefinition(provider, baseUrl, body, role, trial));
        },
      ),
      { numRuns: 300 },
    );
  });

  // The digest of the sorted, whitespace-free JSON of the request, computed independently (Python json.dumps, sort_keys).
  it("gives the recorded key of a known request (a change here breaks every cache and replay)", () => {
    const body = {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Plan: {}" },
      ],
      temperature: 0,
      seed: 7,
    };
    const key = "3c1ff787cbef8579f064c8b26ed7b7078029c9e21da4b79de79b86e1e4352b17";
    expect(byDefinition("openai", "http://127.0.0.1:8080/v1", body, "critic", 3)).toBe(key);
    expect(requestHash({ provider: "openai", baseUrl: "http://127.0.0.1:8080/v1" }, canonicalJson(body), "critic", 3)).toBe(key);
  });
});
