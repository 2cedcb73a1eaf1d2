import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup/zod-compile.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores: one worker per core plus one more, since many files wait on child processes.
    maxWorkers: 3,
    // Files share their worker's module cache instead of importing the engine afresh each time.
    isolate: false,
  },
});
