import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import type { TransportTiming } from "../../src/providers/adapter.ts";
import { createHttpFetch, timingFetchOptions } from "../../src/providers/http-fetch.ts";

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (req.url === "/gzip") {
      res.writeHead(201, { "content-type": "application/json", "content-encoding": "gzip", "x-echo": req.headers["x-test"] ?? "" });
      res.end(gzipSync(JSON.stringify({ method: req.method, body })));
    } else if (req.url === "/big") {
      // 8 KiB in 1 KiB chunks, more than the small fetch below reads.
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < 8; i++) res.write("x".repeat(1024));
      res.end();
    } else if (req.url === "/bomb") {
      // 64 KiB of zeros in a few hundred bytes of gzip.
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.alloc(64 * 1024)));
    } else if (req.url === "/hang") {
      // never answers
    } else {
      res.writeHead(204);
      res.end();
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

let clock = 0;
const fetchFn = createHttpFetch(() => ++clock);

describe("the SDKs' fetch", () => {
  it("sends method, headers and body, decodes a gzip answer and times the exchange", async () => {
    const timing: TransportTiming = { startedAt: null, endedAt: null };
    const res = await fetchFn(`${base}/gzip`, { method: "POST", headers: { "x-test": "yes" }, body: '{"a":1}', ...timingFetchOptions(timing) });
    expect([res.status, res.ok, res.headers.get("x-echo"), res.headers.get("content-encoding")]).toEqual([201, true, "yes", null]);
    expect(await res.json()).toEqual({ method: "POST", body: '{"a":1}' });
    expect(timing.startedAt).not.toBeNull();
    expect(timing.endedAt! > timing.startedAt!).toBe(true);
    expect((await fetchFn(`${base}/empty`)).status).toBe(204);
  });

  it("refuses an answer larger than its limit, sent so or decompressed so, as a failed fetch; one within it is read whole", async () => {
    const small = createHttpFetch(() => ++clock, 4096);
    await expect(small(`${base}/big`)).rejects.toThrow(new TypeError("fetch failed: the response is larger than 4096 bytes"));
    await expect(small(`${base}/bomb`)).rejects.toMatchObject({ name: "TypeError", message: "fetch failed: unreadable response body" });
    expect((await (await fetchFn(`${base}/big`)).text()).length).toBe(8 * 1024);
    expect((await (await fetchFn(`${base}/bomb`)).arrayBuffer()).byteLength).toBe(64 * 1024);
  });

  it("fails as the built-in fetch does: AbortError on abort, TypeError when nothing listens", async () => {
    const controller = new AbortController();
    const pending = fetchFn(`${base}/hang`, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(fetchFn(`http://127.0.0.1:${port}/`)).rejects.toThrow(TypeError);
  });
});
