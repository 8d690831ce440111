import { expect, type Page } from "@playwright/test";

/**
 * Steps the ui specs share: signing in through the real page, creating and editing cards through
 * the dashboard's forms, and full-page screenshots under e2e/artifacts/dashboard-<name>.png.
 */

/** The install's first admin (sign-in.spec creates it through the sign-up page). */
export const admin = { name: "Ada Admin", email: "ada@example.com", password: "a long enough password" };

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: `e2e/artifacts/dashboard-${name}.png`, fullPage: true });

type Account = { email: string; password: string; name: string };
type SignUpStatus = { emptyInstall: boolean; signUpOpen: boolean };

async function signUp(page: Page, account: Account) {
  const response = await page.request.post("/api/trpc/account.signUp", { data: account });
  expect(response.ok(), await response.text()).toBe(true);
}

/** Signs in with email and password through /sign-in and waits for the signed-in banner. */
export async function signInAs(page: Page, account: { email: string; password: string }, role?: "admin" | "member") {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(
    page.getByText(role ? `Signed in as ${account.email} (${role})` : `Signed in as ${account.email}`),
  ).toBeVisible();
}

/**
 * Signs in as the install's admin. Run on its own (no sign-in.spec before it) it first creates the
 * admin sign-in.spec would have created; with open sign-up it uses an account (and organisation) of its own.
 */
export async function signIn(page: Page): Promise<Account> {
  const status = (
    (await (await page.request.get("/api/trpc/account.signUpStatus")).json()) as { result: { data: SignUpStatus } }
  ).result.data;
  let account = admin;
  if (status.emptyInstall) {
    await signUp(page, admin);
  } else if (status.signUpOpen) {
    account = { name: "Dash Board", email: `dash-${Date.now()}@example.com`, password: "another long password" };
    await signUp(page, account);
  }
  await signInAs(page, account);
  return account;
}

/**
 * Creates a card through /memories/new and waits for its page; returns the card page's URL. Scope is
 * picked from the form's list (people, workspaces, sessions): `scope` is the option's value, the
 * scope id (`user:<id>`, `workspace:<id>`…), which must be one the form offers.
 */
export async function createCard(
  page: Page,
  card: { kind: string; item: string; title: string; content: string; value: string; scope?: string },
) {
  await page.goto("/memories/new");
  await page.getByLabel("Kind", { exact: true }).selectOption(card.kind);
  if (card.scope) await page.getByLabel("Scope", { exact: true }).selectOption(card.scope);
  await page.getByLabel("Item", { exact: true }).fill(card.item);
  await page.getByLabel("Title", { exact: true }).fill(card.title);
  await page.getByRole("textbox", { name: "Content", exact: true }).fill(card.content);
  await page.getByLabel(/^Value/).fill(card.value);
  await page.getByRole("button", { name: "Create memory" }).click();
  await page.waitForURL(/\/memories\/mem_/);
  await expect(page.getByRole("heading", { level: 1, name: card.title })).toBeVisible();
  return page.url();
}

/** Opens the edit dialog on a card page, sets one field and saves (a new revision). */
export async function editField(page: Page, field: "Title" | "Content" | "Tags" | "Confidence", value: string) {
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Edit memory" });
  await dialog.getByLabel(field, { exact: true }).fill(value);
  await dialog.getByRole("button", { name: "Save new revision" }).click();
}

/** Opens the edit dialog on a card page and saves a new content (a new revision). */
export const editContent = (page: Page, content: string) => editField(page, "Content", content);

/** Soft-forgets the card whose page is open, with a reason, and waits for the deleted note. */
export async function forgetCard(page: Page, reason: string) {
  await page.getByRole("button", { name: "Forget", exact: true }).click();
  const forget = page.getByRole("dialog", { name: "Forget memory" });
  await forget.getByLabel("Reason").fill(reason);
  await forget.getByRole("button", { name: "Forget", exact: true }).click();
  await expect(page.getByRole("note")).toContainText("deleted");
}

/** The admin adds a person with a role of member and an initial password on /admin/members. */
export async function addMember(page: Page, member: { email: string; name: string; password: string }) {
  await page.goto("/admin/members");
  await page.getByLabel("Email", { exact: true }).fill(member.email);
  await page.getByLabel("Name", { exact: true }).fill(member.name);
  await page.getByLabel("Initial password").fill(member.password);
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByRole("table", { name: "Members" }).getByText(member.email)).toBeVisible();
}

/**
 * Creates an API key on /admin/keys with the default permissions (memory:read, memory:write, messages:write) and
 * returns its secret, read from the dialog that shows it once (screenshot `secretShot` of that dialog).
 */
export async function createKey(page: Page, name: string, secretShot?: string): Promise<string> {
  await page.goto("/admin/keys");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await expect(page.getByRole("checkbox", { name: "memory:write" })).toBeChecked();
  // The README's agent loop starts with message_append: a default key can run it.
  await expect(page.getByRole("checkbox", { name: "messages:write" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "memory:forget" })).not.toBeChecked();
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(dialog.getByLabel("Secret")).toHaveValue(/^mem_live_/);
  const secret = await dialog.getByLabel("Secret").inputValue();
  if (secretShot) await shot(page, secretShot);
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("table", { name: "API keys" }).getByText(name)).toBeVisible();
  return secret;
}

/** The admin creates a workspace on /admin/workspaces (a scope the create form then offers); returns its scope. */
export async function createWorkspace(page: Page, workspace: { name: string; id: string }): Promise<string> {
  await page.goto("/admin/workspaces");
  await page.getByLabel("Name", { exact: true }).fill(workspace.name);
  await page.getByLabel("Id", { exact: true }).fill(workspace.id);
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page.getByRole("status").filter({ hasText: `workspace:${workspace.id} was created` })).toBeVisible();
  return `workspace:${workspace.id}`;
}
