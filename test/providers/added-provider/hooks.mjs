// Module hooks: every import of the compiled provider registry gets registry.mjs instead, which
// extends the real one (and alone imports it).
const REAL = /\/dist\/src\/providers\/registry\.js$/;
const EXTENDED = new URL("./registry.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  return REAL.test(resolved.url) && context.parentURL !== EXTENDED ? { ...resolved, url: EXTENDED } : resolved;
}
