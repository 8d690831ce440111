import { test } from "@playwright/test";
import { createKey, signIn } from "./helpers";
import { expect, expectNoSidewaysScroll, PHONE } from "./layout-helpers";

/**
 * Cards the background extractor inferred from a conversation are reviewed on its session page, on
 * a phone (390 × 844): accept makes one explicit, reject asks why and forgets it.
 */
test.use({ viewport: PHONE });

test("a person accepts and rejects extracted cards on the session page of a phone", async ({ page }) => {
  // The extractor waits 30 s for the agent's own writes of the turn, then the worker picks it up.
  test.setTimeout(180_000);
  await signIn(page);
  const secret = await createKey(page, "review agent");
  const sessionId = `review-${Date.now()}`;
  const response = await page.request.post("/api/trpc/tools.message_append", {
    headers: { authorization: `Bearer ${secret}` },
    data: {
      turn: { sessionId },
      messages: [{ role: "user", content: "My brother Tom lives nearby. I really love jazz concerts." }],
    },
  });
  expect(response.ok(), await response.text()).toBe(true);

  const url = `/sessions/${encodeURIComponent(sessionId)}`;
  await expect(async () => {
    await page.goto(url);
    await expect(page.getByRole("button", { name: /^Accept: / })).toHaveCount(2, { timeout: 1000 });
  }).toPass({ timeout: 120_000, intervals: [3000] });
  await expectNoSidewaysScroll(page, url);
  const message = page
    .getByRole("list", { name: "Messages" })
    .getByRole("listitem")
    .filter({ hasText: "My brother Tom" });
  await expect(message.getByText("extracted")).toHaveCount(2);

  await page.getByRole("button", { name: "Accept: Brother: Tom" }).click();
  await expect(page.getByRole("button", { name: /^Accept: / })).toHaveCount(1);

  await page.getByRole("button", { name: "Reject" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox").first().fill("not true any more");
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("button", { name: /^Accept: / })).toHaveCount(0);
  await expect(page.getByText("deleted", { exact: true })).toBeVisible();
  await expectNoSidewaysScroll(page, url);
});
