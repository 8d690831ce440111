/**
 * postgres.js connection target for a DATABASE_URL. Besides host:port it accepts a Unix socket the
 * way libpq does, as a `host` query parameter naming the socket's directory
 * (`postgres://user@localhost/db?host=/var/run/postgresql`). On one machine the socket skips the
 * TCP stack: each round trip costs both processes less kernel time than over loopback.
 */
export function serverConnection(url: string): { url: string; path?: string } {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get("host");
  if (!socketDir?.startsWith("/")) return { url };
  parsed.searchParams.delete("host");
  return { url: parsed.toString(), path: `${socketDir.replace(/\/+$/, "")}/.s.PGSQL.${parsed.port || "5432"}` };
}
