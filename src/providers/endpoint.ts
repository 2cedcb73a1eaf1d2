/** The effective endpoint as recorded (DESIGN.md §7): scheme, host, port and path; never credentials or query. */
export function publicBaseUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
}
