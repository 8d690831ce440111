import { expect, test, type Page } from "@playwright/test";
import { createCard, editField, shot, signIn } from "./helpers";

/**
 * Two tabs edit one card (issue #31, item 2). The tab that saves second gets the conflict dialog,
 * which applies only the fields that tab changed, on top of the other tab's revision; where both
 * changed the same field it asks, and applies nothing until the person chooses.
 */

const conflictDialog = (page: Page) => page.getByRole("dialog", { name: "This memory changed while you edited it" });

/** A second tab on the card page `page` shows now: it keeps that revision while the first tab saves. */
async function secondTab(page: Page) {
  const other = await page.context().newPage();
  await other.goto(page.url());
  await expect(other.getByRole("button", { name: "Edit", exact: true })).toBeVisible();
  return other;
}

/** Saves `field` in `page` and waits for the new revision's page. */
async function saveRevision(page: Page, field: Parameters<typeof editField>[1], value: string, revision: number) {
  const before = page.url();
  await editField(page, field, value);
  await page.waitForURL((url) => url.toString() !== before);
  await expect(
    page.getByRole("list", { name: "Revision chain" }).getByText(`Revision ${revision}`, { exact: true }),
  ).toBeVisible();
}

test("apply mine keeps the other tab's tag and adds this tab's title", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await createCard(page, {
    kind: "custom_fact",
    item: "merge tea",
    title: "Tea in the morning",
    content: "The user drinks tea every morning.",
    value: "tea",
  });
  const tabB = await secondTab(page);

  // Tab A adds a tag: revision 2.
  await saveRevision(page, "Tags", "drinks", 2);

  // Tab B, still on revision 1, changes the title.
  await editField(tabB, "Title", "Green tea in the morning");
  const dialog = conflictDialog(tabB);
  await expect(dialog).toBeVisible();
  const fields = dialog.getByRole("list", { name: "Fields that differ" });
  await expect(fields.getByRole("listitem")).toHaveCount(2);
  const tags = fields.getByRole("listitem", { name: "Tags" });
  await expect(tags.getByText("Changed in revision 2: kept")).toBeVisible();
  await expect(tags.getByText("drinks")).toBeVisible();
  const title = fields.getByRole("listitem", { name: "Title" });
  await expect(title.getByText("Changed by you: applied")).toBeVisible();
  await expect(title.getByText("Green tea in the morning")).toBeVisible();
  await shot(tabB, "merge-conflict");

  const stale = tabB.url();
  await dialog.getByRole("button", { name: "Apply mine on top of revision 2" }).click();
  await tabB.waitForURL((url) => url.toString() !== stale);
  await expect(
    tabB.getByRole("list", { name: "Revision chain" }).getByText("Revision 3", { exact: true }),
  ).toBeVisible();
  // Revision 3 has both: the title from this tab, the tag from the other.
  await expect(tabB.getByRole("heading", { level: 1, name: "Green tea in the morning" })).toBeVisible();
  await expect(tabB.getByText("#drinks")).toBeVisible();
  await shot(tabB, "merge-applied");
  await tabB.close();
});

test("when both tabs change the same field, the dialog asks and loses nothing", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await createCard(page, {
    kind: "custom_fact",
    item: "merge coffee",
    title: "Coffee after lunch",
    content: "The user has coffee after lunch.",
    value: "coffee",
  });
  const tabB = await secondTab(page);

  // Tab A changes the title: revision 2.
  await saveRevision(page, "Title", "Espresso after lunch", 2);

  // Tab B, still on revision 1, changes the title too, and the confidence.
  await tabB.getByRole("button", { name: "Edit", exact: true }).click();
  const edit = tabB.getByRole("dialog", { name: "Edit memory" });
  await edit.getByLabel("Title", { exact: true }).fill("Latte after lunch");
  await edit.getByLabel("Confidence", { exact: true }).fill("0.42");
  await edit.getByRole("button", { name: "Save new revision" }).click();

  const dialog = conflictDialog(tabB);
  await expect(dialog).toBeVisible();
  const title = dialog.getByRole("listitem", { name: "Title" });
  await expect(title.getByText("Changed on both sides: choose")).toBeVisible();
  await expect(title.getByText("Espresso after lunch")).toBeVisible();
  await expect(title.getByText("Latte after lunch")).toBeVisible();
  await expect(dialog.getByRole("listitem", { name: "Confidence" }).getByText("Changed by you: applied")).toBeVisible();
  // Nothing is applied by guess: Apply waits for a choice, and the note names the field.
  const apply = dialog.getByRole("button", { name: "Apply mine on top of revision 2" });
  await expect(apply).toBeDisabled();
  await expect(dialog.getByRole("note")).toContainText("Title");
  await shot(tabB, "merge-both-changed");

  // Keeping the other tab's title still applies this tab's confidence.
  await title
    .getByRole("group", { name: "Which Title should revision 3 have?" })
    .getByLabel("Keep revision 2's")
    .check();
  await expect(apply).toBeEnabled();
  const stale = tabB.url();
  await apply.click();
  await tabB.waitForURL((url) => url.toString() !== stale);
  await expect(
    tabB.getByRole("list", { name: "Revision chain" }).getByText("Revision 3", { exact: true }),
  ).toBeVisible();
  await expect(tabB.getByRole("heading", { level: 1, name: "Espresso after lunch" })).toBeVisible();
  await expect(tabB.getByText("0.42").first()).toBeVisible();
  await shot(tabB, "merge-both-resolved");
  await tabB.close();
});
