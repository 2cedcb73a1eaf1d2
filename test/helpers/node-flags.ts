/**
 * Node's flags for the test workers (vitest.config.ts) and the processes tests start: no V8 helper
 * threads (concurrent GC and compilation). The workers already keep both cores busy, so those
 * threads only add CPU time: about 18% more per process, measured on `fieldtest report`.
 */
export const NODE_FLAGS = ["--single-threaded"];
