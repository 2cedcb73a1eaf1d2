/** Header names whose values are credentials. */
const SECRET_NAME = /auth|key|token|secret|cookie|passw|session|credential/i;
/** Values that look like credentials whatever their header name. */
const SECRET_VALUE = /^(bearer|basic)\s|^sk-|^sk-ant-|^xox.-|^gh[pousr]_|^AIza|^eyJ[\w-]+\.[\w-]+/i;

export const REDACTED = "<redacted>";

export function isCredentialHeader(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value.trim());
}

export function redactHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, isCredentialHeader(k, v) ? REDACTED : v]));
}

/** Splits `K=V` (also `K: V`); null when there is no separator. */
export function splitHeader(text: string): [string, string] | null {
  const m = /^([^=:]+)[=:]\s*(.*)$/s.exec(text);
  return m ? [m[1]!.trim(), m[2]!] : null;
}

/**
 * The command line as recorded in the manifest: every `--header` value that looks like a
 * credential is replaced. Environment variables are never read here.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--header" && i + 1 < argv.length) {
      out.push(a, redactHeaderArg(argv[++i]!));
    } else if (a.startsWith("--header=")) {
      out.push(`--header=${redactHeaderArg(a.slice("--header=".length))}`);
    } else out.push(a);
  }
  return out;
}

function redactHeaderArg(arg: string): string {
  const kv = splitHeader(arg);
  if (kv === null) return REDACTED;
  return isCredentialHeader(kv[0], kv[1]) ? `${kv[0]}=${REDACTED}` : arg;
}
