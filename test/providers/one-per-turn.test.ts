import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { onePerTurn } from "../../src/providers/send-thread/one-per-turn.ts";

/** A loop whose turns run only when the test says so. */
function manualLoop() {
  const turns: (() => void)[] = [];
  return {
    nextTurn: (run: () => void) => void turns.push(run),
    pending: () => turns.length,
    turn: () => turns.shift()!(),
  };
}

describe("onePerTurn", () => {
  it("starts a burst one item per turn, in order", () => {
    const loop = manualLoop();
    const started: number[] = [];
    const enqueue = onePerTurn((n: number) => void started.push(n), loop.nextTurn);
    for (const n of [1, 2, 3]) enqueue(n);
    // Nothing starts in the turn the burst arrived in, and one turn is asked for, not three.
    expect(started).toEqual([]);
    expect(loop.pending()).toBe(1);
    loop.turn();
    expect(started).toEqual([1]);
    expect(loop.pending()).toBe(1);
    loop.turn();
    loop.turn();
    expect(started).toEqual([1, 2, 3]);
    expect(loop.pending()).toBe(0);
  });

  it("asks for a turn again once idle", () => {
    const loop = manualLoop();
    const started: string[] = [];
    const enqueue = onePerTurn((s: string) => void started.push(s), loop.nextTurn);
    enqueue("a");
    loop.turn();
    expect(loop.pending()).toBe(0);
    enqueue("b");
    expect(loop.pending()).toBe(1);
    loop.turn();
    expect(started).toEqual(["a", "b"]);
  });

  it("starts every item exactly once, in arrival order, however arrivals and turns interleave", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 60 }), (steps) => {
        const loop = manualLoop();
        const started: number[] = [];
        const enqueue = onePerTurn((n: number) => void started.push(n), loop.nextTurn);
        let arrived = 0;
        // true: an item arrives; false: the loop takes a turn, if one is due.
        for (const arrive of steps) {
          if (arrive) enqueue(arrived++);
          else if (loop.pending() > 0) loop.turn();
          // Never more than one turn outstanding.
          expect(loop.pending()).toBeLessThanOrEqual(1);
        }
        while (loop.pending() > 0) loop.turn();
        expect(started).toEqual([...Array(arrived).keys()]);
      }),
    );
  });

  it("defers to the real loop's next turn by default", async () => {
    const started: number[] = [];
    const enqueue = onePerTurn((n: number) => void started.push(n));
    enqueue(1);
    enqueue(2);
    expect(started).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2]);
  });
});
