import type { Session } from "next-auth";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditEvents, rateLimitBuckets, sessions, tenantMembers, tenants } from "~/db/schema";
import type { NextAuthOptions } from "next-auth";
import type { JWT } from "next-auth/jwt";
import { createCaller } from "~/server/api/root";
import { createAuthOptions } from "~/server/auth/config";
import { addUserToTenant, findUserByEmail } from "~/server/auth/accounts";
import { openSessionRecord, sessionMaxAgeSeconds } from "~/server/auth/session-records";
import { SIGN_IN_THROTTLE, throttledSignInResponse } from "~/server/auth/sign-in-throttle";
import { registerAccount } from "~/server/auth/accounts";
import { serveTrpcRequest } from "~/server/http/dashboard-trpc";
import { serverOrigin } from "~/server/http/same-origin";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { nextAuthBrowser } from "../support/next-auth";
import { callerAs } from "../support/trpc";
import { clearOfMinuteEnd } from "../support/clock";

/**
 * What an attack run on a server-mode install found on the dashboard's side (issue 30): each test
 * makes the attack, then checks the refusal.
 */
describe(`dashboard hardening (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let admin: { userId: string; tenantId: string };

  beforeAll(async () => {
    handle = await openTestDatabase();
    const first = await registerAccount(handle.db, {
      email: "owner@example.com",
      password: "owner password 1",
      name: "Owner",
      openSignup: false,
    });
    admin = { userId: first.user.id, tenantId: first.tenantId };
  });
  afterAll(async () => handle?.destroy());

  /** An HTTP request to /api/trpc as the Next.js route serves it, from a browser signed in as `userId` (null: nobody). */
  const http = (
    userId: string | null,
    path: string,
    init: {
      method?: string;
      headers?: Record<string, string>;
      body?: BodyInit;
      rateLimitPerMinute?: number;
      base?: string;
    },
  ) => {
    const session: Session | null = userId
      ? { user: { id: userId, email: "owner@example.com" }, expires: new Date(Date.now() + 3600_000).toISOString() }
      : null;
    const req = new Request(`${init.base ?? serverOrigin()}/api/trpc/${path}`, {
      method: init.method ?? "POST",
      headers: init.headers,
      body: init.body,
    });
    return serveTrpcRequest(req, {
      getDb: async () => handle.db,
      getSession: async () => session,
      rateLimitPerMinute: init.rateLimitPerMinute,
    });
  };
  const writePolicy = async () =>
    (await handle.db.select({ p: tenants.writePolicy }).from(tenants).where(eq(tenants.id, admin.tenantId)))[0]!.p;

  it("answers sign-up alike for a known and an unknown email while sign-up is closed (no account enumeration)", async () => {
    const anon = callerAs(handle.db);
    const answer = (email: string) =>
      anon.account.signUp({ email, password: "some password 1" }).then(
        () => "created",
        (e: { code?: string; message?: string; cause?: { reason?: string } }) =>
          JSON.stringify({ code: e.code, message: e.message, reason: e.cause?.reason }),
      );
    const known = await answer("owner@example.com");
    const unknown = await answer("stranger@example.com");
    expect(unknown).toContain("FORBIDDEN");
    expect(known).toBe(unknown);
  });

  it("refuses dashboard mutations sent as a form or from another origin (CSRF beyond SameSite=Lax)", async () => {
    expect(await writePolicy()).toBe("any");
    const json = JSON.stringify({ writePolicy: "explicit-only" });
    const form = new FormData();
    form.set("writePolicy", "explicit-only");
    // The attack: a page on another port of the same host posts a form, or JSON with its own Origin.
    const attacks: { headers: Record<string, string>; body: BodyInit }[] = [
      { headers: {}, body: form },
      { headers: { "content-type": "text/plain" }, body: json },
      {
        headers: { "content-type": "application/json", origin: "http://localhost:4000", "sec-fetch-site": "same-site" },
        body: json,
      },
      { headers: { "content-type": "application/json", origin: "http://localhost:4000" }, body: json },
      { headers: { "content-type": "application/json", origin: "null" }, body: json },
      { headers: { "content-type": "application/json", "sec-fetch-site": "cross-site" }, body: json },
    ];
    for (const attack of attacks) {
      const response = await http(admin.userId, "organization.updatePolicy", attack);
      const answer = (await response.json()) as { error?: { data?: { reason?: string } } };
      expect([403, 415], JSON.stringify(attack.headers)).toContain(response.status);
      expect(answer.error?.data?.reason).toMatch(/^(json_body_required|cross_site_request)$/);
      expect(await writePolicy()).toBe("any");
    }
    // A batch is refused as a whole, one error per call, as tRPC answers a batch.
    const batch = await http(admin.userId, "organization.updatePolicy,organization.updatePolicy?batch=1", {
      headers: { "content-type": "application/json", origin: "http://evil.example" },
      body: JSON.stringify({ 0: { writePolicy: "explicit-only" }, 1: {} }),
    });
    expect(batch.status).toBe(403);
    expect(((await batch.json()) as unknown[]).length).toBe(2);
    expect(await writePolicy()).toBe("any");
    // The dashboard's own pages (same origin), and clients outside a browser (no Origin, no Sec-Fetch-Site), get through.
    const own = await http(admin.userId, "organization.updatePolicy", {
      headers: { "content-type": "application/json", origin: serverOrigin(), "sec-fetch-site": "same-origin" },
      body: json,
    });
    expect(own.status).toBe(200);
    expect(await writePolicy()).toBe("explicit-only");
    const curl = await http(admin.userId, "organization.updatePolicy", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ writePolicy: "any" }),
    });
    expect(curl.status).toBe(200);
    expect(await writePolicy()).toBe("any");
    // Reads follow the same origin rule (a same-site <img> could run searches in the person's name); the
    // address bar (Sec-Fetch-Site: none) and clients outside a browser are let through.
    expect(
      (await http(admin.userId, "organization.get", { method: "GET", headers: { origin: "http://evil.example" } }))
        .status,
    ).toBe(403);
    expect(
      (await http(admin.userId, "memory.scopes", { method: "GET", headers: { "sec-fetch-site": "same-site" } })).status,
    ).toBe(403);
    expect(
      (await http(admin.userId, "organization.get", { method: "GET", headers: { "sec-fetch-site": "none" } })).status,
    ).toBe(200);
    expect(
      (
        await http(admin.userId, "organization.get", {
          method: "GET",
          headers: { "sec-fetch-site": "same-origin", origin: serverOrigin() },
        })
      ).status,
    ).toBe(200);
    expect((await http(admin.userId, "organization.get", { method: "GET" })).status).toBe(200);
    // An agent call with a bearer key is judged by its key, not by this check.
    const agent = await http(null, "tools.memory_search", {
      headers: {
        authorization: "Bearer mem_live_nope",
        "content-type": "application/json",
        origin: "http://evil.example",
      },
      body: "{}",
    });
    expect(agent.status).toBe(401);
  });

  it("serves the dashboard's own saves from whatever address the browser used, and still refuses other origins", async () => {
    // scripts/server.mjs hands Next.js http://0.0.0.0:PORT as the request's URL; the browser is at 127.0.0.1.
    const port = new URL(serverOrigin()).port || "80";
    const base = `http://0.0.0.0:${port}`;
    const browserAt = `http://127.0.0.1:${port}`;
    expect(serverOrigin()).not.toBe(browserAt);
    const save = (headers: Record<string, string>, writePolicy: "any" | "explicit-only") =>
      http(admin.userId, "organization.updatePolicy", {
        base,
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ writePolicy }),
      }).then((r) => r.status);
    // The bug: every save from http://127.0.0.1:PORT (or a LAN address, or a proxy's name) was a 403.
    expect(await save({ origin: browserAt, host: `127.0.0.1:${port}` }, "explicit-only")).toBe(200);
    expect(await writePolicy()).toBe("explicit-only");
    expect(await save({ origin: "http://192.168.1.20:3000", "sec-fetch-site": "same-origin" }, "any")).toBe(200);
    expect(await writePolicy()).toBe("any");
    // Another port of the same host, or a cross-site page, is still refused.
    expect(await save({ origin: "http://127.0.0.1:4000", host: `127.0.0.1:${port}` }, "explicit-only")).toBe(403);
    expect(
      await save({ origin: browserAt, host: `127.0.0.1:${port}`, "sec-fetch-site": "cross-site" }, "explicit-only"),
    ).toBe(403);
    expect(await save({ origin: "http://evil.example", host: "127.0.0.1:4000" }, "explicit-only")).toBe(403);
    expect(await writePolicy()).toBe("any");
  });

  it("holds a cookie call to the origin rule and the per-person limit whatever Authorization header it carries", async () => {
    const person = (
      await registerAccount(handle.db, { email: "authz@example.com", password: "authz password 1", openSignup: true })
    ).user.id;
    // The attack: any Authorization header turned the origin rule off for a call the session cookie carries.
    const forged = await http(person, "organization.updatePolicy", {
      headers: { "content-type": "application/json", authorization: "x", origin: "http://evil.example" },
      body: JSON.stringify({ writePolicy: "explicit-only" }),
    });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { data: { reason: string } } }).error.data.reason).toBe(
      "cross_site_request",
    );
    // ... and the per-person rate limit.
    await clearOfMinuteEnd();
    expect(
      (
        await http(person, "memory.scopes", {
          method: "GET",
          headers: { authorization: "Bearer mem_live_nope" },
          rateLimitPerMinute: 2,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await http(person, "memory.scopes", {
          method: "GET",
          headers: { authorization: "Bearer mem_live_nope" },
          rateLimitPerMinute: 2,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await http(person, "memory.scopes", {
          method: "GET",
          headers: { authorization: "Bearer mem_live_nope" },
          rateLimitPerMinute: 2,
        })
      ).status,
    ).toBe(429);
  });

  it("answers a database failure with a reason, never the failed statement, and logs it on one line", async () => {
    const api = callerAs(handle.db, { userId: admin.userId });
    const line = (content: string) =>
      JSON.stringify({ kind: "custom_fact", itemKey: "nul", scope: `user:${admin.userId}`, title: "NUL", content });
    const report = await api.memory.import({ lines: [line("before\u0000after"), line("fine")], dryRun: false });
    const [bad, good] = report.results;
    expect(bad).toMatchObject({ status: "rejected" });
    expect(bad!.message).not.toMatch(/insert|select|params|Failed query|\$1/i);
    expect(bad!.message).toMatch(/NUL|\\u0000|control/i);
    expect(good).toMatchObject({ status: "created" });
    // A cursor whose text the database would echo back is a 400 with a reason (it was a 500, logged verbatim).
    const forged = Buffer.from(JSON.stringify(["x\n[memory] INFO user admin signed in from 10.0.0.1", "y"])).toString(
      "base64url",
    );
    const response = await http(
      admin.userId,
      `memory.browse?input=${encodeURIComponent(JSON.stringify({ cursor: forged }))}`,
      { method: "GET" },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { data: { reason?: string } } }).error.data.reason).toBe(
      "invalid_cursor",
    );
  });

  it("caps tRPC batches and rate-limits each signed-in person per minute, counted in the database", async () => {
    const search = { queryText: "anything" };
    const batchOf = (n: number) =>
      `${Array.from({ length: n }, () => "memory.search").join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, search]))))}`;
    // The attack: 40 searches in one batch all ran.
    const forty = await http(admin.userId, batchOf(40), { method: "GET", rateLimitPerMinute: 0 });
    expect(forty.status).toBe(400);
    const answers = (await forty.json()) as { error: { data: { reason: string } } }[];
    expect(answers).toHaveLength(40);
    expect(answers[0]!.error.data.reason).toBe("batch_too_large");
    expect((await http(admin.userId, batchOf(3), { method: "GET", rateLimitPerMinute: 0 })).status).toBe(200);
    // Per person and minute: a batch counts one per call; past the limit, 429 with Retry-After.
    // Counts are per minute: start early in one, so all six calls land in the same window.
    await clearOfMinuteEnd();
    const other = (
      await registerAccount(handle.db, { email: "other@example.com", password: "other password 1", openSignup: true })
    ).user.id;
    expect((await http(other, batchOf(4), { method: "GET", rateLimitPerMinute: 5 })).status).toBe(200);
    expect((await http(other, "memory.scopes", { method: "GET", rateLimitPerMinute: 5 })).status).toBe(200);
    const limited = await http(other, "memory.scopes", { method: "GET", rateLimitPerMinute: 5 });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { data: { reason: string } } }).error.data.reason).toBe("rate_limited");
    // Counted where every instance sees it; another person has their own count.
    const [bucket] = await handle.db
      .select()
      .from(rateLimitBuckets)
      .where(eq(rateLimitBuckets.bucket, `user:${other}`));
    expect(bucket?.count).toBe(6);
    expect((await http(admin.userId, "memory.scopes", { method: "GET" })).status).toBe(200);
  });

  describe("sessions end when they should", () => {
    let options: NextAuthOptions;
    let member: { userId: string; email: string; password: string };
    beforeAll(async () => {
      options = createAuthOptions(async () => handle.db);
      member = { email: "member@example.com", password: "member password 1", userId: "" };
      member.userId = (
        await addUserToTenant(handle.db, {
          email: member.email,
          password: member.password,
          role: "member",
          tenantId: admin.tenantId,
          actorUserId: null,
        })
      ).user.id;
    });

    /** Signs in with a password as the credentials provider does, and returns the session cookie's token. */
    const signIn = async (email: string, password: string): Promise<JWT> => {
      const provider = options.providers[0] as unknown as {
        options: { authorize: (c: Record<string, string>) => Promise<Record<string, unknown> | null> };
      };
      const user = await provider.options.authorize({ email, password });
      expect(user).not.toBeNull();
      return (await options.callbacks!.jwt!({
        token: { email },
        user: user as never,
        account: null,
        trigger: "signIn",
      } as never)) as JWT;
    };
    /** What a later request with that saved cookie gets: next-auth's jwt then session callbacks, then getServerSession's emptiness rule. */
    const sessionOf = async (token: JWT): Promise<Session | null> => {
      const next = (await options.callbacks!.jwt!({ token: { ...token } } as never)) as JWT;
      const session = await options.callbacks!.session!({ session: { user: {}, expires: "" }, token: next } as never);
      return Object.keys(session).length ? (session as Session) : null;
    };
    const meGet = (token: JWT) =>
      createCaller({ db: handle.db, headers: new Headers(), getSession: () => sessionOf(token) })
        .me.get()
        .then(
          (me) => me.user.id,
          (e: { code?: string }) => e.code,
        );

    it("ends a saved session at sign-out, a password reset, removal from the organisation and an admin's sign-out-everywhere", async () => {
      // Sign-out: the cookie saved before it no longer reads me.get (it did for 30 days).
      const saved = await signIn(member.email, member.password);
      expect(await meGet(saved)).toBe(member.userId);
      await options.events!.signOut!({ token: saved, session: null as never });
      expect(await meGet(saved)).toBe("UNAUTHORIZED");
      expect(await sessionOf(saved)).toBeNull();
      // Another device's session is not touched by this one's sign-out.
      const laptop = await signIn(member.email, member.password);
      const phone = await signIn(member.email, member.password);
      await options.events!.signOut!({ token: phone, session: null as never });
      expect(await meGet(laptop)).toBe(member.userId);
      // The operator resets the password: every session opened before ends.
      await addUserToTenant(handle.db, {
        email: member.email,
        password: "new password 22",
        tenantId: admin.tenantId,
        actorUserId: null,
        resetExistingPassword: true,
      });
      expect(await meGet(laptop)).toBe("UNAUTHORIZED");
      member.password = "new password 22";
      // An admin's "sign out everywhere", audited.
      const again = await signIn(member.email, member.password);
      expect(await meGet(again)).toBe(member.userId);
      const ended = await callerAs(handle.db, { userId: admin.userId }).admin.members.signOutEverywhere({
        userId: member.userId,
      });
      expect(ended.sessionsEnded).toBe(1);
      expect(await meGet(again)).toBe("UNAUTHORIZED");
      const audit = await handle.db
        .select()
        .from(memoryAuditEvents)
        .where(eq(memoryAuditEvents.reason, "signed out everywhere"));
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ tenantId: admin.tenantId, actorId: admin.userId, eventType: "member" });
      // Their own "sign out everywhere".
      const own = await signIn(member.email, member.password);
      await callerAs(handle.db, { userId: member.userId }).me.signOutEverywhere();
      expect(await meGet(own)).toBe("UNAUTHORIZED");
      // Removal from the organisation.
      const last = await signIn(member.email, member.password);
      expect(await meGet(last)).toBe(member.userId);
      await callerAs(handle.db, { userId: admin.userId }).admin.members.remove({ userId: member.userId });
      expect(await meGet(last)).toBe("UNAUTHORIZED");
      // A token from before session records (no sid) is not a session.
      expect(await sessionOf({ uid: admin.userId, email: "owner@example.com" } as JWT)).toBeNull();
    });

    it("ends a saved session cookie through next-auth itself: sign-out, then the operator's password reset", async () => {
      const browser = nextAuthBrowser(options);
      const meWithCookie = () =>
        serveTrpcRequest(new Request(`${serverOrigin()}/api/trpc/me.get`), {
          getDb: async () => handle.db,
          getSession: () => browser.session(),
          rateLimitPerMinute: 0,
        }).then((r) => r.status);
      expect(await browser.signIn("owner@example.com", "owner password 1")).toBe(true);
      expect(await meWithCookie()).toBe(200);
      // The attack: keep the cookie, sign out, put the cookie back. It read me.get and memory.browse for 30 days.
      const saved = new Map(browser.jar);
      await browser.signOut();
      for (const [name, value] of saved) browser.jar.set(name, value);
      expect(await browser.session()).toBeNull();
      expect(await meWithCookie()).toBe(401);
      // Signed in again, then the operator resets the password: the cookie from before reads nothing.
      expect(await browser.signIn("owner@example.com", "owner password 1")).toBe(true);
      expect(await meWithCookie()).toBe(200);
      await addUserToTenant(handle.db, {
        email: "owner@example.com",
        password: "owner password 1",
        tenantId: admin.tenantId,
        actorUserId: null,
        resetExistingPassword: true,
      });
      expect(await meWithCookie()).toBe(401);
    });

    it("opens no session for a sign-in whose password check a password reset or sign-out-everywhere overtook", async () => {
      const racer = await registerAccount(handle.db, {
        email: "racer@example.com",
        password: "racer password 1",
        openSignup: true,
      });
      const rows = async () => handle.db.select().from(sessions).where(eq(sessions.userId, racer.user.id));
      // The race: the password is checked (this row read), then the operator resets it, then the session opens.
      const checked = (await findUserByEmail(handle.db, "racer@example.com"))!;
      await addUserToTenant(handle.db, {
        email: "racer@example.com",
        password: "racer password 2",
        tenantId: racer.tenantId,
        actorUserId: null,
        resetExistingPassword: true,
      });
      expect(await openSessionRecord(handle.db, racer.user.id, checked)).toBeNull();
      expect(await rows()).toHaveLength(0);
      // The same with "sign out everywhere" in between.
      const again = (await findUserByEmail(handle.db, "racer@example.com"))!;
      await callerAs(handle.db, { userId: racer.user.id }).me.signOutEverywhere();
      expect(await openSessionRecord(handle.db, racer.user.id, again)).toBeNull();
      expect(await rows()).toHaveLength(0);
      // Nothing in between: the session opens.
      const fresh = (await findUserByEmail(handle.db, "racer@example.com"))!;
      expect(await openSessionRecord(handle.db, racer.user.id, fresh)).toEqual(expect.any(String));
      expect(await rows()).toHaveLength(1);
    });

    it("keeps the session through a database hiccup: that request reads as signed out, the cookie stays", async () => {
      let down = false;
      const flaky = createAuthOptions(async () => {
        if (down) throw new Error("connection refused");
        return handle.db;
      });
      const browser = nextAuthBrowser(flaky);
      expect(await browser.signIn("owner@example.com", "owner password 1")).toBe(true);
      expect(await browser.session()).not.toBeNull();
      // The bug: the session check threw inside next-auth's jwt callback, and next-auth deleted the cookie.
      down = true;
      expect(await browser.session()).toBeNull();
      down = false;
      expect((await browser.session())?.user.email).toBe("owner@example.com");
    });

    it("audits a person's own sign-out-everywhere, and refuses invitation answers from an organisation-set password with a reason", async () => {
      const self = await registerAccount(handle.db, {
        email: "self@example.com",
        password: "self password 1",
        openSignup: true,
      });
      await callerAs(handle.db, { userId: self.user.id }).me.signOutEverywhere();
      const audit = (
        await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, self.tenantId))
      ).filter((e) => e.reason === "signed out everywhere");
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actorType: "user", actorId: self.user.id, eventType: "member" });
      const refused = await callerAs(handle.db, { userId: self.user.id, onlyTenantId: admin.tenantId })
        .me.acceptInvitation({ tenantId: admin.tenantId })
        .catch((e: { code?: string; cause?: { reason?: string } }) => ({ code: e.code, reason: e.cause?.reason }));
      expect(refused).toEqual({ code: "FORBIDDEN", reason: "password_set_by_another_organisation" });
    });

    it("lasts SESSION_MAX_AGE_HOURS (24 by default, was 30 days) without use, renewed while used", async () => {
      expect(options.session?.maxAge).toBe(24 * 3600);
      expect(sessionMaxAgeSeconds()).toBe(24 * 3600);
      const token = await signIn("owner@example.com", "owner password 1");
      const row = async () =>
        (
          await handle.db
            .select()
            .from(sessions)
            .where(eq(sessions.sessionToken, token.sid as string))
        )[0];
      // Used an hour after the last renewal: the end moves forward to a full period from now.
      await handle.db
        .update(sessions)
        .set({ expires: new Date(Date.now() + 23 * 3600_000) })
        .where(eq(sessions.sessionToken, token.sid as string));
      expect(await sessionOf(token)).not.toBeNull();
      expect((await row())!.expires.getTime()).toBeGreaterThan(Date.now() + 23.9 * 3600_000);
      // Idle past its end: over.
      await handle.db
        .update(sessions)
        .set({ expires: new Date(Date.now() - 1000) })
        .where(eq(sessions.sessionToken, token.sid as string));
      expect(await sessionOf(token)).toBeNull();
    });
  });

  describe("password guessing is throttled", () => {
    let options: NextAuthOptions;
    let victim: { email: string; password: string; userId: string; tenantId: string };
    beforeAll(async () => {
      options = createAuthOptions(async () => handle.db);
      const account = await registerAccount(handle.db, {
        email: "victim@example.com",
        password: "the right password",
        openSignup: true,
      });
      victim = {
        email: "victim@example.com",
        password: "the right password",
        userId: account.user.id,
        tenantId: account.tenantId,
      };
    });

    /**
     * One password sign-in as the sign-in route serves it: the route's throttle (429 before next-auth),
     * then the credentials provider's authorize. "ok", "wrong", or "429 <Retry-After>".
     */
    const attempt = async (email: string, password: string, address: string) => {
      const headers = { "content-type": "application/x-www-form-urlencoded", "x-memory-client-address": address };
      const req = new Request("http://localhost:3000/api/auth/callback/credentials", {
        method: "POST",
        headers,
        body: new URLSearchParams({ email, password, csrfToken: "t", json: "true" }),
      });
      const throttled = await throttledSignInResponse(req, handle.db);
      if (throttled) {
        expect(((await throttled.json()) as { url: string }).url).toContain("error=TooManyAttempts");
        return `${throttled.status} ${throttled.headers.get("retry-after")}`;
      }
      const provider = options.providers[0] as unknown as {
        options: {
          authorize: (c: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown>;
        };
      };
      const user = await provider.options.authorize({ email, password }, { headers }).catch((e: Error) => e.message);
      return user === null ? "wrong" : typeof user === "string" ? user : "ok";
    };
    const lockouts = () =>
      handle.db
        .select()
        .from(memoryAuditEvents)
        .where(eq(memoryAuditEvents.reason, "sign-in locked: too many failed passwords"));

    it("refuses password guessing per account and address with 429 and Retry-After, the right password too, without locking the owner out elsewhere", async () => {
      // Counts are per 15-minute window: start early enough in one that the test stays in it.
      const msLeft = SIGN_IN_THROTTLE.windowMs - (Date.now() % SIGN_IN_THROTTLE.windowMs);
      if (msLeft < 20_000) await new Promise((resolve) => setTimeout(resolve, msLeft + 50));
      const answers: string[] = [];
      for (let i = 0; i < 40; i++) answers.push(await attempt(victim.email, `guess ${i}`, "198.51.100.7"));
      // 40 plain 401s before; now five wrong answers, then refusals until the window ends.
      expect(answers.slice(0, SIGN_IN_THROTTLE.perPair)).toEqual(Array(SIGN_IN_THROTTLE.perPair).fill("wrong"));
      for (const answer of answers.slice(SIGN_IN_THROTTLE.perPair)) expect(answer).toMatch(/^429 \d+$/);
      const retryAfter = Number(answers.at(-1)!.split(" ")[1]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      // The right password from the guesser's address is refused as well (it worked at once before).
      expect(await attempt(victim.email, victim.password, "198.51.100.7")).toMatch(/^429 /);
      // Through next-auth's own handler too (authorize reads the address from the request it is given).
      expect(
        await nextAuthBrowser(options, undefined, { "x-memory-client-address": "198.51.100.7" }).signIn(
          victim.email,
          victim.password,
        ),
      ).toBe("TooManyAttempts");
      // The owner, elsewhere, signs in.
      expect(await attempt(victim.email, victim.password, "203.0.113.20")).toBe("ok");
      expect(
        await nextAuthBrowser(options, undefined, { "x-memory-client-address": "203.0.113.21" }).signIn(
          victim.email,
          victim.password,
        ),
      ).toBe(true);
      // The lockout is audited in the account's organisation, once.
      expect(await lockouts()).toHaveLength(1);
      expect((await lockouts())[0]).toMatchObject({
        tenantId: victim.tenantId,
        actorType: "system",
        eventType: "member",
      });
    });

    it("refuses one address guessing across accounts, and an account guessed from many addresses, for the window only", async () => {
      // One address, many accounts (each under its per-account limit).
      const answers: string[] = [];
      for (let i = 0; i < SIGN_IN_THROTTLE.perAddress + 2; i++)
        answers.push(await attempt(`person${i % 10}@example.com`, "guess", "192.0.2.99"));
      expect(answers.slice(0, SIGN_IN_THROTTLE.perAddress).every((a) => a === "wrong")).toBe(true);
      expect(answers.at(-1)).toMatch(/^429 /);
      // Over the per-address limit, only a pair that already guessed is refused: the owner behind the same
      // address (a proxy with TRUST_PROXY off, a shared NAT) is not locked out by the guesser.
      expect(await attempt("person0@example.com", "guess", "192.0.2.99")).toMatch(/^429 /);
      expect(await attempt("owner@example.com", "owner password 1", "192.0.2.99")).toBe("ok");
      expect(await attempt("owner@example.com", "owner password 1", "192.0.2.100")).toBe("ok");
      // With no address known (a server started without scripts/server.mjs), guesses count per account only:
      // one guesser does not lock every client out.
      for (let i = 0; i < SIGN_IN_THROTTLE.perAddress + 2; i++)
        await attempt(`nobody${i % 10}@example.com`, "guess", "unknown");
      expect(await attempt("owner@example.com", "owner password 1", "unknown")).toBe("ok");
      // Many addresses, one account: past the account's limit every address that guessed is refused, the
      // right password too, but the owner at a clean address still gets in (it was locked out everywhere).
      for (let i = 0; i < SIGN_IN_THROTTLE.perAccount; i++)
        await attempt("owner@example.com", "guess", `10.1.${Math.floor(i / 4)}.${i}`);
      expect(await attempt("owner@example.com", "guess", "10.1.0.0")).toMatch(/^429 /);
      expect(await attempt("owner@example.com", "owner password 1", "10.1.0.1")).toMatch(/^429 /);
      expect(await attempt("owner@example.com", "owner password 1", "192.0.2.200")).toBe("ok");
      // Once it is over the limit, a fresh address gets one guess (checked, wrong), then is refused.
      expect(await attempt("owner@example.com", "guess", "192.0.2.201")).toBe("wrong");
      expect(await attempt("owner@example.com", "guess", "192.0.2.201")).toMatch(/^429 /);
      // Counted in the shared store (here Postgres), so every instance refuses alike.
      const [bucket] = await handle.db
        .select()
        .from(rateLimitBuckets)
        .where(eq(rateLimitBuckets.bucket, "signin:acct:owner@example.com"));
      expect(bucket?.count).toBeGreaterThanOrEqual(SIGN_IN_THROTTLE.perAccount);
    });

    it("counts an attempt before its password is checked: 40 guesses sent at once get at most the limit's checks", async () => {
      const msLeft = SIGN_IN_THROTTLE.windowMs - (Date.now() % SIGN_IN_THROTTLE.windowMs);
      if (msLeft < 20_000) await new Promise((resolve) => setTimeout(resolve, msLeft + 50));
      await registerAccount(handle.db, {
        email: "parallel@example.com",
        password: "parallel password 1",
        openSignup: true,
      });
      // The attack: all 40 read a count of 0 before any failure was counted, and all 40 were checked.
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => attempt("parallel@example.com", `guess ${i}`, "198.51.100.50")),
      );
      expect(answers.filter((a) => a === "wrong").length).toBeLessThanOrEqual(SIGN_IN_THROTTLE.perPair);
      for (const answer of answers.filter((a) => a !== "wrong")) expect(answer).toMatch(/^(429 \d+|TooManyAttempts)$/);
      expect(await attempt("parallel@example.com", "parallel password 1", "198.51.100.50")).toMatch(/^429 /);
      // A success is taken back off the counters: the owner signing in often is not throttled by it.
      for (let i = 0; i < SIGN_IN_THROTTLE.perPair + 2; i++)
        expect(await attempt("parallel@example.com", "parallel password 1", "198.51.100.51")).toBe("ok");
    });

    it("counts IPv6 addresses per /64", async () => {
      await registerAccount(handle.db, { email: "six@example.com", password: "six password 1", openSignup: true });
      for (let i = 0; i < SIGN_IN_THROTTLE.perPair; i++)
        expect(await attempt("six@example.com", "guess", `2001:db8:5:6::${i + 1}`)).toBe("wrong");
      expect(await attempt("six@example.com", "six password 1", "2001:db8:5:6:ffff::2")).toMatch(/^429 /);
      expect(await attempt("six@example.com", "six password 1", "2001:db8:5:7::1")).toBe("ok");
    });
  });

  it("invites an existing account instead of adding it, tells the inviting admin nothing about it, and joins only when the person accepts", async () => {
    // Organisation B's admin, with the name B knows them by; organisation C's admin.
    const bAdmin = await registerAccount(handle.db, {
      email: "b-admin@example.org",
      password: "b admin password",
      name: "Secret Name In B",
      openSignup: true,
    });
    const aAdmin = callerAs(handle.db, { userId: admin.userId });
    const isMember = async (userId: string, tenantId: string) =>
      (await handle.db.select().from(tenantMembers).where(eq(tenantMembers.userId, userId))).some(
        (m) => m.tenantId === tenantId,
      );
    // The attack: A's admin adds B's admin by email and was told their user id and B's name for them, a member of A at once.
    const answer = await aAdmin.admin.members.add({
      email: "b-admin@example.org",
      role: "admin",
      password: "chosen by A admin",
    });
    expect(answer).toMatchObject({
      invited: true,
      email: "b-admin@example.org",
      role: "admin",
      userId: "",
      name: null,
    });
    expect(JSON.stringify(answer)).not.toContain(bAdmin.user.id);
    expect(JSON.stringify(answer)).not.toContain("Secret Name In B");
    expect(await isMember(bAdmin.user.id, admin.tenantId)).toBe(false);
    expect(JSON.stringify(await aAdmin.admin.members.list())).not.toContain(bAdmin.user.id);
    expect(await aAdmin.admin.members.invitations()).toEqual([
      expect.objectContaining({ email: "b-admin@example.org", role: "admin" }),
    ]);
    // A's chosen password opens nothing: the existing account's own password stays.
    const options = createAuthOptions(async () => handle.db);
    const authorize = (
      options.providers[0] as unknown as {
        options: {
          authorize: (c: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown>;
        };
      }
    ).options.authorize;
    expect(
      await authorize(
        { email: "b-admin@example.org", password: "chosen by A admin" },
        { headers: { "x-memory-client-address": "203.0.113.77" } },
      ),
    ).toBeNull();
    // The person sees the invitation when signed in, and joins by accepting it, with the role invited as.
    const b = callerAs(handle.db, { userId: bAdmin.user.id });
    expect(await b.me.invitations()).toEqual([expect.objectContaining({ tenantId: admin.tenantId, role: "admin" })]);
    expect(await b.me.acceptInvitation({ tenantId: admin.tenantId })).toEqual({
      tenantId: admin.tenantId,
      role: "admin",
    });
    expect(await isMember(bAdmin.user.id, admin.tenantId)).toBe(true);
    expect(await b.me.invitations()).toEqual([]);
    await expect(b.me.acceptInvitation({ tenantId: admin.tenantId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // Declining and cancelling leave no membership; each step is audited in A.
    const c = await registerAccount(handle.db, {
      email: "c-person@example.net",
      password: "c person password",
      openSignup: true,
    });
    await aAdmin.admin.members.add({ email: "c-person@example.net", role: "member" });
    await callerAs(handle.db, { userId: c.user.id }).me.declineInvitation({ tenantId: admin.tenantId });
    expect(await isMember(c.user.id, admin.tenantId)).toBe(false);
    await aAdmin.admin.members.add({ email: "c-person@example.net", role: "member" });
    await aAdmin.admin.members.cancelInvitation({ email: "c-person@example.net" });
    await expect(
      callerAs(handle.db, { userId: c.user.id }).me.acceptInvitation({ tenantId: admin.tenantId }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const reasons = (
      await handle.db.select().from(memoryAuditEvents).where(eq(memoryAuditEvents.tenantId, admin.tenantId))
    ).map((e) => e.reason);
    for (const reason of ["member invited", "invitation accepted", "invitation declined", "invitation cancelled"])
      expect(reasons).toContain(reason);
  });
});
