import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCritic } from "../../src/critic/critic.ts";
import { countNormalizationRules, normalizeCriticFindings, normalizeCriticResponse, normalizeFinding, readCriticResponse } from "../../src/critic/normalize.ts";
import { BLOCKER_ELIGIBLE_FAMILIES, FAMILIES, SEVERITIES } from "../../src/formats/enums.ts";
import type { NormalizedFinding } from "../../src/formats/findings.ts";
import type { ModelClient } from "../../src/providers/types.ts";
import { criticFinding, goal, WITH_CACHE, type FindingInput } from "./fixtures.ts";

const g = goal();
const plan = WITH_CACHE;
const respond = (...findings: unknown[]) => JSON.stringify({ findings });
const one = (f: FindingInput) => {
  const result = normalizeFinding(g, plan, criticFinding(f));
  if (typeof result === "string") throw new Error(`dropped: ${result}`);
  return result;
};
const SUPPORTED = { claim: "missing_rollback", tasks: ["tune_cache"], facts: [] };
const CONTRADICTED = { claim: "missing_rollback", tasks: ["migrate"], facts: [] };

describe("normalizeCriticResponse: the whole response", () => {
  it("text that is not JSON is critic_unavailable (invalid_output) with the raw text kept, never a clean audit", () => {
    const audit = normalizeCriticResponse(g, plan, 'Here is my answer:\n{"findings": [');
    expect(audit).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", findings: [] });
    expect(audit.raw_text).toBe('Here is my answer:\n{"findings": [');
  });

  it("a response without a findings array is critic_unavailable", () => {
    for (const text of ['{"issues": []}', '{"findings": {}}', "[]", '"fine"', "null"]) {
      expect(normalizeCriticResponse(g, plan, text).outcome).toBe("critic_unavailable");
    }
  });

  it("no text at all is critic_unavailable", () => {
    expect(normalizeCriticResponse(g, plan, null)).toMatchObject({ outcome: "critic_unavailable", raw_text: null });
  });

  it("an empty findings array is a clean audit", () => {
    expect(normalizeCriticResponse(g, plan, '{"findings": []}')).toEqual({
      outcome: "ok",
      reason: null,
      raw_text: '{"findings": []}',
      findings: [],
      malformed_findings: 0,
    });
  });

  it("reads JSON in a Markdown fence, as the model client does", () => {
    const text = "```json\n" + respond(criticFinding()) + "\n```";
    expect(normalizeCriticResponse(g, plan, text)).toMatchObject({ outcome: "ok", findings: [{ family: "weak_rollback" }] });
  });

  it("reads the JSON after a reasoning model's leading <think> block, fenced or not; a think block alone is no answer", () => {
    const json = respond(criticFinding());
    for (const text of [`<think>\nThe plan {"findings": []} looks fine?\n</think>\n${json}`, `  <think>x</think>\n\n\`\`\`json\n${json}\n\`\`\``]) {
      expect(normalizeCriticResponse(g, plan, text)).toMatchObject({ outcome: "ok", raw_text: text, findings: [{ family: "weak_rollback" }] });
    }
    expect(normalizeCriticResponse(g, plan, '<think>{"findings": []}</think>')).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output" });
    // Reasoning anywhere but at the start is part of the text, which is then no JSON.
    expect(normalizeCriticResponse(g, plan, `${json}<think>x</think>`)).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output" });
  });

  it("drops and counts malformed findings; the others stand", () => {
    const audit = normalizeCriticResponse(
      g,
      plan,
      respond(
        criticFinding({ message: "kept" }),
        "a string",
        null,
        criticFinding({ severity: "warning", message: "" }),
        { family: "risk" },
        criticFinding({ message: "   " }),
      ),
    );
    expect(audit.outcome).toBe("ok");
    // A message of blanks is not empty (docs/design.md §5): that finding stands.
    expect(audit.findings.map((f) => f.message)).toEqual(["kept", "   "]);
    expect(audit.malformed_findings).toBe(4);
  });

  it("a blocker whose message is blanks stands as a blocker (docs/design.md §5: not empty): dropped, a well-formed info beside it would leave the audit clean", () => {
    const blocker = { ...criticFinding(), message: "  " };
    const audit = normalizeCriticResponse(g, plan, respond(blocker, criticFinding({ severity: "info", message: "fyi" })));
    expect(audit.outcome).toBe("ok");
    expect(audit.malformed_findings).toBe(0);
    expect(audit.findings.map((f) => [f.message, f.severity])).toEqual([
      ["  ", criticFinding().severity],
      ["fyi", "info"],
    ]);
  });

  it("a malformed finding whose raw severity reads blocker makes the whole response critic_unavailable (invalid_output), even beside a well-formed one", () => {
    const good = criticFinding({ severity: "info", message: "fyi" });
    const blockers = [
      { severity: "blocker" },
      { severity: " BLOCKER\n", message: "" },
      { severity: "Blocker", message: null },
      { severity: "blocker", message: 3 },
      criticFinding({ message: "" }),
    ];
    for (const malformed of blockers) {
      const text = respond(good, malformed);
      expect(normalizeCriticResponse(g, plan, text), JSON.stringify(malformed)).toEqual({
        outcome: "critic_unavailable",
        reason: "invalid_output",
        raw_text: text,
        findings: [],
        malformed_findings: 1,
      });
      expect(readCriticResponse(g, plan, text)).toMatchObject({
        detail: expect.stringMatching(/^a blocker is malformed/),
        items: [{ finding: { message: "fyi" } }, { finding: null }],
      });
    }
  });

  it("a malformed finding of another severity still just drops: the audit stands", () => {
    const good = criticFinding({ severity: "info", message: "fyi" });
    for (const malformed of [
      { severity: "warning" },
      { severity: "info", message: "" },
      { severity: "blocking" },
      { severity: ["blocker"] },
      { family: "weak_rollback" },
    ]) {
      const audit = normalizeCriticResponse(g, plan, respond(good, malformed));
      expect(audit, JSON.stringify(malformed)).toMatchObject({ outcome: "ok", malformed_findings: 1, findings: [{ message: "fyi" }] });
    }
  });

  it("findings of which every one is malformed are critic_unavailable (invalid_output), never a clean audit", () => {
    for (const findings of [[{ nope: 1 }], ["fine", 3, null], [criticFinding({ message: "" }), { family: "risk" }]]) {
      const text = JSON.stringify({ findings });
      expect(normalizeCriticResponse(g, plan, text)).toEqual({
        outcome: "critic_unavailable",
        reason: "invalid_output",
        raw_text: text,
        findings: [],
        malformed_findings: findings.length,
      });
    }
    const reading = readCriticResponse(g, plan, '{"findings":[{"nope":1}]}');
    expect(reading).toMatchObject({
      outcome: "critic_unavailable",
      reason: "invalid_output",
      items: [{ index: 0, finding: null, malformed: "no non-empty message" }],
    });
  });

  it("an audit stands only on no finding at all, or on at least one well-formed finding and no malformed blocker (a law)", () => {
    const malformedBlocker = criticFinding({ severity: " Blocker", message: "" });
    const entry = fc.oneof(
      fc.constant(criticFinding()),
      fc.constant({ nope: 1 }),
      fc.string(),
      fc.constant(criticFinding({ message: " " })),
      fc.constant(criticFinding({ severity: "warning", message: "" })),
      fc.constant(malformedBlocker),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (findings) => {
        const audit = normalizeCriticResponse(g, plan, JSON.stringify({ findings }));
        const wellFormed = findings.filter((f) => typeof f === "object" && "message" in f && f.message !== "").length;
        const stands = (findings.length === 0 || wellFormed > 0) && !findings.includes(malformedBlocker);
        expect(audit.outcome).toBe(stands ? "ok" : "critic_unavailable");
        expect(audit.findings).toHaveLength(stands ? wellFormed : 0);
        expect(audit.malformed_findings).toBe(findings.length - wellFormed);
      }),
    );
  });

  it("readCriticResponse keeps every item in response order with why a dropped one was dropped", () => {
    const reading = readCriticResponse(g, plan, respond(42, criticFinding()));
    expect(reading.outcome).toBe("ok");
    if (reading.outcome !== "ok") return;
    expect(reading.items.map((i) => i.index)).toEqual([0, 1]);
    expect(reading.items[0]).toMatchObject({ finding: null, malformed: "not an object", raw: 42 });
    expect(reading.items[1]!.finding?.family).toBe("weak_rollback");
  });
});

describe("normalizing an answer the client already parsed", () => {
  it("gives the audit the raw text gives, for any findings array (a law)", () => {
    const entry = fc.oneof(
      fc.constant(criticFinding()),
      fc.constant(criticFinding({ evidence: CONTRADICTED })),
      fc.constant({ nope: 1 }),
      fc.string(),
      fc.constant(null),
      fc.constant(criticFinding({ message: " " })),
      fc.constant(criticFinding({ message: "" })),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (findings) => {
        const text = JSON.stringify({ findings });
        expect(normalizeCriticFindings(g, plan, findings, text)).toEqual(normalizeCriticResponse(g, plan, text));
      }),
    );
  });

  it("runCritic normalizes the findings the client validated, keeping the client's raw text, without reading that text again", async () => {
    const findings = [criticFinding(), { nope: 1 }];
    // A text that does not parse: an audit built from it would be unavailable, so this one can only come from the value.
    const rawText = '{"findings": [redacted]}';
    const client: ModelClient = {
      structured: async (_request, validator) => ({ ok: true, value: validator.parse({ findings }), rawText, calls: [] }),
    };
    const { audit } = await runCritic(g, plan, [], { client, itemId: "i", trial: 0, round: 0 });
    expect(audit).toEqual({ ...normalizeCriticResponse(g, plan, JSON.stringify({ findings })), raw_text: rawText });
    expect(audit).toMatchObject({ outcome: "ok", raw_text: rawText, malformed_findings: 1, findings: [{ family: "weak_rollback" }] });
  });
});

describe("normalizeFinding: the five rules in order", () => {
  it('"Blocker" and "RISK" are case-folded, then the risk blocker is downgraded', () => {
    const f = one({ family: "RISK", severity: "Blocker" });
    expect(f).toMatchObject({ family: "risk", severity: "warning", raw: { family: "RISK", severity: "Blocker" } });
    expect(f.normalization).toEqual(["case_folded", "downgraded_not_blocker_eligible"]);
  });

  it("case folding trims too and is recorded once for both fields", () => {
    const f = one({ family: " Weak_Rollback ", severity: "BLOCKER", evidence: SUPPORTED });
    expect(f).toMatchObject({ family: "weak_rollback", severity: "blocker", normalization: ["case_folded"] });
  });

  it("an unknown family is kept, lower-cased, and capped at warning", () => {
    const f = one({ family: "Security", severity: "blocker" });
    expect(f).toMatchObject({ family: "security", severity: "warning", normalization: ["unknown_family"] });
    expect(one({ family: "security", severity: "info" })).toMatchObject({ severity: "info", normalization: ["unknown_family"] });
  });

  it("an unknown severity becomes warning", () => {
    expect(one({ severity: "critical" })).toMatchObject({ severity: "warning", normalization: ["unknown_severity"], raw: { severity: "critical" } });
    const missing = normalizeFinding(g, plan, { family: "feasibility", message: "no severity" });
    expect(missing).toMatchObject({ severity: "warning", normalization: ["unknown_severity"] });
  });

  it("a blocker outside the four eligible families becomes a warning", () => {
    expect(one({ family: "missing_steps", severity: "blocker" })).toMatchObject({
      severity: "warning",
      normalization: ["downgraded_not_blocker_eligible"],
    });
  });

  it("a blocker with contradicted evidence becomes a warning", () => {
    expect(one({ evidence: CONTRADICTED })).toMatchObject({
      severity: "warning",
      evidence_status: "contradicted",
      normalization: ["downgraded_evidence_rejected"],
    });
  });

  it("a finding citing a task that does not exist: unsupported_reference, downgraded", () => {
    const f = one({ task_id: "ghost_task", evidence: { claim: "missing_rollback", tasks: ["ghost_task"], facts: [] } });
    expect(f).toMatchObject({ severity: "warning", evidence_status: "unsupported_reference", normalization: ["downgraded_evidence_rejected"] });
  });

  it("a ghost task hidden in evidence of the wrong shape, or a task_id that is not a string, is still an unsupported reference, downgraded", () => {
    const rejected = { severity: "warning", evidence_status: "unsupported_reference", normalization: ["downgraded_evidence_rejected"] };
    // The typed fields cannot hold these, but they are still references the plan must have.
    expect(one({ evidence: { claim: "misordered", tasks: ["ghost_task", 0], facts: [] } as never })).toMatchObject({ ...rejected, evidence: null });
    expect(one({ evidence: { claim: "misordered", tasks: ["ghost_task", "migrate"], facts: "none" } as never })).toMatchObject({ ...rejected, evidence: null });
    expect(one({ task_id: 42 as never, evidence: SUPPORTED })).toMatchObject({ ...rejected, task_id: null, evidence_reason: "not a task of the plan: 42" });
    // Every stray reference a task of the plan: nothing to reject, the shape alone leaves it uncheckable.
    expect(one({ evidence: { claim: "misordered", tasks: ["tune_cache", "migrate"], facts: "none" } as never })).toMatchObject({
      severity: "blocker",
      evidence_status: "uncheckable",
    });
  });

  it("a blocker with supported or uncheckable evidence stays a blocker", () => {
    expect(one({ evidence: SUPPORTED })).toMatchObject({ severity: "blocker", evidence_status: "supported", normalization: [] });
    expect(one({})).toMatchObject({ severity: "blocker", evidence_status: "uncheckable", normalization: [] });
  });

  it("checks evidence for warnings too, without downgrading them further", () => {
    expect(one({ severity: "warning", evidence: CONTRADICTED })).toMatchObject({ severity: "warning", evidence_status: "contradicted", normalization: [] });
  });

  it("keys critic findings by family, task, claim, evidence tasks and sorted evidence facts", () => {
    expect(one({ task_id: "tune_cache", evidence: SUPPORTED }).key).toBe("critic:weak_rollback:tune_cache:missing_rollback:tune_cache:");
    expect(one({ evidence: null }).key).toBe("critic:weak_rollback::::");
    const facts = (...f: string[]) => one({ task_id: "migrate", evidence: { claim: "unestablished_fact", tasks: ["migrate"], facts: f } }).key;
    expect(facts("orders")).toBe("critic:weak_rollback:migrate:unestablished_fact:migrate:orders");
    expect(facts("orders")).not.toBe(facts("lock_token"));
    expect(facts("b", "a")).toBe(facts("a", "b"));
    expect(facts("b", "a")).toMatch(/:a,b$/);
  });

  it("an evidence object of the wrong shape counts as no evidence", () => {
    expect(one({ evidence: { claim: "missing_rollback", tasks: "tune_cache" } as never })).toMatchObject({ evidence: null, evidence_status: "uncheckable" });
  });
});

describe("normalizeFinding: laws", () => {
  const casings = (s: string) => fc.constantFrom(s, s.toUpperCase(), ` ${s[0]!.toUpperCase()}${s.slice(1)} `);
  const family = fc.oneof(fc.constantFrom(...FAMILIES).chain(casings), fc.string(), fc.constant(undefined), fc.integer());
  const severity = fc.oneof(fc.constantFrom(...SEVERITIES).chain(casings), fc.string(), fc.constant(null));
  const evidence = fc.constantFrom(SUPPORTED, CONTRADICTED, { claim: "other", tasks: [], facts: [] }, { claim: "other", tasks: ["ghost"], facts: [] }, null);
  const item = fc.record({ family, severity, evidence, message: fc.constant("m") });

  it("no blocker survives outside the eligible families or with rejected evidence; raw is kept; rules come once, in order", () => {
    fc.assert(
      fc.property(item, (raw) => {
        const f = normalizeFinding(g, plan, raw) as NormalizedFinding;
        expect(SEVERITIES).toContain(f.severity);
        if (f.severity === "blocker") {
          expect(BLOCKER_ELIGIBLE_FAMILIES).toContain(f.family);
          expect(["supported", "uncheckable"]).toContain(f.evidence_status);
        }
        expect(f.raw).toEqual({ family: raw.family, severity: raw.severity });
        const order = ["case_folded", "unknown_family", "unknown_severity", "downgraded_not_blocker_eligible", "downgraded_evidence_rejected"];
        const positions = f.normalization.map((r) => order.indexOf(r));
        expect(positions).toEqual([...new Set(positions)].sort((a, b) => a - b));
      }),
    );
  });

  it("normalizing is idempotent on an already normal finding", () => {
    fc.assert(
      fc.property(item, (raw) => {
        const first = normalizeFinding(g, plan, raw) as NormalizedFinding;
        const again = normalizeFinding(g, plan, { ...raw, family: first.family, severity: first.severity }) as NormalizedFinding;
        expect(again.severity).toBe(first.severity);
        expect(again.normalization).not.toContain("case_folded");
      }),
    );
  });
});

describe("countNormalizationRules", () => {
  it("counts each rule over the findings, zero for rules that never fired", () => {
    const findings = [one({ family: "RISK", severity: "Blocker" }), one({ family: "risk" }), one({ severity: "urgent" })];
    expect(countNormalizationRules(findings)).toEqual({
      case_folded: 1,
      unknown_family: 0,
      unknown_severity: 1,
      downgraded_not_blocker_eligible: 2,
      downgraded_evidence_rejected: 0,
    });
  });
});
