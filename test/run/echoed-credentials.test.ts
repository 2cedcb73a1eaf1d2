import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUN_FILES } from "../../harness/run/store.ts";
import { chatCompletion, startFakeServer, type FakeServer, type Received } from "../providers/fake-server.ts";
import { runFieldtest } from "../helpers/cli.ts";

// Built from parts, so no credential-shaped literal sits in the repository.
const KEY = ["sk", "ECHOED", "env", "key", "4f1e9a"].join("-");
const TOKEN = ["hdr", "ECHOED", "custom", "token", "8b2c"].join("-");
const QUERY = ["q+ECHOED", "query/value", "3d7e"].join("-");

const root = mkdtempSync(join(tmpdir(), "ft-echoed-"));
const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A server that echoes every credential it was sent in what it says of itself: the reported model and the system fingerprint. */
function echoing(r: Received) {
  const query = new URL(r.path, "http://x").searchParams.get("api-key") ?? "";
  const token = String(r.headers["x-custom-token"] ?? "");
  return {
    status: 200,
    body: chatCompletion(JSON.stringify({ findings: [] }), {
      model: `gpt-4o-mini-${String(r.headers.authorization)}`,
      system_fingerprint: `fp ${token} ${encodeURIComponent(query)} ${Buffer.from(`svc:${token}`).toString("base64")}`,
    }),
  };
}

/** Every form of a credential this test looks for: as sent, URL-encoded, and base64 (what a Basic header carries). */
const formsOf = (secret: string) => [
  secret,
  encodeURIComponent(secret),
  Buffer.from(`svc:${secret}`).toString("base64"),
  Buffer.from(secret).toString("base64"),
];

const everyFile = (dir: string) => readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8"));

describe("credentials a server echoes in its response metadata", () => {
  it("are masked in every record, file and line of output, as they are in the model's text", async () => {
    const server = await startFakeServer(echoing);
    servers.push(server);
    const out = join(root, "run");
    const env = { CI: "1", OPENAI_API_KEY: KEY };
    const args = ["run", "--suite", "boundary", "--only", "clean-blast-label-drill-*", "--trials", "1", "--provider", "openai", "--model", "gpt-4o-mini"];
    const run = await runFieldtest(
      [...args, "--base-url", `${server.url}/v1?api-key=${encodeURIComponent(QUERY)}`, "--header", `X-Custom-Token=${TOKEN}`, "--out", out],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    // The test can fail: every credential went out, and the server echoed each.
    const sent = JSON.stringify(server.received.map((r) => [r.path, r.headers]));
    for (const secret of [KEY, TOKEN, encodeURIComponent(QUERY)]) expect(sent).toContain(secret);
    const trials = readFileSync(join(out, RUN_FILES.trials), "utf8");
    expect(trials).toContain('"model":"gpt-4o-mini-Bearer [redacted]"');
    expect(trials).toContain('"system_fingerprint":"fp [redacted] [redacted] ');

    const written = [...everyFile(out), run.stdout, run.stderr].join("\n");
    for (const secret of [KEY, TOKEN, QUERY]) for (const form of formsOf(secret)) expect(written, form).not.toContain(form);

    // A run an older fieldtest recorded with the key in the clear: diff prints it masked (the key is in its environment).
    const older = join(root, "older");
    cpSync(out, older, { recursive: true });
    writeFileSync(join(older, RUN_FILES.trials), trials.replaceAll("Bearer [redacted]", `Bearer ${KEY}`));
    const baseline = join(root, "base.json");
    expect((await runFieldtest(["baseline", "publish", out, "--out", baseline], env)).code).toBe(0);
    const jsonOut = join(root, "diff.json");
    const diff = await runFieldtest(["diff", older, "--baseline", baseline, "--json-out", jsonOut], env);
    expect(diff.stdout).toContain("reported");
    expect(diff.stdout).toContain("[redacted]");
    for (const text of [diff.stdout, diff.stderr, readFileSync(jsonOut, "utf8")]) expect(text).not.toContain(KEY);
  }, 60_000);
});
