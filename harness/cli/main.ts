import { keepParsedYaml } from "../../src/formats/yaml-cache.ts";
import { PARSED_YAML_DIR } from "../package.ts";
import { exitWith } from "./exit.ts";
import { realHost } from "./host.ts";
import { runCli } from "./program.ts";

// A reader that stops early (`fieldtest ... | head`) closes the pipe: that ends the output, not in error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

// Parsed YAML (the corpus above all) is kept between commands, in the package's own cache folder.
keepParsedYaml(PARSED_YAML_DIR);

await exitWith(await runCli(realHost(process.argv.slice(2))));
