import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { PACKAGE_ROOT } from "../../harness/package.ts";

/** Every relative import of a module, value, type-only and dynamic alike, as paths from the package root. */
export function importsOf(file: string): string[] {
  const text = readFileSync(join(PACKAGE_ROOT, file), "utf8");
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^;]*?\s+from\s+)?"(\.[^"]+)"/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)].map((m) => m[1]!),
  ];
  return specifiers.map((s) => normalize(join(dirname(file), s))).filter((p) => existsSync(join(PACKAGE_ROOT, p)));
}

/** The TypeScript modules under a folder of the package, as paths from the package root. */
export const sources = (dir: string): string[] =>
  readdirSync(join(PACKAGE_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join(dir, f));

/** The modules a module reaches through its imports, itself excluded unless a cycle leads back to it. */
export function reached(from: string): Set<string> {
  const seen = new Set<string>();
  const queue = importsOf(from);
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...importsOf(next));
  }
  return seen;
}

/**
 * The import cycles among the given modules: each strongly connected part of their import graph
 * with more than one module (or a module importing itself), its modules sorted (Tarjan's algorithm).
 * `importsOfModule` reads a module's imports (the files themselves unless a test gives a graph).
 */
export function importCycles(files: readonly string[], importsOfModule: (file: string) => string[] = importsOf): string[][] {
  const inside = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOfModule(f).filter((to) => inside.has(to))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      part.push(w);
      if (w === v) break;
    }
    if (part.length > 1 || edges.get(v)!.includes(v)) cycles.push(part.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}
