// Fault-injection sweep (issue 12). Prints figures; asserts nothing.
//
//   node dist/scripts/fault-sweep.js [FAULT_RATE] [TRIALS]     default 0.3 and 5
//
// Runs the default selection (every corpus goal and boundary fixture) as
// `fieldtest run --provider openai --base-url URL` against a local OpenAI-compatible server whose
// model is the sim and which answers FAULT_RATE of the requests with a fault (503, 429, a cut
// body, prose, no findings array, wrong-shape findings, non-object findings, findings without a
// message, a valid answer the server says it ended at its output limit, an error envelope sent with
// 200; test/providers/sim-server.ts). Everything after the socket is the real code path.
// The figures that must read 0: critic answers without a well-formed finding that were accepted
// (call outcome ok) or recorded as a clean audit, and answers the server ended early that were accepted.
import { createWriteStream, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTrialLog } from "../harness/run/store.ts";
import { RunCliSchema } from "../harness/run/settings.ts";
import { runSweep, type SweepHost } from "../harness/run/sweep.ts";
import { realHost } from "../harness/cli/host.ts";
import { realEngine } from "../harness/assembly.ts";
import { lacksWellFormedFinding, startSimServer } from "../test/providers/sim-server.ts";

const faultRate = Number(process.argv[2] ?? 0.3);
const trials = process.argv[3] ?? "5";
const sim = await startSimServer({ faultRate, seed: 12 });
const out = join(mkdtempSync(join(tmpdir(), "ft-fault-sweep-")), "run");
const quiet = createWriteStream("/dev/null") as unknown as NodeJS.WriteStream;
const host: SweepHost = { ...realHost(["run"]), stdout: quiet, stderr: quiet, env: { CI: "1" } };
const started = Date.now();
const code = await runSweep(
  RunCliSchema.parse({ trials, provider: "openai", model: "sim-over-http", baseUrl: `${sim.server.url}/v1`, out }),
  {},
  realEngine({}),
  host,
);
await sim.close();

const records = readTrialLog(out, (r) => r).records;
const criticCalls = records.flatMap((r) => r.calls).filter((c) => c.role === "critic");
const shapeless = criticCalls.filter((c) => lacksWellFormedFinding(c.raw_text));
const audits = records.flatMap((r) => r.rounds.map((round) => round.critic)).filter((a) => a !== null);
const byStatus = (s: string) => records.filter((r) => r.status === s).length;
const unavailable = (reason: string) => audits.filter((a) => a.outcome === "critic_unavailable" && a.reason === reason).length;
const requests = (role: "planner" | "critic") => Object.values(sim.served[role]).reduce((a, b) => a + b, 0);

console.log(`fault rate ${faultRate}, ${trials} trials per item, exit ${code}, ${((Date.now() - started) / 1000).toFixed(1)} s, run ${out}`);
console.log(`requests served: planner ${requests("planner")}, critic ${requests("critic")}`);
console.log(`critic faults served: ${JSON.stringify(sim.served.critic)}`);
console.log(`trials ${records.length}: approved ${byStatus("approved")}, escalated ${byStatus("escalated")}, error ${byStatus("error")}`);
console.log(
  `critic audits ${audits.length}: ok ${audits.filter((a) => a.outcome === "ok").length}, unavailable invalid_output ${unavailable("invalid_output")}, provider_error ${unavailable("provider_error")}`,
);
console.log(`critic answers without a well-formed finding: ${shapeless.length}; accepted as ok: ${shapeless.filter((c) => c.outcome === "ok").length}`);
console.log(`clean (ok) audits resting on such an answer: ${audits.filter((a) => a.outcome === "ok" && lacksWellFormedFinding(a.raw_text)).length}`);
const ended = records.flatMap((r) => r.calls).filter((c) => c.error_class === "incomplete");
console.log(`answers the server ended at its output limit: ${ended.length}; accepted as ok: ${ended.filter((c) => c.outcome === "ok").length}`);
