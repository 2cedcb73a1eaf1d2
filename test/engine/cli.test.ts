import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { loadCheckInputs } from "../../harness/api/check.ts";
import { critiqueReport } from "../../harness/cli/commands/critique.ts";
import { fieldtest as cli, runFieldtest } from "../helpers/cli.ts";
import { errorBody, useFakeServers } from "../providers/fake-server.ts";

/** The `critique` and `plan` commands: the report alone, then whole command lines (exit codes, the sim run end to end). */

const FIX = "test/engine/fixtures";

describe("fieldtest critique (the report, in process)", () => {
  const { goal, plan } = loadCheckInputs(`${FIX}/goal.yaml`, `${FIX}/plan.yaml`);
  const report = (response: string, json = true) => critiqueReport(goal, plan, readFileSync(`${FIX}/${response}`, "utf8"), json);

  it("--json: one object per response finding in order, raw beside normalized; exit 0 when nothing blocks", () => {
    const r = report("response-mixed.json");
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.output);
    expect(out).toMatchObject({ outcome: "ok", reason: null, verdict: "pass" });
    expect(out.findings.map((f: { index: number }) => f.index)).toEqual([0, 1, 2, 3]);
    expect(out.findings[0]).toMatchObject({
      raw: { family: "Unsafe_Sequencing", severity: "Blocker" },
      family: "unsafe_sequencing",
      severity: "warning",
      evidence_status: "contradicted",
      normalization: ["case_folded", "downgraded_evidence_rejected"],
      blocks: false,
    });
    expect(out.findings[1]).toMatchObject({ family: "risk", severity: "warning", normalization: ["case_folded", "downgraded_not_blocker_eligible"] });
    expect(out.findings[2]).toMatchObject({ dropped: true, reason: "malformed_finding" });
    expect(out.findings[3]).toMatchObject({ task_id: "drop_legacy", evidence_status: "unsupported_reference", severity: "warning" });
  });

  it("exit 1 when a blocker blocks, and when the critic is unavailable", () => {
    const blocked = report("response-blocker.json");
    expect(blocked.exitCode).toBe(1);
    expect(JSON.parse(blocked.output)).toMatchObject({ verdict: "blocked", findings: [{ blocks: true, evidence_status: "uncheckable" }] });
    const unavailable = report("response-no-findings.json");
    expect(unavailable.exitCode).toBe(1);
    expect(JSON.parse(unavailable.output)).toEqual({ outcome: "critic_unavailable", reason: "invalid_output", verdict: "blocked", findings: [] });
  });

  it.each([
    [
      "every finding is malformed",
      "response-malformed-only.json",
      [
        { index: 0, dropped: true, reason: "malformed_finding", raw: { nope: 1 } },
        { index: 1, dropped: true, reason: "malformed_finding", raw: "looks fine" },
      ],
    ],
    // Even beside a well-formed finding: the critic meant to block and code cannot tell on what.
    [
      "a blocker is malformed",
      "response-malformed-blocker.json",
      [
        { index: 0, family: "risk", severity: "warning" },
        { index: 1, dropped: true, reason: "malformed_finding" },
      ],
    ],
  ])("a response where %s is critic_unavailable (invalid_output), exit 1, each item listed", (why, file, findings) => {
    const r = report(file);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.output)).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", verdict: "blocked", findings });
    expect(report(file, false).output.startsWith(`blocked: critic_unavailable (invalid_output: ${why}`)).toBe(true);
  });

  it("the human report names raw and normalized labels, the rules applied and the evidence", () => {
    const text = report("response-mixed.json", false).output;
    expect(text).toContain("unsafe_sequencing/warning (raw Unsafe_Sequencing/Blocker) {case_folded, downgraded_evidence_rejected}");
    expect(text).toContain("[2] dropped (malformed_finding");
    expect(report("response-no-findings.json", false).output).toMatch(/^blocked: critic_unavailable/);
  });
});

describe("fieldtest critique (the command line)", () => {
  it("exit 2 with one line naming the file for an unreadable response", async () => {
    const r = await cli("critique", "--goal", `${FIX}/goal.yaml`, "--plan", `${FIX}/plan.yaml`, "--response", `${FIX}/missing.json`);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([`fieldtest: ${FIX}/missing.json: file not found`]);
  });
});

describe("fieldtest plan", () => {
  const startServer = useFakeServers();

  it("sends --header to a vendor endpoint and times a send out after --timeout, as run does", async () => {
    // The endpoint wants a token in a header of its own; it never answers the first send (which ends
    // at the timeout, and is retried) and refuses the retry (not retried again).
    const server = await startServer((_, i) => (i === 0 ? { hang: true } : { status: 400, body: errorBody("no", "invalid_request_error") }));
    const r = await runFieldtest(
      [
        "plan",
        "--goal",
        `${FIX}/goal.yaml`,
        "--provider",
        "openai",
        "--model",
        "gpt-4o-mini",
        "--base-url",
        `${server.url}/v1`,
        "--header",
        "x-gateway-token=s3cret",
        "--timeout",
        "0.2",
        "--json",
      ],
      { OPENAI_API_KEY: "sk-test" },
    );
    expect(r.code).toBe(3);
    expect(server.received.length).toBeGreaterThan(0);
    expect(server.received.every((req) => req.headers["x-gateway-token"] === "s3cret")).toBe(true);
    const out = JSON.parse(r.stdout) as { calls: { transport_attempts: { error_class: string }[] }[] };
    expect(out.calls.flatMap((c) => c.transport_attempts.map((a) => a.error_class))).toEqual(["timeout", "bad_request"]);
    expect(r.stdout).not.toContain("s3cret");
  });

  it("says why a role that kept answering badly was unavailable: its last rejected answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ft-plan-"));
    const profile = parse(readFileSync("src/sim/profiles/perfect.yaml", "utf8")) as { planner: Record<string, unknown> };
    writeFileSync(join(dir, "invalid.yaml"), stringify({ ...profile, name: "always-invalid", planner: { ...profile.planner, invalid_output_rate: 1 } }));
    const r = await cli("plan", "--goal", `${FIX}/goal.yaml`, "--provider", "sim", "--sim-profile", join(dir, "invalid.yaml"));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\nescalated: planner_unavailable\n {2}last rejected answer: planner: \S.*\n/);
  });

  it("runs the engine on the sim end to end; --json records raw and normalized severities and each call's decision context", async () => {
    const r = await cli("plan", "--goal", `${FIX}/goal.yaml`, "--provider", "sim", "--seed", "2", "--json");
    expect([0, 1]).toContain(r.code);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ goal_id: "db-migrate-orders", mode: "gates-first", max_rounds: 4 });
    expect(out.status).toBe(r.code === 0 ? "approved" : "escalated");
    expect(out.rounds.length).toBeGreaterThan(0);
    for (const call of out.calls) {
      expect(call.context).toMatchObject({
        provider: "sim",
        response_format: expect.any(String),
        system_prompt_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }
    const audited = out.rounds.filter((round: { critic: unknown }) => round.critic !== null);
    expect(audited.length).toBeGreaterThan(0);
    for (const round of audited) {
      for (const f of round.critic.findings) expect(f).toHaveProperty("raw.severity");
    }
  });
});
