import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandsFor } from "../../harness/cli/commands/index.ts";
import { testHost } from "../run/helpers.ts";

const names = (argv: string[]) => commandsFor(argv).map((c) => c.name);

describe("lazy command registration", () => {
  it("loads only the command a command line names, none for --version, all for the command list", () => {
    expect(names(["check", "--goal", "g.yaml", "--plan", "p.json"])).toEqual(["check"]);
    expect(names(["help", "baseline"])).toEqual(["baseline"]);
    expect(names(["baseline", "publish", "--help"])).toEqual(["baseline"]);
    expect(names(["--version"])).toEqual([]);
    expect(names(["-V"])).toEqual([]);
    const all = COMMANDS.map((c) => c.name);
    expect(names([])).toEqual(all);
    expect(names(["--help"])).toEqual(all);
    expect(names(["chekc"])).toEqual(all); // the unknown-command error suggests the nearest names
  });

  it("each entry's module registers exactly the command the entry is named for", async () => {
    for (const entry of COMMANDS) {
      const program = new Command("fieldtest");
      (await entry.load()).register(program, {
        host: testHost(),
        action:
          (run) =>
          async (...args) =>
            void (await run(...args)),
        warn: () => {},
      });
      expect(
        program.commands.map((c) => c.name()),
        entry.name,
      ).toEqual([entry.name]);
    }
  });
});
