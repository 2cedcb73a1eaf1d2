#!/usr/bin/env node
// A stand-in planner–critic engine for fieldtest's tests of external engines
// (docs/reference/engine-protocol.md). Plain Node, no dependency: what a user's own engine is to
// fieldtest. It speaks OpenAI's Chat Completions through the base URLs and tokens it is given, in
// the prompt layout fieldtest's test upstream (test/providers/upstream-server.ts) answers as the sim
// does, and answers in fieldtest's result contract.
//
// Protocols:  --protocol command (default): one trial; goal from --goal FILE, roles from the
//               STANDIN_{PLANNER,CRITIC}_{URL,KEY,MODEL} environment; the result is its last stdout line.
//             --protocol worker: one JSON line per trial on stdin, one answer line on stdout.
// Misbehaving on purpose (--mode a,b,...):
//   fail-open      a critic call that fails counts as no findings (the engine approves)
//   crash          exit 3 right after the first planner answer
//   hang           never finish after the first planner answer
//   garbage        print something that is not JSON as the result
//   temperature    send temperature 0.7 and seed 7 (fieldtest records what is sent)
//   resend         send every critic request a second time, identically (an answer it rejected)
//   wrong-token    send the first request of the process with a wrong token, then the right one
//   report-error   report status error (the engine says it could not decide)
//   leak-token     report status error with its planner token in the message, and print it on stderr
// --start-delay-ms N: wait N ms before doing anything (an engine that is slow to start).
// --start-log FILE: append a line to FILE at every start (how many processes ran).
// --max-rounds N: plans checked before it escalates (default 3).
// --version: print the version and exit.
import { appendFileSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
if (argv.includes("--version")) {
  process.stdout.write("stand-in-engine 1.0.0\n");
  process.exit(0);
}
const modes = new Set((flag("--mode", "") ?? "").split(",").filter(Boolean));
const protocol = flag("--protocol", "command");
const maxRounds = Number(flag("--max-rounds", "3"));
const startDelay = Number(flag("--start-delay-ms", "0"));

const CRITIC_SCHEMA = { type: "object", properties: { findings: { type: "array" } }, required: ["findings"] };
let sentWrongToken = false;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const section = (heading, value) => `${heading} (canonical JSON):\n${JSON.stringify(value)}`;

/** One chat completion through the given role; the parsed answer, or null when the call failed. */
async function call(role, user, { critic = false } = {}) {
  const body = {
    model: role.model,
    messages: [
      { role: "system", content: critic ? "You review change plans." : "You write change plans." },
      { role: "user", content: user },
    ],
    response_format: critic ? { type: "json_schema", json_schema: { name: "critic_findings", schema: CRITIC_SCHEMA } } : { type: "json_object" },
    max_tokens: 2048,
    ...(modes.has("temperature") ? { temperature: 0.7, seed: 7 } : {}),
  };
  const send = async (token) =>
    fetch(`${role.base_url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "user-agent": "stand-in-engine/1.0.0" },
      body: JSON.stringify(body),
    });
  if (modes.has("wrong-token") && !sentWrongToken) {
    sentWrongToken = true;
    await (await send("wrong")).text();
  }
  let res = await send(role.token);
  if (critic && modes.has("resend") && res.ok) {
    await res.text();
    res = await send(role.token);
  }
  if (!res.ok) {
    await res.text();
    return null;
  }
  const data = await res.json();
  return JSON.parse(data.choices[0].message.content);
}

/** One trial: plan, critique, revise until the critic has no blocker or the rounds run out. */
async function trial(goal, roles) {
  const rounds = [];
  let plan = await call(roles.planner, section("Goal", goal));
  if (plan === null) return { status: "escalated", reasons: ["planner_unavailable"], rounds };
  if (modes.has("crash")) process.exit(3);
  // A pending promise alone would let Node exit: a timer keeps the process alive, as a stuck engine is.
  if (modes.has("hang")) await new Promise(() => setInterval(() => {}, 60_000));
  if (modes.has("report-error")) return { status: "error", error: "the stand-in could not decide", rounds };
  if (modes.has("leak-token")) {
    process.stderr.write(`stand-in: my token is ${roles.planner.token}\n`);
    return { status: "error", error: `my token is ${roles.planner.token}`, rounds };
  }
  for (let round = 0; ; round++) {
    const critique = await call(
      roles.critic,
      [section("Goal", goal), section("Plan under review", plan), section("Findings of the deterministic gates on this plan", [])].join("\n\n"),
      { critic: true },
    );
    const findings = critique?.findings ?? [];
    rounds.push({
      plan,
      findings: findings.map((f) => ({ origin: "critic", severity: f.severity, family: f.family, task_id: f.task_id ?? null, message: f.message })),
      critic: critique === null ? null : { findings },
    });
    if (critique === null && !modes.has("fail-open")) return { status: "escalated", reasons: ["critic_unavailable"], rounds };
    const blockers = findings.filter((f) => f.severity === "blocker");
    if (blockers.length === 0) return { status: "approved", reasons: [], rounds };
    if (round + 1 >= maxRounds) return { status: "escalated", reasons: ["revision_cap_reached"], rounds };
    const asked = blockers.map((f) => ({ key: `critic:${f.family}:${f.task_id}`, family: f.family, task_id: f.task_id ?? null, origin: "critic" }));
    const revised = await call(
      roles.planner,
      [section("Goal", goal), section("Current plan", plan), section("Findings that block this plan", asked)].join("\n\n"),
    );
    if (revised === null) return { status: "escalated", reasons: ["planner_unavailable"], rounds };
    plan = revised;
  }
}

const result = (r) => (modes.has("garbage") ? "this is not the result you are looking for {" : JSON.stringify(r));

const startLog = flag("--start-log");
if (startLog) appendFileSync(startLog, `${process.pid}\n`);
await sleep(startDelay);
if (protocol === "worker") {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const input = JSON.parse(line);
    const r = await trial(input.goal, input.roles);
    process.stdout.write(modes.has("garbage") ? `${result(r)}\n` : `${JSON.stringify({ trial_key: input.trial_key, result: r })}\n`);
  }
} else {
  const env = (role) => ({
    base_url: process.env[`STANDIN_${role}_URL`],
    token: process.env[`STANDIN_${role}_KEY`],
    model: process.env[`STANDIN_${role}_MODEL`],
  });
  const goal = JSON.parse(readFileSync(flag("--goal"), "utf8"));
  process.stdout.write("stand-in: planning\n");
  const r = await trial(goal, { planner: env("PLANNER"), critic: env("CRITIC") });
  process.stdout.write(`${result(r)}\n`);
}
