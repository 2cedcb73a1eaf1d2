// An OpenAI-compatible server on 127.0.0.1 that answers PlannerCritic 0.1.0's prompts as a model
// would, for the opt-in test of engines/planner-critic.yaml and for trying that engine by hand:
// its planner gets a plan in the engine's own PlanVersion format for the goal in its prompt, its
// critic a findings list (on the first audit of a goal, a blocker on the task that carries the
// risk; a clean audit after a revision). The answers are a function of the prompt (no clock), so
// a replay of a run sees the same ones. `critic: "fail"` answers every critic call with HTTP 500.
//
// Run alone: node dist/test/tools/planner-critic-model.js [--critic-fails] [--port 0]
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

interface PlannerCriticModelOptions {
  critic?: "answer" | "fail";
  port?: number;
}

export interface PlannerCriticModel {
  url: string;
  /** Every request body received, in order. */
  received: Record<string, unknown>[];
  close(): Promise<void>;
}

interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
}

/** The goal id in a prompt that shows the plan (its goal_id) or the goal (its id) as a Python dict. */
const goalIdOf = (text: string): string => (/'goal_id': '([^']+)'/.exec(text) ?? /'id': '([^']+)'/.exec(text))?.[1] ?? "goal";

function plan(goalId: string): unknown {
  return {
    id: `plan-${goalId}`,
    goal_id: goalId,
    version: 1,
    tasks: [
      { id: "snapshot", description: "Take a snapshot of the current state", action: "backup", target: "primary", risk_class: "low" },
      {
        id: "change",
        description: "Apply the change",
        action: "apply",
        target: "primary",
        risk_class: "high",
        preconditions: [{ description: "a snapshot exists", fact: "snapshot_taken", established_by: "snapshot" }],
        rollback: { trigger: "the check fails", action: "restore the snapshot", safety_guard: "verify the snapshot first" },
        verification: { what: "the change", how: "run the checks", expected: "all pass" },
      },
      { id: "announce", description: "Tell the owners the change is done", action: "notify", target: "owners", risk_class: "low" },
    ],
    dependencies: [
      { from_task: "snapshot", to_task: "change", kind: "hard" },
      { from_task: "change", to_task: "announce", kind: "soft" },
    ],
  };
}

function answer(body: ChatBody): string {
  const system = body.messages.find((m) => m.role === "system")?.content ?? "";
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  if (/plan reviewer/.test(system)) {
    // A first audit (the plan at version 1) finds a blocker; the audit of a revision finds none.
    const first = /'version': 1\b/.test(user);
    const findings = first
      ? [
          {
            heuristic_family: "weak_rollback",
            severity: "blocker",
            task_id: "change",
            message: "The rollback of change does not say how the snapshot is checked.",
            suggested_fix: "Verify the snapshot before change.",
          },
        ]
      : [];
    return JSON.stringify({ findings });
  }
  return JSON.stringify(plan(goalIdOf(user)));
}

export async function startPlannerCriticModel(options: PlannerCriticModelOptions = {}): Promise<PlannerCriticModel> {
  const received: Record<string, unknown>[] = [];
  let served = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatBody;
      received.push(body as unknown as Record<string, unknown>);
      const isCritic = /plan reviewer/.test(body.messages.find((m) => m.role === "system")?.content ?? "");
      const send = (status: number, payload: unknown) => {
        const text = JSON.stringify(payload);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      };
      if (isCritic && options.critic === "fail") return send(500, { error: { message: "the critic is down", type: "server_error" } });
      const content = answer(body);
      send(200, {
        id: `chatcmpl-${++served}`,
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
        usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf("--port");
  const model = await startPlannerCriticModel({
    critic: process.argv.includes("--critic-fails") ? "fail" : "answer",
    port: i === -1 ? 0 : Number(process.argv[i + 1]),
  });
  process.stdout.write(`listening ${model.url}\n`);
  process.stdin.on("close", () => void model.close().then(() => process.exit(0)));
  process.stdin.resume();
}
