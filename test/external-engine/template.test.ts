import { describe, expect, it } from "vitest";
import { expand, placeholdersIn, TemplateError, variablesIn } from "../../harness/engine/template.ts";

describe("engine manifest placeholders", () => {
  const values = { goal_id: "db-01", "planner.token": "ft-abc" };

  it("fills {name} from fieldtest's values and ${VAR} from the environment, as a shell would", () => {
    const env = { PY: "/venv/bin/python", SRC: "/src/pc", EMPTY: "" };
    expect(expand("{goal_id}.json", values, env)).toBe("db-01.json");
    expect(expand("${PY:-python3} -m x", values, env)).toBe("/venv/bin/python -m x");
    expect(expand("${MISSING:-python3}", values, env)).toBe("python3");
    expect(expand("${EMPTY:-python3}", values, env)).toBe("python3");
    expect(expand("${SRC:+${SRC}/src}", values, env)).toBe("/src/pc/src");
    expect(expand("${MISSING:+${MISSING}/src}", values, env)).toBe("");
    expect(expand("${MISSING}", values, env)).toBe("");
    expect(expand("{{literal}} $$HOME", values, env)).toBe("{literal}} $HOME");
    expect(expand('key = "{planner.token}"', values, env)).toBe('key = "ft-abc"');
  });

  it("refuses a {name} fieldtest does not fill, and a variable that looks like a credential", () => {
    expect(() => expand("{nope}", values, {})).toThrow(TemplateError);
    expect(() => expand("${OPENAI_API_KEY}", values, { OPENAI_API_KEY: "sk-real" })).toThrow(/credential/);
    expect(() => expand("${X:-${ANTHROPIC_API_KEY}}", values, { ANTHROPIC_API_KEY: "k" })).toThrow(/credential/);
  });

  it("lists what a string uses, defaults included", () => {
    expect(placeholdersIn("{a} ${X:-{b}} {{c}}")).toEqual(["a", "b"]);
    expect(variablesIn("${X} ${Y:+${Z}}")).toEqual(["X", "Y", "Z"]);
  });
});
