/** The URL without userinfo, query or fragment: scheme, host, port and path, as given. */
export function withoutCredentials(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** Whether a URL carries something that may be a credential (userinfo or a query). */
export function hasCredentials(url: string): boolean {
  const u = new URL(url);
  return u.username !== "" || u.password !== "" || u.search !== "";
}

/** The parts of a URL that may be credentials, as they may appear in text: userinfo and query values. */
export function urlCredentials(url: string): string[] {
  const u = new URL(url);
  const parts = [u.username, u.password, ...[...u.searchParams.values()]];
  return [...new Set(parts.flatMap((p) => [p, decoded(p)]))].filter((p) => p !== "");
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The effective endpoint as recorded (DESIGN.md §7): scheme, host, port and path; never credentials or query. */
export function publicBaseUrl(url: string): string {
  return withoutCredentials(url).replace(/\/+$/, "");
}
