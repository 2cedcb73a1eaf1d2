// Lint: only rules that catch defects (a promise nobody awaits, an object printed as
// "[object Object]", a condition that is always true, a switch that misses a case); layout is
// Prettier's job and naming is review's. The type-aware rules read the program through
// tsconfig.json: about 50 s of CPU, most of it TypeScript checking the program once.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import { noUnusedExport } from "./scripts/lint/unused-exports.js";

const defects = {
  "no-async-promise-executor": "error",
  "no-case-declarations": "error",
  "no-compare-neg-zero": "error",
  "no-cond-assign": "error",
  "no-constant-binary-expression": "error",
  "no-constant-condition": "error",
  "no-debugger": "error",
  "no-dupe-else-if": "error",
  "no-duplicate-case": "error",
  "no-empty-character-class": "error",
  "no-empty-pattern": "error",
  "no-ex-assign": "error",
  "no-invalid-regexp": "error",
  "no-irregular-whitespace": "error",
  "no-loss-of-precision": "error",
  "no-misleading-character-class": "error",
  "no-self-assign": "error",
  "no-self-compare": "error",
  "no-sparse-arrays": "error",
  "no-unreachable-loop": "error",
  "no-unsafe-finally": "error",
  "no-unsafe-optional-chaining": "error",
  "no-unused-private-class-members": "error",
  "no-useless-assignment": "error",
  "no-useless-backreference": "error",
  "require-yield": "error",
  "use-isnan": "error",
};

const typedDefects = {
  "@typescript-eslint/await-thenable": "error",
  "@typescript-eslint/ban-ts-comment": ["error", { "ts-expect-error": "allow-with-description" }],
  "@typescript-eslint/no-array-delete": "error",
  "@typescript-eslint/no-base-to-string": "error",
  "@typescript-eslint/no-explicit-any": "error",
  "@typescript-eslint/no-extra-non-null-assertion": "error",
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-for-in-array": "error",
  "@typescript-eslint/no-implied-eval": "error",
  "@typescript-eslint/no-misused-promises": "error",
  "@typescript-eslint/no-non-null-asserted-optional-chain": "error",
  "@typescript-eslint/no-unused-expressions": "error",
  "@typescript-eslint/only-throw-error": "error",
  "@typescript-eslint/prefer-promise-reject-errors": "error",
  "@typescript-eslint/return-await": ["error", "in-try-catch"],
  // A switch with a `default` has chosen what the other cases do.
  "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
};

export default defineConfig(
  { ignores: ["dist/**", "runs/**", "reports/**", "test-artifacts/**"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  { files: ["**/*.js", "**/*.mjs"], rules: defects },
  // Outside tsconfig.json's program (vitest reads it itself): the rules that need no types.
  { files: ["vitest.config.ts"], languageOptions: { parser: tseslint.parser }, rules: defects },
  {
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["vitest.config.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: "./tsconfig.json", tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin, fieldtest: { rules: { "no-unused-export": noUnusedExport } } },
    rules: {
      ...defects,
      ...typedDefects,
      // vitest.config.ts names its global setup files by path: their default exports are its.
      "fieldtest/no-unused-export": ["error", { allow: ["test/setup/build.ts:default", "test/setup/temp-root.ts:default"] }],
    },
  },
);
