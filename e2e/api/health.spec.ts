import { expect, test } from "@playwright/test";

test("health reports embedded mode, schema version and extension versions", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.ok()).toBe(true);
  const body = await response.json();
  // npm start's server answers agent calls in front of Next.js (scripts/server.mjs).
  expect(body).toMatchObject({ status: "ok", database: { mode: "embedded" }, agentEndpoint: "listener" });
  expect(body.database.schemaVersion).toMatch(/^\d{4}_/);
  expect(body.database.extensions.vector).toMatch(/^\d+\.\d+/);
  expect(body.database.extensions.pg_trgm).toMatch(/^\d+\.\d+/);
});

test("the agent endpoint answers a missing or bad key with a clean, actionable error", async ({ request }) => {
  const missing = await request.get("/api/trpc/me.agent");
  expect(missing.status()).toBe(401);
  expect((await missing.json()).error.message).toMatch(/Authorization: Bearer/);

  const bad = await request.get("/api/trpc/me.agent", { headers: { authorization: "Bearer mem_live_nope" } });
  expect(bad.status()).toBe(401);
  const body = await bad.json();
  expect(body.error.data.reason).toBe("unknown_api_key");
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|stack/i);
});

test("dashboard procedures refuse callers without a session", async ({ request }) => {
  const response = await request.get("/api/trpc/me.get");
  expect(response.status()).toBe(401);
});
