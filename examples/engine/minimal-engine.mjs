#!/usr/bin/env node
// A minimal planner–critic engine in fieldtest's worker protocol (docs/reference/engine-protocol.md):
// one JSON line per trial on stdin, one answer line on stdout; its LLM calls go to the base URLs
// and tokens fieldtest gives it, which are its recording proxy. Manifest: examples/engine/minimal-engine.yaml.
import { createInterface } from "node:readline";

const section = (heading, value) => `${heading} (canonical JSON):\n${JSON.stringify(value)}`;

async function ask(role, user, schemaName) {
  const res = await fetch(`${role.base_url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${role.token}` },
    body: JSON.stringify({
      model: role.model,
      messages: [{ role: "system", content: "Answer with one JSON object." }, { role: "user", content: user }],
      response_format: { type: "json_schema", json_schema: { name: schemaName, schema: { type: "object" } } },
    }),
  });
  if (!res.ok) throw new Error(`${schemaName}: HTTP ${res.status}`);
  return JSON.parse((await res.json()).choices[0].message.content);
}

async function trial({ goal, roles }) {
  const plan = await ask(roles.planner, section("Goal", goal), "plan");
  let critique;
  try {
    critique = await ask(roles.critic, [section("Goal", goal), section("Plan under review", plan)].join("\n\n"), "critic_findings");
  } catch {
    // Fail closed: a critic that did not answer never approves a plan.
    return { status: "escalated", reasons: ["critic_unavailable"], rounds: [{ plan, findings: [], critic: null }] };
  }
  const blocked = critique.findings.some((f) => f.severity === "blocker");
  return { status: blocked ? "escalated" : "approved", reasons: blocked ? ["critic_blocked"] : [], rounds: [{ plan, findings: [], critic: critique }] };
}

for await (const line of createInterface({ input: process.stdin })) {
  const input = JSON.parse(line);
  const answer = await trial(input).then((result) => ({ result }), (e) => ({ error: String(e.message) }));
  process.stdout.write(`${JSON.stringify({ trial_key: input.trial_key, ...answer })}\n`);
}
