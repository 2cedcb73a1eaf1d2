import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf, reached, sources } from "../helpers/imports.ts";

const PROVIDERS = sources("src/providers");
const REGISTRY = join("src", "providers", "registry.ts");

describe("the provider layer knows no domain", () => {
  it("imports nothing of the gates, the plan graph, the metrics or statistics, and of the formats only call records and the file loader", () => {
    const edges = PROVIDERS.flatMap((file) => importsOf(file).map((to) => `${file} -> ${to}`));
    // The reader sees every form of import: a dynamic one, and a type-only one.
    expect(edges).toContain(`${REGISTRY} -> ${join("src", "sim", "adapter.ts")}`);
    expect(edges).toContain(`${join("src", "providers", "types.ts")} -> ${join("src", "formats", "records.ts")}`);
    const domain = edges.filter(
      (e) => /-> src\/(gates|graph|metrics|stats)\//.test(e) || (/-> src\/formats\//.test(e) && !/-> src\/formats\/(records|load)\.ts$/.test(e)),
    );
    expect(domain).toEqual([]);
  });

  it("reaches the sim only through its registry entry and its settings' schema", () => {
    const sim = PROVIDERS.flatMap((file) =>
      importsOf(file)
        .filter((to) => to.startsWith(join("src", "sim")))
        .map((to) => `${relative("src", file)} -> ${relative("src", to)}`),
    );
    expect(sim.sort()).toEqual(["providers/config.ts -> sim/profile.ts", "providers/registry.ts -> sim/adapter.ts"]);
  });

  it("loads no adapter that imports the registry back: the registry's loaders close no cycle", () => {
    const fromRegistry = reached(REGISTRY);
    for (const adapter of ["providers/openai.ts", "providers/anthropic.ts", "sim/adapter.ts"]) expect(fromRegistry, adapter).toContain(join("src", adapter));
    expect(fromRegistry).not.toContain(REGISTRY);
  });
});
