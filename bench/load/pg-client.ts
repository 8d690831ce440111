import postgres from "postgres";
import { serverConnection } from "~/db/server-url";

/**
 * A postgres.js client for a benchmark's own connections (admin, SQL floor, capture, monitor), reading
 * DATABASE_URL's forms as the server does — a Unix socket included (`?host=/var/run/postgresql`), which
 * postgres.js alone would send to Postgres as a setting named "host".
 */
export function benchClient(
  url: string,
  options: postgres.Options<Record<string, postgres.PostgresType>>,
): postgres.Sql {
  const target = serverConnection(url);
  return postgres(target.url, { ...options, ...(target.path ? { path: target.path } : {}) });
}
