import { sha256 } from "../../src/canonical.ts";
import type { GateFinding } from "../../src/formats/findings.ts";
import type { Goal } from "../../src/formats/goal.ts";
import type { Plan } from "../../src/formats/plan.ts";
import type { Role } from "../../src/formats/records.ts";
import { runGates } from "../../src/gates/index.ts";
import { simCriticOutput } from "../../src/sim/critic.ts";
import { simPlannerOutput } from "../../src/sim/planner.ts";
import { DEFAULT_SIM_PROFILE } from "../../src/sim/profile.ts";
import type { SimExtra } from "../../src/sim/extra.ts";
import { chance, createRng, pickIndex } from "../../src/stats/random.ts";
import { roleOf } from "../engine/scripted-server.ts";
import { chatCompletion, errorBody, startFakeServer, type FakeServer, type Received, type Step } from "./fake-server.ts";

/**
 * An OpenAI-compatible server whose "model" is the sim: it reads the goal, plan and findings from
 * the rendered prompt (canonical JSON, one line under each heading) as a model would, answers
 * with the sim planner's or critic's content, and injects faults at a given rate. Everything the
 * harness does with the answer (transport retries, structured-output feedback, normalization,
 * decisions, records, metrics) is the real code path.
 */

/** What a faulty endpoint can do to one request. */
const FAULTS = [
  "unavailable_503",
  "rate_limited_429",
  "cut_body",
  "not_json",
  "no_findings_array",
  "wrong_shape_findings",
  "non_object_findings",
  "empty_message_findings",
  "ended_early",
  "error_envelope",
] as const;
type Fault = (typeof FAULTS)[number];

/** Bodies of the faults that answer 200 with text; a critic answer of these has no well-formed finding. */
const FAULT_TEXT: Partial<Record<Fault, Record<Role, string>>> = {
  not_json: { planner: 'Sure! Here is the plan:\n{"tasks": [', critic: 'Here is my review:\n{"findings": [' },
  no_findings_array: { planner: '{"plan": []}', critic: '{"issues": []}' },
  wrong_shape_findings: { planner: '{"tasks": [{"nope": 1}], "dependencies": []}', critic: '{"findings":[{"nope":1}]}' },
  non_object_findings: { planner: '{"tasks": "all of them", "dependencies": []}', critic: '{"findings": ["add a rollback", 7, null]}' },
  empty_message_findings: {
    planner: '{"tasks": [], "dependencies": []}',
    critic: '{"findings": [{"family": "weak_rollback", "severity": "blocker", "message": ""}]}',
  },
};

interface SimServerOptions {
  /** Probability that a request gets a fault instead of the sim's answer. */
  faultRate: number;
  seed?: number;
  faults?: readonly Fault[];
}

export interface SimServer {
  server: FakeServer;
  /** Faults served, by kind and role. */
  served: Record<Role, Record<Fault | "answer", number>>;
  close(): Promise<void>;
}

/** The JSON line under each `<heading> (canonical JSON):` line of a rendered prompt. */
export function promptSections(text: string): Record<string, unknown> {
  const lines = text.split("\n");
  const out: Record<string, unknown> = {};
  lines.forEach((line, i) => {
    const m = /^(.*) \(canonical JSON\):$/.exec(line);
    if (m && lines[i + 1] !== undefined) out[m[1]!] = JSON.parse(lines[i + 1]!);
  });
  return out;
}

function userPrompt(request: Received): string {
  const messages = request.body.messages as { role: string; content: string }[];
  return messages.find((m) => m.role === "user")!.content;
}

/** The sim's answer to a request, from what the prompt shows. */
function simAnswer(role: Role, prompt: string, draw: string): unknown {
  const s = promptSections(prompt);
  const goal = s["Goal"] as Goal;
  const rng = createRng("sim-server", draw, "content");
  if (role === "critic") {
    const extra: SimExtra = {
      goal,
      plan: s["Plan under review"] as Plan,
      gateFindings: s["Findings of the deterministic gates on this plan"] as GateFinding[],
    };
    return simCriticOutput(extra, rng, DEFAULT_SIM_PROFILE.critic, runGates);
  }
  const revising = s["Current plan"] !== undefined;
  const findings = (s["Findings that block this plan"] ?? s["An earlier plan for this goal was rejected for these findings"] ?? []) as SimExtra["findings"];
  const extra: SimExtra = {
    goal,
    mode: revising ? "revise" : findings && findings.length > 0 ? "restart" : "decompose",
    ...(revising ? { plan: s["Current plan"] as Plan } : {}),
    findings,
  };
  return simPlannerOutput(extra, rng, DEFAULT_SIM_PROFILE.planner);
}

function faultStep(fault: Fault, role: Role, answer: () => string): Step {
  if (fault === "unavailable_503") return { status: 503, body: errorBody("overloaded"), headers: { "retry-after-ms": "0" } };
  if (fault === "rate_limited_429") return { status: 429, body: errorBody("slow down", "rate_limit_error"), headers: { "retry-after-ms": "0" } };
  if (fault === "cut_body") return { truncate: chatCompletion('{"findings": []}') };
  // A gateway's failure sent with a success status: no answer at all, so it must never be read as one.
  if (fault === "error_envelope") return { status: 200, body: { error: { message: "upstream model unavailable", type: "server_error" } } };
  if (fault === "ended_early") {
    // The sim's own answer, valid as it stands, but the server says it stopped at its output limit.
    return { status: 200, body: chatCompletion(answer(), { finish_reason: "length" }) };
  }
  return { status: 200, body: chatCompletion(FAULT_TEXT[fault]![role]) };
}

export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const faults = options.faults ?? FAULTS;
  const seen = new Map<string, number>();
  const tally = () => Object.fromEntries([...FAULTS, "answer"].map((k) => [k, 0])) as Record<Fault | "answer", number>;
  const served: SimServer["served"] = { planner: tally(), critic: tally() };
  const server = await startFakeServer((request) => {
    const role = roleOf(request);
    // A repeat of the same body (a retry, or another trial of the same item) draws afresh.
    const bodyHash = sha256(request.raw);
    const repeat = seen.get(bodyHash) ?? 0;
    seen.set(bodyHash, repeat + 1);
    const draw = `${options.seed ?? 0}:${bodyHash}:${repeat}`;
    const rng = createRng("sim-server", draw, "fault");
    const answer = () => JSON.stringify(simAnswer(role, userPrompt(request), draw));
    if (chance(rng, options.faultRate)) {
      const fault = faults[pickIndex(rng, faults.length)]!;
      served[role][fault]++;
      return faultStep(fault, role, answer);
    }
    served[role].answer++;
    return { status: 200, body: chatCompletion(answer()) };
  });
  return { server, served, close: () => server.close() };
}

/** A non-empty findings array without one object that has a non-empty message (blanks are a message, docs/design.md §5): nothing a clean audit may rest on. */
export function lacksWellFormedFinding(rawText: string | null): boolean {
  if (rawText === null) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawText);
  } catch {
    return false;
  }
  const findings = (parsed as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(findings) || findings.length === 0) return false;
  return !findings.some(
    (f) => typeof f === "object" && f !== null && typeof (f as { message?: unknown }).message === "string" && (f as { message: string }).message !== "",
  );
}
