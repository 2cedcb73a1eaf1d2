import fc from "fast-check";
import { LEVELS, REVERSIBILITY, TASK_KINDS, VERIFY_SUBJECTS } from "../../src/formats/enums.ts";
import type { AttributeValue } from "../../src/formats/plan.ts";
import { makePlan } from "./plans.ts";

export const prose = fc.string({ minLength: 1, maxLength: 12 });

interface AnyPlanOptions {
  /** The names that facts, outputs and resources are drawn from. */
  names: readonly string[];
  /** Task attributes (absent when not given). */
  attributes?: fc.Arbitrary<Record<string, AttributeValue> | undefined>;
  maxTasks?: number;
}

/** Any plan over a few ids and names, sound or not: gates and packs must behave on all of them. */
export function anyPlanOf(o: AnyPlanOptions) {
  const names = fc.subarray([...o.names], { maxLength: 3 });
  return fc
    .integer({ min: 1, max: o.maxTasks ?? 8 })
    .chain((n) => {
      const ids = Array.from({ length: n }, (_, i) => `t${i}`);
      const id = fc.constantFrom(...ids);
      const task = (taskId: string) =>
        fc.record({
          id: fc.constant(taskId),
          description: prose,
          kind: fc.constantFrom(...TASK_KINDS),
          risk: fc.constantFrom(...LEVELS),
          blast_radius: fc.constantFrom(...LEVELS),
          reversibility: fc.constantFrom(...REVERSIBILITY),
          parallel_group: fc.constantFrom(null, "g1", "g2"),
          preconditions: fc.array(fc.record({ fact: fc.constantFrom(...o.names), established_by: fc.constantFrom(null, "env", ...ids) }), { maxLength: 2 }),
          establishes: names,
          produces: names,
          mutates: names,
          destroys: names,
          verifies: fc.option(fc.record({ task: id, subject: fc.constantFrom(...VERIFY_SUBJECTS), reads: names }), { nil: null }),
          rollback: fc.option(fc.record({ trigger: id, action: prose, requires: names, restores: names }), { nil: null }),
          attributes: o.attributes ?? fc.constant(undefined),
        });
      const dependency = fc.record({ from: id, to: id, kind: fc.constantFrom("hard", "soft") });
      return fc.tuple(fc.tuple(...ids.map(task)), fc.array(dependency, { maxLength: 2 * n }));
    })
    .map(([tasks, deps]) => makePlan(tasks, deps));
}
