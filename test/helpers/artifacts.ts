import { fileURLToPath } from "node:url";

/** Where browser tests leave screenshots for people to look at (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts", import.meta.url));
