import { describe, expect, it } from "vitest";
import { normalizeCriticResponse, normalizeFinding, unavailableAudit } from "../../src/critic/normalize.ts";
import { RISK_TOLERANCES, type RiskTolerance } from "../../src/formats/enums.ts";
import type { EvidenceStatus, GateFinding, NormalizedFinding } from "../../src/formats/findings.ts";
import { criticBlocks, criticVerdict, judgeRound } from "../../src/loop/decide.ts";
import { criticFinding, goal, WITH_CACHE } from "./fixtures.ts";

/** docs/design.md §6, cell by cell. */

const EVIDENCE_FOR: Record<EvidenceStatus, { claim: string; tasks: string[]; facts: string[] }> = {
  supported: { claim: "missing_rollback", tasks: ["tune_cache"], facts: [] },
  contradicted: { claim: "missing_rollback", tasks: ["migrate"], facts: [] },
  unsupported_reference: { claim: "missing_rollback", tasks: ["no_such_task"], facts: [] },
  uncheckable: { claim: "other", tasks: [], facts: [] },
};

const normalized = (family: string, severity: string, status: EvidenceStatus, tolerance: RiskTolerance = "strict") =>
  normalizeFinding(goal({ risk_tolerance: tolerance }), WITH_CACHE, criticFinding({ family, severity, evidence: EVIDENCE_FOR[status] })) as NormalizedFinding;

const gateFinding: GateFinding = {
  origin: "gate",
  gate: "rollback_present",
  code: "rollback_missing",
  family: "weak_rollback",
  severity: "blocker",
  task_id: "migrate",
  message: "no rollback",
  key: "rollback_present:rollback_missing:migrate:rollback",
};
const okAudit = (...findings: NormalizedFinding[]) => ({ ...normalizeCriticResponse(goal(), WITH_CACHE, '{"findings": []}'), findings });

describe("critic blocker × family eligibility × evidence status × tolerance", () => {
  const families = [
    ["unsafe_sequencing", true],
    ["weak_rollback", true],
    ["unverified_dependencies", true],
    ["feasibility", true],
    ["risk", false],
    ["missing_steps", false],
    ["made_up_family", false],
  ] as const;
  const statuses = Object.keys(EVIDENCE_FOR) as EvidenceStatus[];
  const cells = families.flatMap(([family, eligible]) =>
    statuses.flatMap((status) => RISK_TOLERANCES.map((tolerance) => ({ family, eligible, status, tolerance }))),
  );

  it.each(cells)("$family blocker, evidence $status, $tolerance", ({ family, eligible, status, tolerance }) => {
    const finding = normalized(family, "blocker", status, tolerance);
    expect(finding.evidence_status).toBe(status);
    const expected = eligible && (tolerance === "strict" ? status === "supported" || status === "uncheckable" : status === "supported");
    expect(criticBlocks(finding, tolerance)).toBe(expected);
    const round = judgeRound({ tolerance, gateFindings: [], audit: okAudit(finding), carried: [] });
    expect(round.verdict).toBe(expected ? "blocked" : "pass");
    expect(round.blockerKeys).toEqual(expected ? [finding.key] : []);
  });
});

describe("warnings and info never block", () => {
  it.each(RISK_TOLERANCES.flatMap((t) => (["warning", "info"] as const).map((s) => [s, t] as const)))("%s under %s", (severity, tolerance) => {
    const finding = normalized("unsafe_sequencing", severity, "supported", tolerance);
    expect(criticBlocks(finding, tolerance)).toBe(false);
    expect(judgeRound({ tolerance, gateFindings: [], audit: okAudit(finding), carried: [] }).verdict).toBe("pass");
  });
});

describe("gate blocker × tolerance", () => {
  it.each(RISK_TOLERANCES)("a gate blocker always blocks under %s", (tolerance) => {
    const round = judgeRound({ tolerance, gateFindings: [gateFinding], audit: null, carried: [] });
    expect(round).toMatchObject({ verdict: "blocked", blockerKeys: [gateFinding.key] });
  });

  it("a gate blocker blocks even when the critic passes the plan", () => {
    expect(judgeRound({ tolerance: "balanced", gateFindings: [gateFinding], audit: okAudit(), carried: [] }).verdict).toBe("blocked");
  });
});

describe("critic_unavailable × tolerance", () => {
  it.each(RISK_TOLERANCES)("fails closed under %s", (tolerance) => {
    const round = judgeRound({ tolerance, gateFindings: [], audit: unavailableAudit("invalid_output", "oops"), carried: [] });
    expect(round.verdict).toBe("critic_unavailable");
    expect(criticVerdict(unavailableAudit("provider_error", null), tolerance)).toBe("unavailable");
  });

  it("malformed critic JSON and a response without findings are unavailable, not a pass", () => {
    for (const text of ["{not json", '{"issues": []}']) {
      const audit = normalizeCriticResponse(goal(), WITH_CACHE, text);
      expect(judgeRound({ tolerance: "strict", gateFindings: [], audit, carried: [] }).verdict).toBe("critic_unavailable");
    }
  });
});

describe("judgeRound and criticVerdict bookkeeping", () => {
  it("lists gate keys first, then critic keys, each once, carried ones included", () => {
    const fresh = normalized("weak_rollback", "blocker", "supported");
    const carried = normalized("unsafe_sequencing", "blocker", "uncheckable");
    const round = judgeRound({ tolerance: "strict", gateFindings: [gateFinding], audit: okAudit(fresh, fresh), carried: [carried] });
    expect(round.blockerKeys).toEqual([gateFinding.key, fresh.key, carried.key]);
    expect(round.criticBlockers).toEqual([fresh, carried]);
  });

  it("with no audit and no gate finding (gates-only mode) the round passes", () => {
    expect(judgeRound({ tolerance: "strict", gateFindings: [], audit: null, carried: [] }).verdict).toBe("pass");
  });

  it("criticVerdict: block only for a critic blocker that blocks under the tolerance", () => {
    const uncheckable = normalized("feasibility", "blocker", "uncheckable");
    expect(criticVerdict(okAudit(uncheckable), "strict")).toBe("block");
    expect(criticVerdict(okAudit(uncheckable), "balanced")).toBe("pass");
    expect(criticVerdict(okAudit(normalized("risk", "blocker", "supported")), "strict")).toBe("pass");
  });
});
