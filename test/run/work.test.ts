import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globToRegExp, parseShard, pendingTrials, planTrials, selectItems, shardTrials, type Selection, type WorkItem } from "../../harness/run/work.ts";

const itemArb = fc.record({
  suite: fc.constantFrom("corpus" as const, "boundary" as const),
  item_id: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
});
const itemsArb = fc.uniqueArray(itemArb, { selector: (i) => `${i.suite}/${i.item_id}`, maxLength: 25 });
const planArb = fc.tuple(itemsArb, fc.integer({ min: 1, max: 6 })).map(([items, trials]) => planTrials(items, trials));

describe("plan of work", () => {
  it("shards partition the key set and are balanced to within one trial", () => {
    fc.assert(
      fc.property(planArb, fc.integer({ min: 1, max: 9 }), (plan, count) => {
        const shards = Array.from({ length: count }, (_, i) => shardTrials(plan, { index: i + 1, count }).map((t) => t.key));
        const all = shards.flat();
        expect(new Set(all).size).toBe(all.length); // disjoint
        expect([...all].sort()).toEqual(plan.map((t) => t.key).sort()); // covering
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("shard assignment does not depend on the input order", () => {
    fc.assert(
      fc.property(planArb, fc.integer({ min: 1, max: 5 }), (plan, count) => {
        const reversed = [...plan].reverse();
        for (let i = 1; i <= count; i++) expect(shardTrials(reversed, { index: i, count })).toEqual(shardTrials(plan, { index: i, count }));
      }),
    );
  });

  it("resume is idempotent: once the pending trials are recorded nothing is pending", () => {
    fc.assert(
      fc.property(planArb, fc.array(fc.boolean()), fc.boolean(), (plan, done, retry) => {
        const recorded = plan.filter((_, i) => done[i % Math.max(1, done.length)]).map((t) => ({ ...t, status: "approved" as const }));
        const pending = pendingTrials(plan, recorded, retry);
        expect(pendingTrials(plan, [...recorded, ...pending.map((t) => ({ ...t, status: "escalated" as const }))], retry)).toEqual([]);
        expect(pendingTrials(pendingTrials(plan, recorded, retry), recorded, retry)).toEqual(pending);
        // pending and recorded partition the plan
        expect(pending.length + recorded.length).toBe(plan.length);
      }),
    );
  });

  it("--retry-errors re-runs exactly the errored trials", () => {
    const plan = planTrials([{ suite: "corpus", item_id: "a" }], 3);
    const recorded = [
      { ...plan[0]!, status: "error" as const },
      { ...plan[1]!, status: "escalated" as const },
    ];
    expect(pendingTrials(plan, recorded, false).map((t) => t.key)).toEqual(["corpus/a/2"]);
    expect(pendingTrials(plan, recorded, true).map((t) => t.key)).toEqual(["corpus/a/0", "corpus/a/2"]);
  });

  it("orders trial indices numerically and corpus before boundary", () => {
    const plan = planTrials(
      [
        { suite: "boundary", item_id: "b" },
        { suite: "corpus", item_id: "z" },
      ],
      11,
    );
    expect(plan[0]!.key).toBe("corpus/z/0");
    expect(plan[10]!.key).toBe("corpus/z/10");
    expect(plan[11]!.key).toBe("boundary/b/0");
  });

  it("filters by suite, glob, domain and category", () => {
    const items: WorkItem[] = [
      { suite: "corpus", item_id: "db-01-split", domain: "database", category: "strict", item_hash: "h" },
      { suite: "corpus", item_id: "dns-01-move", domain: "dns", category: "balanced", item_hash: "h" },
      { suite: "boundary", item_id: "db-twin-a", domain: "database", category: null, item_hash: "h" },
    ];
    const all: Selection = { suites: ["corpus", "boundary"], only: null, domain: null, category: null };
    const ids = (sel: Partial<Selection>) => selectItems(items, { ...all, ...sel }).map((i) => i.item_id);
    expect(ids({})).toHaveLength(3);
    expect(ids({ suites: ["boundary"] })).toEqual(["db-twin-a"]);
    expect(ids({ only: ["db-*"] })).toEqual(["db-01-split", "db-twin-a"]);
    expect(ids({ only: ["corpus/*"] })).toEqual(["db-01-split", "dns-01-move"]);
    expect(ids({ only: ["{dns,xx}-*"] })).toEqual(["dns-01-move"]);
    expect(ids({ domain: ["database"] })).toEqual(["db-01-split", "db-twin-a"]);
    expect(ids({ category: ["strict"] })).toEqual(["db-01-split"]);
  });

  it("globs: * stops at a slash, ** does not, regex characters are literal", () => {
    expect(globToRegExp("a*").test("a/b")).toBe(false);
    expect(globToRegExp("a**").test("a/b")).toBe(true);
    expect(globToRegExp("a.b").test("axb")).toBe(false);
    expect(globToRegExp("a?c").test("abc")).toBe(true);
  });

  it("parses --shard I/N (1-based)", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard("0/4")).toBeNull();
    expect(parseShard("5/4")).toBeNull();
    expect(parseShard("x")).toBeNull();
  });
});
