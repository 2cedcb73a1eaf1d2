import { join } from "node:path";
import { PACKAGE_ROOT } from "./package.ts";

/** The domain packs that ship with fieldtest (`packs/<name>/`), found from the sources and from the build alike. */
export const SHIPPED_PACKS_DIR = join(PACKAGE_ROOT, "packs");
