import { isCredentialHeader } from "../../src/providers/credentials.ts";
import { hasCredentials, withoutCredentials } from "../../src/providers/endpoint.ts";

export const REDACTED = "<redacted>";

export function redactHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, isCredentialHeader(k, v) ? REDACTED : v]));
}

/** Splits `K=V` (also `K: V`); null when there is no separator. */
export function splitHeader(text: string): [string, string] | null {
  const m = /^([^=:]+)[=:]\s*(.*)$/s.exec(text);
  return m ? [m[1]!.trim(), m[2]!] : null;
}

/** A URL anywhere in a text (an argument, a message). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** Every URL in the text without its userinfo and query (docs/design.md §8: no credential reaches a file). */
function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => {
    try {
      return hasCredentials(url) ? withoutCredentials(url) : url;
    } catch {
      // Not a parseable URL: whatever follows the scheme may still hold userinfo or a query.
      return url.replace(/\/\/[^/@?#]*@/, "//").replace(/[?#].*$/, "");
    }
  });
}

/**
 * The command line as recorded in the manifest: every `--header` value that looks like a
 * credential is replaced, and every URL loses its userinfo and query. Environment variables are
 * never read here.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--header" && i + 1 < argv.length) {
      out.push(a, redactHeaderArg(argv[++i]!));
    } else if (a.startsWith("--header=")) {
      out.push(`--header=${redactHeaderArg(a.slice("--header=".length))}`);
    } else out.push(redactUrls(a));
  }
  return out;
}

function redactHeaderArg(arg: string): string {
  const kv = splitHeader(arg);
  if (kv === null) return REDACTED;
  return isCredentialHeader(kv[0], kv[1]) ? `${kv[0]}=${REDACTED}` : arg;
}
