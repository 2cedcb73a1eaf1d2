// An OpenAI-compatible Chat Completions server on 127.0.0.1 that answers like an upstream model
// would, for benchmarks of the harness under live-shaped load (scripts/bench-sweep.ts live):
//
// - Content: the sim planner and critic, driven by what the request itself carries (the goal,
//   plan and findings are canonical JSON in the rendered user prompt, read as sim-server.ts reads
//   them; a boundary fixture's ground truth is found by its plan, so the critic sees its seeded
//   defects). Seeded by the prompt, so a request always gets the same answer. No faults: this
//   server is for timing; sim-server.ts is for faults.
// - Latency: per role, a log-normal spread around a median (default planner 110 ms, critic
//   48 ms), drawn per request; the delay is reported back as `system_fingerprint`
//   ("upstream-delay-ms:<ms>"), which every call record keeps, so a benchmark can subtract what the
//   server spent from what the harness recorded.
//
// Run alone: node dist/test/providers/upstream-server.js [--planner-ms 110] [--critic-ms 48] [--port 0]
// It prints `listening <url>` and serves until stdin closes or it is killed.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { hashCanonical, sha256 } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import type { GateFinding } from "../../src/formats/findings.ts";
import type { Goal } from "../../src/formats/goal.ts";
import type { Plan } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { simCriticOutput } from "../../src/sim/critic.ts";
import { simPlannerOutput } from "../../src/sim/planner.ts";
import { DEFAULT_SIM_PROFILE, type SimProfile } from "../../src/sim/profile.ts";
import type { SimExtra } from "../../src/sim/extra.ts";
import { createRng, type Rng } from "../../src/stats/random.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { promptSections } from "./sim-server.ts";

interface UpstreamOptions {
  /** Median latency per role, ms. */
  plannerMs?: number;
  criticMs?: number;
  /** Log-normal sigma of the spread (0 = fixed latency). */
  spread?: number;
  profile?: SimProfile;
  corpusRoot?: string;
  seed?: number;
  /** Port on 127.0.0.1 (default 0: any free one). A fixed port keeps request hashes, which cover the endpoint, comparable across runs. */
  port?: number;
  /**
   * Answer every critic request with this HTTP status and an error body (a critic that is down),
   * asking for a retry at once: the caller's retries run, with no backoff to wait out.
   */
  criticStatus?: number;
  /** Told of every request as it arrives (1-based count), before it is answered: a test can kill the caller there. */
  onRequest?: (count: number) => void;
}

export interface UpstreamServer {
  url: string;
  /** Requests answered so far. */
  served(): number;
  close(): Promise<void>;
}

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name?: string } };
}

/** Box-Muller normal draw from a uniform stream. */
function normal(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

export async function startUpstreamServer(options: UpstreamOptions = {}): Promise<UpstreamServer> {
  const { plannerMs = 110, criticMs = 48, spread = 0.25, profile = DEFAULT_SIM_PROFILE, seed = 0, port: listenPort = 0 } = options;
  const fixtures = new Map<string, Fixture>(loadCorpus(options.corpusRoot ?? "corpus").fixtures.map(({ fixture }) => [hashCanonical(fixture.plan), fixture]));
  const delays = createRng("upstream-latency", seed);
  let served = 0;
  let arrived = 0;

  function answer(body: ChatRequest): string {
    const user = body.messages.filter((m) => m.role === "user");
    const prompt = user[0]?.content ?? "";
    const sections = promptSections(prompt);
    const section = <T>(heading: string) => sections[heading] as T | undefined;
    const goal = section<Goal>("Goal");
    if (!goal) throw new Error("no goal in the prompt");
    const corrections = user.length - 1;
    const rng = createRng("upstream", seed, sha256(prompt), corrections);
    if (body.response_format?.json_schema?.name === "critic_findings") {
      const plan = section<Plan>("Plan under review")!;
      const extra: SimExtra = { goal, plan, gateFindings: section<GateFinding[]>("Findings of the deterministic gates on this plan") ?? [] };
      const fixture = fixtures.get(hashCanonical(plan));
      return JSON.stringify(simCriticOutput(fixture ? { ...extra, fixture } : extra, rng, profile.critic, runGates));
    }
    const previous = section<Plan>("Current plan");
    const findings = section<NonNullable<SimExtra["findings"]>>(
      previous ? "Findings that block this plan" : "An earlier plan for this goal was rejected for these findings",
    );
    const mode = previous ? "revise" : findings ? "restart" : "decompose";
    return JSON.stringify(simPlannerOutput({ goal, mode, ...(previous ? { plan: previous } : {}), ...(findings ? { findings } : {}) }, rng, profile.planner));
  }

  // A request always gets the same answer, so each is computed once (keyed by the request body):
  // upstream, the model runs on another machine; here its CPU would compete with the harness the
  // benchmark measures.
  const answers = new Map<string, string>();
  function reply(raw: string): { delay: number; text: string } {
    const body = JSON.parse(raw) as ChatRequest;
    const isCritic = body.response_format?.json_schema?.name === "critic_findings";
    const key = sha256(raw);
    let content = answers.get(key);
    if (content === undefined) {
      content = answer(body);
      answers.set(key, content);
    }
    const delay = (isCritic ? criticMs : plannerMs) * Math.exp(spread * normal(delays));
    const promptChars = body.messages.reduce((n, m) => n + m.content.length, 0);
    const text = JSON.stringify({
      id: `chatcmpl-${++served}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      system_fingerprint: `upstream-delay-ms:${delay.toFixed(3)}`,
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content, refusal: null } }],
      // About four characters a token, as for English text; enough for the accounting to run.
      usage: {
        prompt_tokens: Math.ceil(promptChars / 4),
        completion_tokens: Math.ceil(content.length / 4),
        total_tokens: Math.ceil((promptChars + content.length) / 4),
      },
    });
    return { delay, text };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      options.onRequest?.(++arrived);
      let answer: { delay: number; text: string };
      if (options.criticStatus !== undefined && /"critic_findings"/.test(Buffer.concat(chunks).toString("utf8"))) {
        const text = JSON.stringify({ error: { message: "the critic is down", type: "server_error" } });
        res.writeHead(options.criticStatus, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "retry-after-ms": "0" });
        return void res.end(text);
      }
      try {
        answer = reply(Buffer.concat(chunks).toString("utf8"));
      } catch (e) {
        // A request it cannot read (no JSON, no goal in the prompt) is refused as upstream would, not a crash of the server.
        const text = JSON.stringify({ error: { message: `unreadable request: ${(e as Error).message}`, type: "invalid_request_error" } });
        res.writeHead(400, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        return void res.end(text);
      }
      const { delay, text } = answer;
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      }, delay);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The recorded delay the server spent on a call, from its fingerprint; null for another server's answer. */
export function upstreamDelayMs(fingerprint: string | null): number | null {
  const m = /^upstream-delay-ms:([\d.]+)$/.exec(fingerprint ?? "");
  return m ? Number(m[1]) : null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? undefined : Number(process.argv[i + 1]);
  };
  const server = await startUpstreamServer({ plannerMs: flag("--planner-ms"), criticMs: flag("--critic-ms"), spread: flag("--spread"), port: flag("--port") });
  process.stdout.write(`listening ${server.url}\n`);
  process.stdin.on("close", () => void server.close().then(() => process.exit(0)));
  process.stdin.resume();
}
