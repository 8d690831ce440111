import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { addMember, createCard, createKey, createWorkspace, shot, signIn } from "./helpers";

/**
 * Issue 31, items 4 and 7, in Debian's chromium against the production build:
 * - scopes are chosen, not typed: the create form offers the people, workspaces and conversations
 *   the admin may write (by name and email), creating in a chosen person's scope works, and a
 *   made-up scope sent anyway is refused by the server with a reason (400 unknown_scope);
 * - people, not ids: scope cells, the sessions' user column, the grants matrix's column headers and
 *   the audit log show names and emails with the id in a title and behind a copy button; audit rows
 *   of grants, keys and members say whose grant on which scope; a rejected write names the refused
 *   scope; the Reason column fits at 1366 px. Screenshots: e2e/artifacts/dashboard-people-*.png.
 */

type TrpcBody<T> = {
  result?: { data: T };
  error?: { message: string; data: { code: string; reason?: string; httpStatus: number } };
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** An agent appends one message to a conversation (the key owner's), so the pickers and the sessions page have one. */
async function appendTurn(agent: APIRequestContext, sessionId: string) {
  const response = await agent.post("/api/trpc/tools.message_append", {
    data: { turn: { sessionId }, messages: [{ role: "user", content: `Hello from ${sessionId}.` }] },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** The scope id behind the create form's option for a person, read from the option's value. */
async function scopeOfPerson(page: Page, email: string): Promise<string> {
  await page.goto("/memories/new");
  const value = await page
    .getByRole("combobox", { name: "Scope", exact: true })
    .locator("option", { hasText: email })
    .getAttribute("value");
  expect(value).toMatch(/^user:\S+$/);
  return value!;
}

test("scopes are chosen from people, workspaces and sessions; a made-up scope is refused with a reason", async ({
  page,
  playwright,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page);
  const stamp = Date.now().toString(36);
  const bea = { email: `bea-${stamp}@example.com`, name: `Bea Picker ${stamp}`, password: "member password 4" };
  await addMember(page, bea);
  const workspace = await createWorkspace(page, { name: `Picker project ${stamp}`, id: `picker-${stamp}` });
  const agent = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${await createKey(page, `picker agent ${stamp}`)}` },
  });
  await appendTurn(agent, `picker-chat-${stamp}`);
  await agent.dispose();

  // The Scope field is a list, grouped: people by name and email, workspaces by name, conversations.
  await page.goto("/memories/new");
  const picker = page.getByRole("combobox", { name: "Scope", exact: true });
  await expect(picker).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Scope" })).toHaveCount(0);
  await expect(
    picker.locator('optgroup[label="People"] option', { hasText: `${bea.name} <${bea.email}>` }),
  ).toHaveCount(1);
  await expect(
    picker.locator('optgroup[label="Workspaces"] option', { hasText: `Picker project ${stamp}` }),
  ).toHaveCount(1);
  await expect(
    picker.locator('optgroup[label="Recent conversations"] option', { hasText: `picker-chat-${stamp}` }),
  ).toHaveCount(1);
  await expect(picker.locator('optgroup[label="Organisation"] option', { hasText: "Whole organisation" })).toHaveCount(
    1,
  );
  const options = await picker
    .locator("option")
    .evaluateAll((options) => options.map((n) => (n as HTMLOptionElement).value));
  expect(options.every((value) => /^(user|workspace|session):\S+$|^global$/.test(value))).toBe(true);
  await shot(page, "people-scope-picker");

  // Creating in a chosen person's scope: the card page names the person, the id stays on hover.
  const beaScope = await scopeOfPerson(page, bea.email);
  await createCard(page, {
    kind: "custom_fact",
    scope: beaScope,
    item: `tea-${stamp}`,
    title: `Bea likes tea ${stamp}`,
    content: "Bea drinks green tea.",
    value: "green tea",
  });
  // Named in the header and the fields (the id on hover in both), with a copy button.
  await expect(page.locator(`[title="${beaScope}"]`).filter({ hasText: bea.name })).toHaveCount(2);
  await expect(page.getByRole("button", { name: `Copy the id ${beaScope}` })).toBeVisible();
  await shot(page, "people-card-in-chosen-scope");
  await createCard(page, {
    kind: "custom_fact",
    scope: workspace,
    item: `ws-${stamp}`,
    title: `Picker project fact ${stamp}`,
    content: "The project ships on Fridays.",
    value: "friday",
  });
  await expect(
    page
      .locator(`[title="${workspace}"]`)
      .filter({ hasText: `Picker project ${stamp}` })
      .first(),
  ).toBeVisible();

  // A made-up scope sent anyway (as the old free-text box allowed) is refused with what to send instead.
  const write = (scope: string) =>
    page.request.post("/api/trpc/memory.write", {
      data: {
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: `typed-${stamp}`,
            scope,
            node: { title: "Typed scope", content: "A typed scope." },
          },
        ],
      },
    });
  const typedEmail = await write(`user:${bea.email}`);
  expect(typedEmail.status()).toBe(400);
  const refusal = (await typedEmail.json()) as TrpcBody<unknown>;
  expect(refusal.error?.data.reason).toBe("unknown_scope");
  expect(refusal.error?.message).toContain(`names nobody in this organisation`);
  expect(refusal.error?.message).toContain(beaScope);
  const madeUp = await write(`workspace:made-up-${stamp}`);
  expect(madeUp.status()).toBe(400);
  expect(((await madeUp.json()) as TrpcBody<unknown>).error?.message).toContain(
    `workspace:made-up-${stamp} is not a workspace of this organisation`,
  );

  // Nothing was stored there, so the browser's scope filter does not offer it.
  await page.goto("/memories");
  const scopeFilter = page.getByRole("complementary", { name: "Filters" }).getByRole("combobox", { name: "Scope" });
  await expect(scopeFilter.locator("option", { hasText: `${bea.name} <${bea.email}>` })).toHaveCount(1);
  await expect(scopeFilter.locator("option", { hasText: bea.email }).filter({ hasText: /^user:/ })).toHaveCount(0);
  await expect(scopeFilter.locator("option", { hasText: `made-up-${stamp}` })).toHaveCount(0);
  await shot(page, "people-scope-filter");
});

test("people, not ids: names and emails everywhere a person is meant, the id on hover and copy", async ({
  page,
  context,
  playwright,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const account = await signIn(page);
  const adminLabel = `${account.name} <${account.email}>`;
  const stamp = Date.now().toString(36);
  const cy = { email: `cy-${stamp}@example.com`, name: `Cy Reader ${stamp}`, password: "member password 5" };
  const dee = { email: `dee-${stamp}@example.com`, name: `Dee Profile ${stamp}`, password: "member password 6" };
  await addMember(page, cy);
  await addMember(page, dee);
  const keyName = `people agent ${stamp}`;
  const agent = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${await createKey(page, keyName)}` },
  });
  const sessionId = `people-chat-${stamp}`;
  await appendTurn(agent, sessionId);
  const deeScope = await scopeOfPerson(page, dee.email);
  await createCard(page, {
    kind: "custom_fact",
    scope: deeScope,
    item: `coffee-${stamp}`,
    title: `Dee likes coffee ${stamp}`,
    content: "Dee drinks it black.",
    value: "black coffee",
  });

  // Memory browser: the scope cell names Dee, the id is its title and behind a copy button.
  await page.goto(`/memories?scope=${encodeURIComponent(deeScope)}`);
  const row = page
    .getByRole("table", { name: "Memory cards" })
    .getByRole("row")
    .filter({ hasText: `Dee likes coffee ${stamp}` });
  await expect(row.locator(`[title="${deeScope}"]`)).toContainText(dee.name);
  await expect(row.getByText(dee.email)).toBeVisible();
  await expect(row.getByRole("button", { name: `Copy the id ${deeScope}` })).toBeVisible();
  await expect(row.getByText(deeScope, { exact: true })).toHaveCount(0);
  await shot(page, "people-scope-cell");

  // Sessions: the user column names the conversation's person (the key's owner here).
  await page.goto("/sessions");
  const session = page.getByRole("table", { name: "Sessions" }).getByRole("row").filter({ hasText: sessionId });
  await expect(session.getByText(account.name === account.email ? account.email : account.name).first()).toBeVisible();
  await expect(session.locator('[title^="user:"]')).toHaveCount(1);
  await expect(session.getByText(/^usr_/)).toHaveCount(0);
  await shot(page, "people-sessions");

  // Grants: sharing Dee's profile with Cy is picked by name, and the column header names Dee.
  await page.goto("/admin/grants");
  await page.getByRole("combobox", { name: "Add scope column" }).selectOption(deeScope);
  await page.getByRole("button", { name: "Add scope column" }).click();
  const matrix = page.getByRole("table", { name: "Grant matrix" });
  const header = matrix.getByRole("columnheader").filter({ hasText: dee.name });
  await expect(header).toBeVisible();
  await expect(header.locator(`[title="${deeScope}"]`)).toHaveCount(1);
  // The box follows the server: it is ticked once the grant is saved.
  const readBox = matrix.getByRole("checkbox", { name: `read ${deeScope} for ${cy.email}`, exact: true });
  await readBox.click();
  await expect(
    page.getByRole("status").filter({ hasText: `Saved: ${cy.email} on ${deeScope}: read only.` }),
  ).toBeVisible({ timeout: 15_000 });
  await expect(readBox).toBeChecked();
  await expect(matrix.getByRole("row").filter({ hasText: cy.email }).getByText(cy.name)).toBeVisible();
  await shot(page, "people-grants-header");

  // A rejected write names the scope it was refused: the key holds its owner's profile and sessions only.
  const refused = await agent.post("/api/trpc/tools.memory_write", {
    data: {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey: `refused-${stamp}`,
          scope: deeScope,
          explicitUserIntent: true,
          node: { title: "Refused", content: "Not the key's scope." },
        },
      ],
    },
  });
  expect(refused.status()).toBe(403);
  await agent.dispose();

  // Audit: whose grant on which scope, which key and whose, which member; the refused scope.
  const audit = page.getByRole("table", { name: "Audit log" });
  await page.goto("/audit?event=grant");
  const grant = audit
    .getByRole("row")
    .filter({ hasText: "grant to" })
    .filter({ hasText: cy.name })
    .filter({ hasText: dee.name })
    .first();
  await expect(grant.locator(`[title="${deeScope}"]`)).toContainText(dee.name);
  await expect(grant.getByRole("button", { name: `Copy the id ${deeScope}` })).toBeVisible();
  await shot(page, "people-audit-grant");
  await page.goto("/audit?event=key");
  const key = audit.getByRole("row").filter({ hasText: keyName }).first();
  await expect(key).toContainText("API key");
  await expect(key).toContainText(`owned by ${adminLabel}`);
  await page.goto("/audit?event=member");
  await expect(
    audit
      .getByRole("row")
      .filter({ hasText: "member" })
      .filter({ hasText: new RegExp(escape(`${dee.name} <${dee.email}>`)) })
      .first(),
  ).toBeVisible();
  await page.goto("/audit?event=rejected");
  const rejected = audit
    .getByRole("row")
    .filter({ hasText: keyName })
    .filter({ hasText: "scope_not_writable" })
    .first();
  await expect(rejected.locator(`[title="${deeScope}"]`)).toContainText(dee.name);
  await shot(page, "people-audit-rejected");

  // At a laptop's 1366 px the whole row fits: the Reason column is on screen, nothing scrolls sideways.
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto("/audit");
  const wrapper = audit.locator("xpath=..");
  const fits = await wrapper.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
  expect(fits).toBe(true);
  const reasonHeader = await audit.getByRole("columnheader", { name: "Reason" }).boundingBox();
  expect(reasonHeader!.x + reasonHeader!.width).toBeLessThanOrEqual(1366);
  await shot(page, "people-audit-1366");

  // At 390 px and in Chinese the same names show.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/memories?scope=${encodeURIComponent(deeScope)}`);
  await expect(page.getByRole("table", { name: "Memory cards" }).getByText(dee.name)).toBeVisible();
  await shot(page, "people-scope-cell-390");
  await context.addCookies([{ name: "memory-locale", value: "zh", url: baseURL! }]);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto("/audit?event=grant");
  await expect(
    page
      .getByRole("table", { name: "审计日志" })
      .getByRole("row")
      .filter({ hasText: "授权给" })
      .filter({ hasText: cy.name })
      .first(),
  ).toBeVisible();
  await shot(page, "people-audit-zh");
  await page.goto("/memories/new");
  await expect(
    page
      .getByRole("combobox", { name: "作用域", exact: true })
      .locator('optgroup[label="成员"] option', { hasText: dee.email }),
  ).toHaveCount(1);
  await shot(page, "people-scope-picker-zh");
  await context.clearCookies({ name: "memory-locale" });
});
