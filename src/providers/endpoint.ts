/** Whether a role talks to the vendor's own API (its default endpoint, or an explicit URL on the vendor's host). */
export function isVendorEndpoint(vendorUrl: string, baseUrl: string | undefined): boolean {
  return baseUrl === undefined || new URL(baseUrl).host === new URL(vendorUrl).host;
}

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
  // Query values as written (percent-encoded, `+` for a space) as well as decoded: a server may echo either.
  const rawValues = u.search
    .slice(1)
    .split("&")
    .flatMap((pair) => pair.split("=").slice(1).join("="));
  const parts = [u.username, u.password, ...rawValues, ...[...u.searchParams.values()].flatMap((v) => [v, encodeURIComponent(v)])];
  return [...new Set(parts.flatMap((p) => [p, decoded(p)]))].filter((p) => p !== "");
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A base URL as the SDKs take it: they append the API path to `baseURL`, so a query written in the
 * URL (`?api-version=...`, `?api-key=...`) goes to them apart, as `defaultQuery`, sent with every
 * request; otherwise the path would land inside the last query value. Userinfo is not sent.
 */
export function sdkEndpoint(url: string): { baseURL: string; defaultQuery?: Record<string, string> } {
  const u = new URL(url);
  const query = Object.fromEntries(u.searchParams);
  return { baseURL: withoutCredentials(url), ...(Object.keys(query).length > 0 ? { defaultQuery: query } : {}) };
}

/** The effective endpoint as recorded (docs/design.md §7): scheme, host, port and path; never credentials or query. */
export function publicBaseUrl(url: string): string {
  return withoutCredentials(url).replace(/\/+$/, "");
}
