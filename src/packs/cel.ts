import { createRequire } from "node:module";

type CelRuntime = typeof import("@bufbuild/cel");

let runtime: CelRuntime | undefined;

/**
 * The CEL runtime, loaded on first use: a command that judges no pack (`check` without --pack,
 * `--version`) never pays for its ~130 modules. Every module reaches it through here (others
 * import its types only), so one copy of the package serves every caller: values made by one copy
 * are not recognised by the other.
 */
export const cel = (): CelRuntime => (runtime ??= createRequire(import.meta.url)("@bufbuild/cel") as CelRuntime);
