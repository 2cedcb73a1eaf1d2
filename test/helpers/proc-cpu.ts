import { readFileSync } from "node:fs";

/** Linux counts these fields in USER_HZ ticks, 100 a second on every architecture it builds for. */
const TICK_MS = 10;

/**
 * CPU time of this process (user + system) and of the child processes it has waited for, from
 * /proc/self/stat (Linux): after the command name, utime, stime, cutime and cstime are the 12th to
 * 15th fields, in clock ticks.
 */
export function procCpuMs(): { self: number; children: number } {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return { self: (Number(fields[11]) + Number(fields[12])) * TICK_MS, children: (Number(fields[13]) + Number(fields[14])) * TICK_MS };
}
