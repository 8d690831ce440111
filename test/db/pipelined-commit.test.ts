import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "~/db/raw";
import { startNow } from "~/db/start-now";
import { pgErrorCode } from "~/db/pg-errors";
import { commitWith } from "~/db/pipelined";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";

/**
 * A write's audit rows, jobs and idempotent reply go out with its COMMIT instead of being awaited
 * first (src/db/pipelined.ts). They must still be part of the transaction, and a failure
 * among them must still undo the whole transaction and reach the caller.
 */
describe(`statements sent with the COMMIT (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
    await handle.db.execute(sql`create table pipelined_probe (id text primary key, note text not null)`);
  });
  afterAll(async () => handle?.destroy());

  const insert = (db: Parameters<Parameters<typeof commitWith>[1]>[0], id: string, note = "x") =>
    startNow(db.execute(sql`insert into pipelined_probe (id, note) values (${id}, ${note})`));
  const rows = async (prefix: string) =>
    queryRows<{ id: string; xmin: string }>(
      handle.db,
      sql`select id, xmin::text as xmin from pipelined_probe where id like ${`${prefix}%`} order by id`,
    );

  it("commits the trailing statements in the same transaction as the work", async () => {
    const answer = await commitWith(handle.db, async (tx, trailing) => {
      await insert(tx, "a-main");
      for (let i = 0; i < 40; i++) trailing.send(insert(tx, `a-trail-${String(i).padStart(2, "0")}`));
      return "done";
    });
    expect(answer).toBe("done");
    const written = await rows("a-");
    expect(written).toHaveLength(41);
    // One transaction id for all of them: none ran after the COMMIT, on its own.
    expect(new Set(written.map((r) => r.xmin)).size).toBe(1);
  });

  it("undoes everything and throws when a trailing statement fails", async () => {
    await handle.db.execute(sql`insert into pipelined_probe (id, note) values ('b-taken', 'x')`);
    const attempt = commitWith(handle.db, async (tx, trailing) => {
      await insert(tx, "b-main");
      trailing.send(insert(tx, "b-first"));
      trailing.send(insert(tx, "b-taken")); // duplicate key
      trailing.send(insert(tx, "b-last"));
      return "done";
    });
    expect(pgErrorCode(await attempt.catch((error: unknown) => error))).toBe("23505");
    expect((await rows("b-")).map((r) => r.id)).toEqual(["b-taken"]);
  });

  // PGlite answers such a COMMIT with a rollback too, silently; only trailing statements are tracked there.
  it.runIf(TEST_BACKEND === "postgres")(
    "a transaction whose COMMIT the server answered with ROLLBACK reports the failure",
    async () => {
      const attempt = handle.db.transaction(async (tx) => {
        await insert(tx, "d-main");
        insert(tx, "d-main").catch(() => {}); // duplicate key, never awaited
      });
      expect(pgErrorCode(await attempt.catch((error: unknown) => error))).toBe("23505");
      expect(await rows("d-")).toEqual([]);
    },
  );
});
