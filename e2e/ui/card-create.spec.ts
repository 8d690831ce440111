import { expect, test, type Page } from "@playwright/test";
import { createWorkspace, shot, signIn } from "./helpers";

/**
 * Issue #31, items 1 and 3, through the create form: a card never silently replaces another (two
 * decisions live side by side; a create that would replace a card shows it with replace / cancel), and
 * the Value box is read the same way for every kind (text / JSON toggle, JSON validated against the
 * kind, refusals in the form's words). Makes its own data in a workspace of its own.
 */

type Fields = { kind: string; scope?: string; item?: string; title: string; content: string; value?: string };

/** Fills /memories/new and presses Create (without waiting for any outcome). */
async function fillAndCreate(page: Page, card: Fields) {
  await page.goto("/memories/new");
  await page.getByLabel("Kind", { exact: true }).selectOption(card.kind);
  if (card.scope) await page.getByLabel("Scope", { exact: true }).selectOption(card.scope);
  if (card.item !== undefined) await page.getByLabel(/^Item/).fill(card.item);
  await page.getByLabel("Title", { exact: true }).fill(card.title);
  await page.getByRole("textbox", { name: "Content", exact: true }).fill(card.content);
  if (card.value !== undefined) await page.getByLabel(/^Value/).fill(card.value);
  await page.getByRole("button", { name: "Create memory" }).click();
}

/** The stored card behind a card page, read as the dashboard reads it. */
async function storedCard(page: Page, url: string) {
  const id = new URL(url).pathname.split("/").pop()!;
  const response = await page.request.get(`/api/trpc/memory.card?input=${encodeURIComponent(JSON.stringify({ id }))}`);
  expect(response.ok(), await response.text()).toBe(true);
  return (
    (await response.json()) as { result: { data: { card: { key: string; valueJson: unknown; revision: number } } } }
  ).result.data.card;
}

const warning = (page: Page) => page.getByRole("alertdialog", { name: "Saving would replace a card" });

test("item 1: a second decision is a card of its own; a create that would replace a card asks first", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await signIn(page);
  const stamp = Date.now();
  const workspace = await createWorkspace(page, { name: `Apollo ${stamp}`, id: `apollo-${stamp}` });

  // The two decisions: both saved, both active, the first still found by "database".
  await fillAndCreate(page, {
    kind: "durable_decision",
    scope: workspace,
    title: "Apollo uses Postgres",
    content: "The Apollo database is Postgres.",
  });
  await page.waitForURL(/\/memories\/mem_/);
  const postgres = page.url();
  await fillAndCreate(page, {
    kind: "durable_decision",
    scope: workspace,
    title: "No Friday deploys",
    content: "Apollo is never deployed on a Friday.",
  });
  await page.waitForURL(/\/memories\/mem_/);
  await expect(page.getByText("Revision 1", { exact: true }).first()).toBeVisible();
  expect((await storedCard(page, postgres)).key).toBe("decision.durable:apollo_uses_postgres");
  await page.goto("/memories");
  await page.getByLabel("Search memories").fill("database");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(
    page.getByRole("table", { name: "Memory cards" }).getByRole("link", { name: "Apollo uses Postgres" }),
  ).toBeVisible();
  await shot(page, "card-create-two-decisions");

  // The same decision again: the form shows the card it would replace before saving anything.
  await fillAndCreate(page, {
    kind: "durable_decision",
    scope: workspace,
    title: "No Friday deploys",
    content: "No deploys on Fridays or before holidays.",
  });
  await expect(warning(page)).toBeVisible();
  await expect(warning(page)).toContainText("Apollo is never deployed on a Friday.");
  await expect(warning(page)).toContainText("no_friday_deploys");
  await shot(page, "card-create-replace-warning");
  await warning(page).getByRole("button", { name: "Cancel" }).click();
  await expect(warning(page)).toHaveCount(0);
  await expect(page).toHaveURL(/\/memories\/new$/);
  // Asked again and confirmed: the replacement is the card's next revision.
  await page.getByRole("button", { name: "Create memory" }).click();
  await warning(page).getByRole("button", { name: "Replace it" }).click();
  await page.waitForURL(/\/memories\/mem_/);
  await expect(page.getByRole("heading", { level: 1, name: "No Friday deploys" })).toBeVisible();
  expect(await storedCard(page, page.url())).toMatchObject({ revision: 2, key: "decision.durable:no_friday_deploys" });

  // A single-slot kind says it holds one card per scope, at phone width too.
  await fillAndCreate(page, {
    kind: "occupation",
    title: "Backend engineer",
    content: "Works as a backend engineer.",
    value: "backend engineer",
  });
  await page.waitForURL(/\/memories\/mem_/);
  await page.setViewportSize({ width: 390, height: 844 });
  await fillAndCreate(page, {
    kind: "occupation",
    title: "Designer",
    content: "Works as a designer.",
    value: "designer",
  });
  await expect(warning(page)).toContainText("occupation holds one card per scope");
  await expect(warning(page)).toContainText("Backend engineer");
  await shot(page, "card-create-replace-warning-390");
  await warning(page).getByRole("button", { name: "Cancel" }).click();

  // The same warning in Chinese (language cookie).
  const host = new URL(page.url()).hostname;
  await page.context().addCookies([{ name: "memory-locale", value: "zh", domain: host, path: "/" }]);
  await page.goto("/memories/new");
  await page.getByLabel("类型", { exact: true }).selectOption("occupation");
  await page.getByLabel("标题", { exact: true }).fill("设计师");
  await page.getByRole("textbox", { name: "内容", exact: true }).fill("职业是设计师。");
  await page.getByRole("textbox", { name: /^值/ }).fill("设计师");
  await page.getByRole("button", { name: "创建记忆" }).click();
  const zhWarning = page.getByRole("alertdialog", { name: "保存将替换一张卡片" });
  await expect(zhWarning).toContainText("occupation 每个作用域只保存一张");
  await shot(page, "card-create-replace-warning-zh");
  await zhWarning.getByRole("button", { name: "取消" }).click();
  await page.context().addCookies([{ name: "memory-locale", value: "en", domain: host, path: "/" }]);
});

test("item 3: Value is parsed as JSON for every kind, checked against the kind, and refused in words", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await signIn(page);
  const value = page.getByLabel(/^Value/);

  // The value for a food to avoid (food_avoidance is avoid_ingredient now): stored as an object.
  await page.goto("/memories/new");
  await page.getByLabel("Kind", { exact: true }).selectOption("avoid_ingredient");
  // An Item of this test's own (the value would name 香菜), so no other spec's card is in its slot.
  const item = `cilantro_${Date.now().toString(36).replace(/[0-9]/g, "")}`;
  await page.getByLabel(/^Item/).fill(item);
  await page.getByLabel("Title", { exact: true }).fill("不喜欢香菜");
  await page.getByRole("textbox", { name: "Content", exact: true }).fill("用户不喜欢香菜的味道。");
  await value.fill('{"food":"香菜","reason":"dislike"}');
  await expect(page.getByRole("radio", { name: "JSON" })).toBeChecked();
  await shot(page, "card-create-value-json");
  await page.getByRole("button", { name: "Create memory" }).click();
  await page.waitForURL(/\/memories\/mem_/);
  expect(await storedCard(page, page.url())).toMatchObject({
    key: `cooking.avoid_ingredient:${item}`,
    valueJson: { food: "香菜", reason: "dislike" },
  });
  await shot(page, "card-create-value-stored");
  // The edit dialog reads it back the same way.
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Edit memory" });
  await expect(dialog.getByRole("radio", { name: "JSON" })).toBeChecked();
  await expect(dialog.getByLabel(/^Value/)).toHaveValue(/"reason": "dislike"/);
  await dialog.getByRole("button", { name: "Cancel" }).click();

  // JSON that does not parse is shown at the field and never saved as text.
  await page.goto("/memories/new");
  await page.getByLabel("Kind", { exact: true }).selectOption("avoid_ingredient");
  await page.getByLabel("Title", { exact: true }).fill("No peanuts");
  await page.getByRole("textbox", { name: "Content", exact: true }).fill("Allergic to peanuts.");
  await value.fill('{"food": peanuts}');
  await expect(page.getByRole("alert").filter({ hasText: "This is not valid JSON" })).toBeVisible();
  await page.getByRole("button", { name: "Create memory" }).click();
  await expect(page).toHaveURL(/\/memories\/new$/);
  await shot(page, "card-create-value-bad-json");
  // Text saves exactly what was typed.
  await page.getByText("Text", { exact: true }).click();
  await expect(page.getByRole("radio", { name: "Text" })).toBeChecked();
  await expect(page.getByRole("alert").filter({ hasText: "This is not valid JSON" })).toHaveCount(0);

  // A value of the wrong shape, and an item that is a date, are refused in the form's words.
  await fillAndCreate(page, {
    kind: "home_location",
    title: "Home",
    content: "Lives in China.",
    value: '{"country":"China"}',
  });
  await expect(page.getByText(/The Value does not fit home_location: it should be \{ city\?/)).toBeVisible();
  await shot(page, "card-create-value-refused");
  await fillAndCreate(page, {
    kind: "custom_fact",
    item: "2024-05-01",
    title: "Launch",
    content: "Launch day.",
    value: "launch",
  });
  await expect(page.getByText("The Item must not contain a date or time: name the thing itself.")).toBeVisible();
});
