import { expect, test } from "@playwright/test";

const admin = { name: "Ada Admin", email: "ada@example.com", password: "a long enough password" };

test("first visitor creates the admin account, signs out, and signs in through the real page", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();

  await page.getByRole("link", { name: "Create the first admin account" }).click();
  await expect(page.getByRole("heading", { name: "Create the first admin account" })).toBeVisible();
  await page.getByLabel("Name").fill(admin.name);
  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Create account" }).click();

  await expect(page.getByRole("heading", { name: "Default organisation" })).toBeVisible();
  await expect(page.getByText(`Signed in as ${admin.email} (admin)`)).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Scope grants" }),
  ).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);

  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();

  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Default organisation" })).toBeVisible();
  await page.screenshot({ path: "e2e/artifacts/dashboard-signed-in.png", fullPage: true });

  await page.goto("/sign-up");
  await expect(page).toHaveURL(/\/$/);
});

test("sign-up is closed once the install has its admin", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/sign-up");
  await expect(page.getByRole("heading", { name: "Sign-up is closed" })).toBeVisible();
  await context.close();
});
