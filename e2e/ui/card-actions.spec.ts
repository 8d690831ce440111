import { expect, test } from "@playwright/test";
import { createCard, signIn } from "./helpers";

/**
 * The card page's correction dialogs other specs do not reach: an edit that changes nothing is a
 * noop said in words, a supersede moves to the new card and leaves the old one superseded, and an
 * expire ends the card with its reason kept in the history. (Edit, the conflict merge and forget are
 * in dashboard.spec.ts and card-merge.spec.ts.)
 */
test("edit without a change, supersede, then expire a card from its page", async ({ page }) => {
  await signIn(page);
  const first = await createCard(page, {
    kind: "custom_fact",
    item: "bike colour",
    title: "Bike colour",
    content: "The user's bike is red.",
    value: "red",
  });

  // Saving the form as it is writes nothing and says so.
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const edit = page.getByRole("dialog", { name: "Edit memory" });
  await edit.getByRole("button", { name: "Save new revision" }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByRole("status")).toHaveText("Nothing changed: the card already says this.");
  expect(page.url()).toBe(first);

  // Supersede: a new card replaces this one; the page moves to it.
  await page.getByRole("button", { name: "Supersede", exact: true }).click();
  const supersede = page.getByRole("dialog", { name: "Supersede memory" });
  await expect(supersede.getByRole("combobox", { name: "Kind", exact: true })).toHaveValue("custom_fact");
  await supersede.getByLabel("Title", { exact: true }).fill("Bike colour (repainted)");
  await supersede.getByRole("textbox", { name: "Content", exact: true }).fill("The user's bike is now blue.");
  await supersede.getByLabel(/^Value/).fill("blue");
  await supersede.getByRole("button", { name: "Supersede", exact: true }).click();
  await page.waitForURL((url) => /\/memories\/mem_/.test(url.pathname) && url.href !== first);
  await expect(page.getByRole("heading", { level: 1, name: "Bike colour (repainted)" })).toBeVisible();
  const second = page.url();

  // The old card is superseded and points at the current one.
  await page.goto(first);
  await expect(page.getByRole("note")).toContainText("superseded");
  await expect(page.getByRole("button", { name: "Supersede", exact: true })).toHaveCount(0);

  // Expire: the current card ends, with the reason.
  await page.goto(second);
  await page.getByRole("button", { name: "Expire", exact: true }).click();
  const expire = page.getByRole("dialog", { name: "Expire memory" });
  await expire.getByLabel("Reason").fill("the bike was sold");
  await expire.getByRole("button", { name: "Expire", exact: true }).click();
  await expect(expire).toBeHidden();
  await expect(page.getByRole("note")).toContainText("expired");
  await expect(page.getByRole("button", { name: "Expire", exact: true })).toHaveCount(0);
});
