import { expect, test, type Locator } from "@playwright/test";
import { createCard, forgetCard, shot, signIn } from "./helpers";

/**
 * Issue #31, item 8 (this part): a forgotten card is erased without restoring it, required fields are
 * marked, the one-time key secret is not lost to Esc or ×, the site has an icon, and the import
 * page's file input looks like a control.
 */

/** The text a label's ::after draws (the required mark), or "none". */
const afterContent = (label: Locator) => label.evaluate((el) => getComputedStyle(el, "::after").content);

test("a forgotten card is erased directly, with the receipt", async ({ page }) => {
  await signIn(page);
  await createCard(page, {
    kind: "custom_fact",
    item: "forget then erase",
    title: "Forget then erase",
    content: "A fact that is forgotten, then erased.",
    value: "gone",
  });
  await forgetCard(page, "the user asked to forget it");
  await expect(page.getByRole("button", { name: "Restore" })).toBeVisible();
  await page.getByRole("button", { name: "Erase permanently" }).click();
  const erase = page.getByRole("dialog", { name: "Erase memory permanently" });
  const prompt = (await erase.getByText(/^Type .+ to confirm$/).textContent()) ?? "";
  const key = prompt.replace(/^Type /, "").replace(/ to confirm$/, "");
  await erase.getByLabel("Reason").fill("erase it for good");
  await erase.getByLabel(/^Type .+ to confirm$/).fill(key);
  await shot(page, "erase-forgotten");
  await erase.getByRole("button", { name: "Erase permanently" }).click();
  const receipt = page.getByRole("dialog", { name: "Erasure receipt" });
  await expect(receipt.getByText("Revisions")).toBeVisible();
  await shot(page, "erase-forgotten-receipt");
});

test("required fields are marked, visibly and for screen readers", async ({ page }) => {
  await signIn(page);
  await page.goto("/memories/new");
  const title = page.getByRole("textbox", { name: "Title", exact: true });
  const content = page.getByRole("textbox", { name: "Content", exact: true });
  // The accessible names stay the words; "required" comes from the controls themselves.
  await expect(title).toHaveJSProperty("required", true);
  await expect(content).toHaveJSProperty("required", true);
  expect(await afterContent(page.locator("label", { hasText: /^Title$/ }))).toContain("*");
  expect(await afterContent(page.locator("label", { hasText: /^Content$/ }))).toContain("*");
  expect(await afterContent(page.locator("label", { hasText: /^Tags$/ }))).toBe("none");
  await shot(page, "required-create");

  // The erase dialog's reason and typed confirmation.
  await createCard(page, {
    kind: "custom_fact",
    item: "required marks",
    title: "Required marks",
    content: "A card to open the erase dialog on.",
    value: "x",
  });
  await page.getByRole("button", { name: "Erase permanently" }).click();
  const erase = page.getByRole("dialog", { name: "Erase memory permanently" });
  await expect(erase.getByLabel("Reason", { exact: true })).toHaveJSProperty("required", true);
  expect(await afterContent(erase.getByText("Reason", { exact: true }))).toContain("*");
  expect(await afterContent(erase.getByText(/^Type .+ to confirm$/))).toContain("*");
  await shot(page, "required-erase");
});

test("the one-time key secret asks before Esc or × close it", async ({ page }) => {
  await signIn(page);
  await page.goto("/admin/keys");
  await page.getByLabel("Name", { exact: true }).fill(`guarded-${Date.now()}`);
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(dialog.getByLabel("Secret")).toHaveValue(/^mem_live_/);

  await page.keyboard.press("Escape");
  await expect(dialog).toBeVisible();
  const warning = dialog.getByRole("alert");
  await expect(warning).toContainText("shown only once");
  await shot(page, "key-close-warning");
  await warning.getByRole("button", { name: "Back to the secret" }).click();
  await expect(warning).toHaveCount(0);
  await expect(dialog.getByLabel("Secret")).toHaveValue(/^mem_live_/);

  await dialog.getByRole("button", { name: "Close", exact: true }).click();
  await expect(dialog.getByRole("alert")).toBeVisible();
  // A second Escape (Chrome closes a dialog outright after a cancelled one) still does not lose it.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("alert")).toBeVisible();
  await dialog.getByRole("button", { name: "Close without storing" }).click();
  await expect(dialog).toHaveCount(0);
});

test("the site has an icon", async ({ page }) => {
  const ico = await page.request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toContain("image/");
  await page.goto("/sign-in");
  const icon = page.locator('link[rel="icon"]').first();
  const href = await icon.getAttribute("href");
  expect(href).toBeTruthy();
  expect((await page.request.get(href!)).status()).toBe(200);
});

test("the import page's file input looks like a control", async ({ page }) => {
  await signIn(page);
  await page.goto("/memories/transfer");
  const file = page.getByLabel("JSONL file");
  await expect(file).toHaveJSProperty("required", true);
  const look = await file.evaluate((el) => {
    const box = getComputedStyle(el);
    const button = getComputedStyle(el, "::file-selector-button");
    return {
      border: box.borderTopWidth,
      buttonBackground: button.backgroundColor,
      buttonBorder: button.borderTopWidth,
      buttonPadding: button.paddingLeft,
    };
  });
  expect(look.border).toBe("1px");
  expect(look.buttonBackground).not.toBe("rgba(0, 0, 0, 0)");
  expect(look.buttonPadding).not.toBe("0px");
  await shot(page, "import-file-input");
});
