import postgres from "postgres";

/** The bench database on the standby: its URL with the database name replaced. */
export function benchReplicaUrl(standbyUrl: string, database: string): string {
  const url = new URL(standbyUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Waits until the standby has the database and has replayed the primary's WAL as of now; returns the ms waited. */
export async function waitForReplay(primaryUrl: string, replicaUrl: string, timeoutMs = 600_000): Promise<number> {
  const started = Date.now();
  const primary = postgres(primaryUrl, { max: 1, onnotice: () => {} });
  const admin = new URL(replicaUrl);
  const database = admin.pathname.slice(1);
  admin.pathname = "/postgres";
  const standby = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const [{ lsn }] = (await primary`select pg_current_wal_lsn()::text as lsn`) as unknown as [{ lsn: string }];
    for (;;) {
      const [row] =
        await standby`select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as replayed, exists (select 1 from pg_database where datname = ${database}) as present`;
      if (!row?.recovery)
        throw new Error(
          `${admin.host} is not a hot standby (pg_is_in_recovery() is false); make one with scripts/setup-postgres.sh --standby`,
        );
      if (row.replayed && row.present) return Date.now() - started;
      if (Date.now() - started > timeoutMs)
        throw new Error(`the standby at ${admin.host} did not replay the seed within ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await primary.end();
    await standby.end();
  }
}

/** memory_db_reads_total per target, summed over the servers (their /api/metrics, read from this machine). */
export async function readsByTarget(urls: readonly string[]): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const url of urls) {
    const text = await (await fetch(`${url}/api/metrics`)).text();
    for (const match of text.matchAll(/^memory_db_reads_total\{target="([^"]+)"\} (\S+)$/gm))
      totals[match[1]!] = (totals[match[1]!] ?? 0) + Number(match[2]);
  }
  return totals;
}
