// An ESLint rule that reports an export no other file uses: it is either used in its own file only
// (drop `export`) or not at all (delete it). It reads the TypeScript program the type-aware rules
// already built, once for the whole program, so it costs a walk of the program's identifiers.
import ts from "typescript";

/** The symbol behind an import or re-export, one link at a time: each link uses the export it names. */
function* aliasChain(checker, symbol) {
  for (let s = symbol; s !== undefined; s = s.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(s) : undefined) yield s;
}

/** The export symbols of `module` named by the properties of `type` (a module object used through an interface). */
function exportsNamedBy(checker, module, type) {
  const names = new Set(type.getProperties().map((p) => p.name));
  return checker.getExportsOfModule(module).filter((e) => names.has(e.name));
}

/**
 * Every symbol some file uses from another: through an identifier (an import, a re-export, a
 * property of a namespace or of `await import(...)`), a name destructured from a module object, or a
 * dynamic `import()` whose value is typed by an interface (the properties that interface names).
 */
function usedAcrossFiles(program, files) {
  const checker = program.getTypeChecker();
  const used = new Set();
  for (const file of files) {
    const useOutside = (symbol) => {
      for (const s of aliasChain(checker, symbol)) if (s.declarations?.some((d) => d.getSourceFile() !== file)) used.add(s);
    };
    const visit = (node) => {
      if (ts.isIdentifier(node)) {
        const symbol = checker.getSymbolAtLocation(node);
        if (symbol !== undefined) useOutside(symbol);
        const binding = node.parent;
        if (ts.isBindingElement(binding) && ts.isObjectBindingPattern(binding.parent) && (binding.propertyName ?? binding.name) === node) {
          const property = checker.getTypeAtLocation(binding.parent).getProperty(node.text);
          if (property !== undefined) useOutside(property);
        }
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined) {
        const module = checker.getSymbolAtLocation(node.arguments[0]);
        const contextual = checker.getContextualType(node);
        const promised = contextual && checker.getAwaitedType(contextual);
        if (module !== undefined && promised !== undefined) for (const e of exportsNamedBy(checker, module, promised)) useOutside(e);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return used;
}

/** Whether an identifier of `file` other than the declaration's own name refers to `symbol`. */
function usedInOwnFile(checker, file, symbol) {
  const names = new Set(symbol.declarations.map((d) => ts.getNameOfDeclaration(d)));
  let found = false;
  const visit = (node) => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === symbol.name && !names.has(node) && checker.getSymbolAtLocation(node) === symbol) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The exports of the program's own files (not declaration files, not node_modules) that no other
 * file uses, each with its file, name, position and whether its own file uses it.
 */
export function unusedExports(program) {
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes("/node_modules/"));
  const used = usedAcrossFiles(program, files);
  const unused = [];
  for (const file of files) {
    const module = checker.getSymbolAtLocation(file);
    if (module === undefined) continue;
    for (const e of checker.getExportsOfModule(module)) {
      const own = [...aliasChain(checker, e)].at(-1);
      const declaration = own.declarations?.find((d) => d.getSourceFile() === file);
      // A re-export of another file's symbol is that file's export.
      if (declaration === undefined || used.has(e) || used.has(own)) continue;
      // `export const a = ...` is reported where its `export` stands.
      const statement = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
      unused.push({ file: file.fileName, name: e.name, pos: statement.getStart(), usedInOwnFile: usedInOwnFile(checker, file, own) });
    }
  }
  return unused;
}

const byProgram = new WeakMap();

/** The rule: `allow` lists exports that something outside the program uses, as `path/from/root.ts:name`. */
export const noUnusedExport = {
  meta: {
    type: "problem",
    docs: { description: "an export that no other file imports" },
    schema: [{ type: "object", properties: { allow: { type: "array", items: { type: "string" } } }, additionalProperties: false }],
  },
  create(context) {
    const program = context.sourceCode.parserServices?.program;
    if (!program) return {};
    if (!byProgram.has(program)) byProgram.set(program, unusedExports(program));
    const allow = new Set(context.options[0]?.allow ?? []);
    const root = context.cwd.endsWith("/") ? context.cwd : `${context.cwd}/`;
    return {
      Program() {
        for (const u of byProgram.get(program)) {
          if (u.file !== context.physicalFilename || allow.has(`${u.file.slice(root.length)}:${u.name}`)) continue;
          const message = u.usedInOwnFile
            ? `'${u.name}' is exported but only its own file uses it: drop the export`
            : `'${u.name}' is exported and used nowhere: delete it`;
          context.report({ loc: context.sourceCode.getLocFromIndex(u.pos), message });
        }
      },
    };
  },
};
