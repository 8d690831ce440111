import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";

/** The production server answers /api/openapi.json (in its agent listener) with the committed document. */
test("the production server serves the OpenAPI document, equal to docs/openapi.json", async ({ request }) => {
  const response = await request.get("/api/openapi.json");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toMatch(/^application\/json/);
  const committed = JSON.parse(
    readFileSync(path.resolve(import.meta.dirname, "../../docs/openapi.json"), "utf8"),
  ) as unknown;
  expect(await response.json()).toEqual(committed);
  expect((await request.post("/api/openapi.json", { data: {} })).status()).toBe(405);
});
