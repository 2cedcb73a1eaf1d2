/**
 * Node's flags for the test workers (vitest.config.ts): no V8 helper threads (concurrent GC and
 * compilation). The workers already keep both cores busy, so those threads only add CPU time:
 * about 18% more per process, measured on `fieldtest report`.
 */
export const NODE_FLAGS = ["--single-threaded"];

/**
 * The same for the short sweep processes the crash tests start and kill, which also stop at V8's
 * baseline compiler: optimizing code they run for a second never pays back (15% less CPU per
 * process, five paired runs of a killed sweep). The workers keep the optimizing
 * compilers: the engine's hot loops run in them for minutes.
 */
export const CHILD_NODE_FLAGS = [...NODE_FLAGS, "--max-opt=1"];
