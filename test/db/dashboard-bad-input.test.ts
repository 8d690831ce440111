import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Session } from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentListener } from "~/server/http/agent-listener";
import { serveTrpcRequest } from "~/server/http/dashboard-trpc";
import { handleMcpRequest } from "~/server/tools/mcp";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { createKey, createOrg } from "../support/agents";
import {
  invokePath,
  isDashboardProcedure,
  minimalInput,
  procedureInputSchema,
  procedureType,
  routerProcedures,
  setPath,
  textFields,
} from "../support/router-inputs";
import { callerAs } from "../support/trpc";

/**
 * Bad input is a 4xx with a reason on every dashboard procedure (issue 30, item 6), the cases
 * generated from the router's own schemas as the agent fuzz suite (security-fuzz.test.ts) does for
 * tools: text the database cannot hold (NUL, unpaired surrogates) in every text field, hostile
 * nesting, forged cursors, and bytes that are not UTF-8 over HTTP. Each was a 500, or was stored as
 * U+FFFD without a word.
 */

type Refusal = { code?: string; message?: string; cause?: { reason?: string } };

const cursorOf = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString("base64url");
const deeplyNested = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels)) as unknown;

describe(`bad input on every dashboard procedure, generated from the router (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let secret: string;

  beforeAll(async () => {
    handle = await openTestDatabase();
    org = await createOrg(handle.db);
    secret = (
      await createKey(handle.db, { tenantId: org.tenantId, ownerUserId: org.adminId, rateLimitPerMinute: 100_000 })
    ).secret;
  });
  afterAll(async () => handle?.destroy());

  const dashboardProcedures = () => routerProcedures().filter(isDashboardProcedure);
  /** "ok", or the refusal as `CODE reason`. */
  const outcome = (
    procedure: string,
    input: unknown,
    as: "admin" | "anon" = procedure.startsWith("account.") ? "anon" : "admin",
  ) =>
    invokePath(
      as === "admin" ? callerAs(handle.db, { userId: org.adminId }) : callerAs(handle.db),
      procedure,
      input,
    ).then(
      () => "ok",
      (e: Refusal) =>
        `${e.code ?? "thrown"} ${e.cause?.reason ?? ""}`.trim() +
        (e.code === "INTERNAL_SERVER_ERROR" || !e.code ? `: ${e.message?.slice(0, 200)}` : ""),
    );

  it("refuses NUL and unpaired surrogates in every text field with 400 invalid_text (not a 500, not stored as U+FFFD)", async () => {
    const problems: string[] = [];
    let cases = 0;
    for (const procedure of dashboardProcedures()) {
      const schema = procedureInputSchema(procedure);
      if (!schema) continue;
      for (const field of textFields(schema)) {
        for (const bad of ["before\u0000after", "lone \ud800 high", "\udc00 lone low"]) {
          const input = minimalInput(schema) as Record<string, unknown>;
          setPath(input, field.path, field.json ? { [bad]: bad, list: [bad] } : bad);
          cases++;
          const answer = await outcome(procedure, input);
          if (answer !== "BAD_REQUEST invalid_text")
            problems.push(`${procedure} ${field.path} = ${JSON.stringify(bad)}: ${answer}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // memory.write, card, session, audit, eraseSession, forget, tree.search, keys.create, admin.members.add,
    // admin.workspaces.create, grants.set… : every text field of every one of them.
    expect(cases).toBeGreaterThan(150);
  });

  it("refuses input nested 20,000 levels deep on every dashboard procedure with 400 too_deep", async () => {
    const problems: string[] = [];
    const deep = deeplyNested(20_000);
    for (const procedure of dashboardProcedures()) {
      const schema = procedureInputSchema(procedure);
      if (!schema) continue;
      const jsonFields = textFields(schema).filter((f) => f.json);
      const inputs = jsonFields.length
        ? jsonFields.map((field) => {
            const input = minimalInput(schema) as Record<string, unknown>;
            setPath(input, field.path, deep);
            return input;
          })
        : [{ ...(minimalInput(schema) as Record<string, unknown>), deep }];
      for (const input of inputs) {
        const answer = await outcome(procedure, input);
        if (answer !== "BAD_REQUEST too_deep") problems.push(`${procedure}: ${answer}`);
      }
    }
    // Inside an import line the middleware sees only text: the card's own check refuses the line.
    const line = `{"kind":"custom_fact","itemKey":"deep","scope":"user:${org.adminId}","title":"Deep","content":"Deep.","valueJson":${"[".repeat(19_900)}${"]".repeat(19_900)}}`;
    const imported = await invokePath(callerAs(handle.db, { userId: org.adminId }), "memory.import", {
      lines: [line],
      dryRun: false,
    }).catch((e: Refusal) => e);
    expect(imported).toMatchObject({ results: [{ status: "rejected", message: expect.stringContaining("deeper") }] });
    // valueJson 20,000 levels deep in a card write overflowed the stack in the depth check.
    const write = await outcome("memory.write", {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: "deep",
          node: { title: "Deep", content: "Deep.", valueJson: deep },
        },
      ],
    });
    expect(write).toBe("BAD_REQUEST too_deep");
    expect(problems).toEqual([]);
  });

  it("refuses forged cursors with 400 invalid_cursor (dashboard pages and memory_search all)", async () => {
    const forged = [
      cursorOf([1e308, "a"]),
      cursorOf(["not-a-date", "x"]),
      cursorOf([1.5]),
      cursorOf([2 ** 70]),
      cursorOf([1e308]),
      cursorOf([-1]),
      cursorOf(["2026-13-45 99:00:00+00", "x"]),
      cursorOf(["x\n[memory] INFO forged", "y"]),
      "%%%not base64",
      "",
    ];
    const problems: string[] = [];
    for (const procedure of dashboardProcedures()) {
      const schema = procedureInputSchema(procedure);
      if (!schema) continue;
      for (const field of textFields(schema).filter((f) => /(^|\.)cursor$/.test(f.path))) {
        for (const cursor of forged) {
          const input = minimalInput(schema) as Record<string, unknown>;
          setPath(input, field.path, cursor);
          const answer = await outcome(procedure, input);
          // An export page's cursor is the last id seen: any text is a valid (possibly empty) page.
          const fine =
            answer === "BAD_REQUEST invalid_cursor" ||
            (answer === "ok" &&
              (cursor === "" || procedure === "memory.exportPage" || procedure === "memory.sessions"));
          if (!fine)
            problems.push(
              `${procedure} ${field.path} = ${JSON.stringify(Buffer.from(cursor, "base64url").toString())}: ${answer}`,
            );
        }
      }
    }
    expect(problems).toEqual([]);
    for (const cursor of [cursorOf([1e308, "a"]), cursorOf([-5, "a"]), cursorOf([0.5, "a\u0000"])]) {
      await expect(
        callerAs(handle.db, { bearer: secret }).tools.memory_search({ all: true, cursor }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { reason: "invalid_cursor" } });
    }
  });

  it("refuses bytes that are not UTF-8 on every dashboard procedure over HTTP with 400 invalid_utf8", async () => {
    const session: Session = {
      user: { id: org.adminId, email: "admin@example.com" },
      expires: new Date(Date.now() + 3600_000).toISOString(),
    };
    const problems: string[] = [];
    for (const procedure of dashboardProcedures()) {
      const mutation = procedureType(procedure) === "mutation";
      // {"x":"<0xFF>"}: a byte no UTF-8 text has, which decoding turned into U+FFFD.
      const body = new Uint8Array([...Buffer.from('{"x":"'), 0xff, ...Buffer.from('"}')]);
      const req = mutation
        ? new Request(`http://localhost:3000/api/trpc/${procedure}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          })
        : new Request(`http://localhost:3000/api/trpc/${procedure}?input=%7B%22x%22%3A%22%FF%22%7D`);
      const response = await serveTrpcRequest(req, {
        getDb: async () => handle.db,
        getSession: async () => session,
        rateLimitPerMinute: 0,
      });
      const reason = ((await response.json()) as { error?: { data?: { reason?: string } } }).error?.data?.reason;
      if (response.status !== 400 || reason !== "invalid_utf8")
        problems.push(`${procedure}: ${response.status} ${reason}`);
    }
    expect(problems).toEqual([]);
  });

  it("refuses bytes that are not UTF-8 from agents too: tRPC through the listener and the route, and MCP", async () => {
    const body = new Uint8Array([...Buffer.from('{"queryText":"'), 0xc3, 0x28, ...Buffer.from('"}')]);
    const headers = { "content-type": "application/json", authorization: `Bearer ${secret}` };
    const viaRoute = await serveTrpcRequest(
      new Request("http://localhost:3000/api/trpc/tools.memory_search", { method: "POST", headers, body }),
      { getDb: async () => handle.db, getSession: async () => null },
    );
    expect(viaRoute.status).toBe(400);
    expect(((await viaRoute.json()) as { error: { data: { reason: string } } }).error.data.reason).toBe("invalid_utf8");
    const serveAgent = createAgentListener(async () => handle.db);
    const server = http.createServer((req, res) => void serveAgent(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const viaListener = await fetch(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/trpc/tools.memory_search`,
        { method: "POST", headers, body },
      );
      expect(viaListener.status).toBe(400);
      expect(((await viaListener.json()) as { error: { data: { reason: string } } }).error.data.reason).toBe(
        "invalid_utf8",
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const mcpBody = new Uint8Array([
      ...Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"queryText":"',
      ),
      0xff,
      ...Buffer.from('"}}}'),
    ]);
    const mcp = await handleMcpRequest(
      new Request("http://localhost:3000/api/mcp", {
        method: "POST",
        headers: { ...headers, accept: "application/json, text/event-stream" },
        body: mcpBody,
      }),
      { db: handle.db },
    );
    expect(mcp.status).toBe(400);
    expect(JSON.stringify(await mcp.json())).toContain("invalid_utf8");
  });
});
