import { readFile } from "node:fs/promises";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import {
  addMember,
  createCard,
  createKey,
  createWorkspace,
  editContent,
  forgetCard,
  shot,
  signIn,
  signInAs,
} from "./helpers";

/**
 * Admin grants and JSONL transfer, in Debian's chromium against the production build:
 * - the admin takes a member's write grant away in the grants matrix, and the key the member made in
 *   their own browser is refused on its next tool call (it could write the same scope just before);
 * - a scope's cards are exported through the Import / export page (a real download), re-imported
 *   with a dry run that reports noop and writes nothing, and after changes in the UI a dry run and a
 *   real import report created / noop / conflict, checked against the card counts.
 * Screenshots go to e2e/artifacts/dashboard-*.png like the other ui specs.
 */

type WriteResult = { done: boolean; results: { status: string; reason?: string; nodeId?: string; scope?: string }[] };
type TrpcBody<T> = {
  result?: { data: T };
  error?: { data: { code: string; reason?: string; httpStatus: number; details?: Record<string, unknown> } };
};

/** One memory_write create over HTTP, as an agent sends it (plain JSON, bearer key). */
async function agentWrite(agent: APIRequestContext, scope: string, itemKey: string) {
  const response = await agent.post("/api/trpc/tools.memory_write", {
    data: {
      operations: [
        {
          op: "create",
          kind: "custom_fact",
          itemKey,
          scope,
          explicitUserIntent: true,
          node: { title: `Fact ${itemKey}`, content: `The user told the agent about ${itemKey}.`, valueJson: itemKey },
        },
      ],
    },
  });
  return { status: response.status(), body: (await response.json()) as TrpcBody<WriteResult> };
}

test("removing a member's write grant in the matrix refuses the member's own key on its next write", async ({
  page,
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page);

  // The admin adds a member with a password.
  const member = { email: `wanda-${Date.now()}@example.com`, name: "Wanda Writer", password: "member password 2" };
  await addMember(page, member);

  // The member signs in in a browser of their own and creates a key; the secret is shown once.
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  await signInAs(memberPage, member, "member");
  const secret = await createKey(memberPage, "wanda agent", "member-key-secret");
  await memberContext.close();

  // The grants matrix: the member's own profile, read and write ticked (the defaults).
  await page.goto("/admin/grants");
  const matrix = page.getByRole("table", { name: "Grant matrix" });
  const writeBox = matrix.getByRole("checkbox", {
    name: new RegExp(`^write user:\\S+ for ${member.email.replace(/[.+]/g, "\\$&")}$`),
  });
  await expect(writeBox).toBeChecked();
  const ownScope = /^write (user:\S+) for /.exec((await writeBox.getAttribute("aria-label")) ?? "")![1]!;
  const readBox = matrix.getByRole("checkbox", { name: `read ${ownScope} for ${member.email}`, exact: true });
  await expect(readBox).toBeChecked();

  // Before: the member's key writes that scope.
  const agent = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${secret}` },
  });
  const before = await agentWrite(agent, ownScope, "before_grant_change");
  expect(before.status, JSON.stringify(before.body)).toBe(200);
  expect(before.body.result?.data).toMatchObject({ done: true, results: [{ status: "created", scope: ownScope }] });
  const writtenId = before.body.result!.data.results[0]!.nodeId!;

  // The admin unticks W (the box follows the server: it clears once the grant is saved): read-only now.
  await writeBox.click();
  await expect(
    page.getByRole("status").filter({ hasText: `Saved: ${member.email} on ${ownScope}: read only.` }),
  ).toBeVisible({ timeout: 15_000 });
  await expect(writeBox).not.toBeChecked();
  await expect(writeBox).toBeEnabled();
  await expect(readBox).toBeChecked();
  await shot(page, "grants-write-removed");

  // After: the same key, the same scope, the next request is refused and nothing is written.
  const after = await agentWrite(agent, ownScope, "after_grant_change");
  expect(after.status, JSON.stringify(after.body)).toBe(403);
  expect(after.body.error?.data).toMatchObject({
    code: "FORBIDDEN",
    reason: "scope_not_writable",
    details: { scopes: [ownScope] },
  });
  const lookup = await agent.post("/api/trpc/tools.memory_get", {
    data: { kind: "custom_fact", itemKey: "after_grant_change" },
  });
  expect(((await lookup.json()) as TrpcBody<{ found: boolean }>).result?.data.found).toBe(false);
  // Reading is untouched: the card written before is still there for the key.
  const reread = await agent.post("/api/trpc/tools.memory_get", { data: { id: writtenId } });
  expect(((await reread.json()) as TrpcBody<{ found: boolean }>).result?.data.found).toBe(true);

  // The refusal is in the audit log, attributed to the key.
  await page.goto("/audit?event=rejected");
  const refusal = page
    .getByRole("table", { name: "Audit log" })
    .getByRole("row")
    .filter({ hasText: "scope_not_writable" });
  await expect(refusal.filter({ hasText: "wanda agent" }).first()).toBeVisible();
  await shot(page, "audit-write-refused");
  await agent.dispose();
});

/** The active cards of a scope in the memory browser, by title. */
async function cardsIn(page: Page, scope: string, status?: "deleted") {
  await page.goto(`/memories?scope=${encodeURIComponent(scope)}${status ? `&status=${status}` : ""}`);
  await expect(page.getByRole("heading", { level: 1, name: "Memories", exact: true })).toBeVisible();
  const table = page.getByRole("table", { name: "Memory cards" });
  if ((await table.count()) === 0) return [];
  return (await table.getByRole("link").allTextContents()).sort();
}

/** Picks a file through the import panel's file chooser and runs it, dry or for real; returns the report list. */
async function runImport(page: Page, file: string, dryRun: boolean) {
  await page.goto("/memories/transfer");
  const panel = page.getByRole("region", { name: "Import" });
  const chooser = page.waitForEvent("filechooser");
  await panel.getByLabel("JSONL file").click();
  await (await chooser).setFiles(file);
  const dry = panel.getByRole("checkbox", { name: /^Dry run/ });
  await expect(dry).toBeChecked();
  if (!dryRun) await dry.uncheck();
  await panel.getByRole("button", { name: dryRun ? "Run dry run" : "Import", exact: true }).click();
  // Three writes (each in its own transaction) under a shared CI machine's load: allow them time.
  await expect(panel.getByText(/^3 of 3 lines/)).toBeVisible({ timeout: 30_000 });
  return panel.getByRole("list", { name: dryRun ? "Dry-run report: what an import would do" : "Import report" });
}

test("export a scope as JSONL, dry-run its re-import, then import for real", async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await signIn(page);
  // Scopes are picked from lists: the workspace exists before cards go in it.
  const scope = await createWorkspace(page, { name: "Transfer test", id: `transfer-${Date.now()}` });
  const titles = ["Team wifi", "Office plant", "Standup time"];
  const urls: string[] = [];
  for (const [i, title] of titles.entries()) {
    urls.push(
      await createCard(page, {
        kind: "custom_fact",
        scope,
        item: `fact_${i}`,
        title,
        content: `${title}: an exported fact.`,
        value: `value ${i}`,
      }),
    );
  }
  expect(await cardsIn(page, scope)).toEqual([...titles].sort());

  // Export: pick the scope, download through the link.
  await page.goto("/memories/transfer");
  const exportPanel = page.getByRole("region", { name: "Export" });
  await exportPanel.getByRole("combobox", { name: "Scope" }).selectOption(scope);
  const downloading = page.waitForEvent("download");
  await exportPanel.getByRole("link", { name: "Download JSONL" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^memories-\d{4}-\d{2}-\d{2}\.jsonl$/);
  const file = testInfo.outputPath("export.jsonl");
  await download.saveAs(file);
  const lines = (await readFile(file, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { format: string; scope: string; title: string });
  expect(lines).toHaveLength(3);
  expect(lines.every((card) => card.format === "memory-card/v1" && card.scope === scope)).toBe(true);
  expect(lines.map((card) => card.title).sort()).toEqual([...titles].sort());
  await shot(page, "transfer-export");

  // Re-importing the same cards: a dry run reports noop for every line.
  let report = await runImport(page, file, true);
  await expect(report.getByText("noop: 3", { exact: true })).toBeVisible();
  await expect(report.getByText("created: 0", { exact: true })).toBeVisible();
  await expect(report.getByText("conflict: 0", { exact: true })).toBeVisible();
  await expect(page.getByText("dry run: nothing was written")).toBeVisible();
  await shot(page, "transfer-dry-run-noop");

  // Change the scope in the UI: forget one card, edit another.
  await page.goto(urls[0]!);
  await forgetCard(page, "to see the import bring it back");
  await page.goto(urls[1]!);
  await editContent(page, "Office plant: watered on Mondays now.");
  await expect(
    page.getByRole("list", { name: "Revision chain" }).getByText("Revision 2", { exact: true }),
  ).toBeVisible();
  expect(await cardsIn(page, scope)).toEqual(["Office plant", "Standup time"]);

  // Dry run: the forgotten card would be created, the edited one is a conflict, the third a noop...
  report = await runImport(page, file, true);
  for (const count of ["created: 1", "noop: 1", "conflict: 1"])
    await expect(report.getByText(count, { exact: true })).toBeVisible();
  await expect(
    page.getByRole("table", { name: "Lines that need attention" }).getByText(/already holds a different card/),
  ).toBeVisible();
  await shot(page, "transfer-dry-run-report");
  // ...and nothing was written: still two active cards, the forgotten one still deleted, the edit kept.
  expect(await cardsIn(page, scope)).toEqual(["Office plant", "Standup time"]);
  expect(await cardsIn(page, scope, "deleted")).toContain("Team wifi");

  // The real import does what the dry run said.
  report = await runImport(page, file, false);
  for (const count of ["created: 1", "noop: 1", "conflict: 1"])
    await expect(report.getByText(count, { exact: true })).toBeVisible();
  await expect(page.getByText("dry run: nothing was written")).toHaveCount(0);
  await shot(page, "transfer-imported");
  expect(await cardsIn(page, scope)).toEqual([...titles].sort());
  await expect(
    page.getByRole("table", { name: "Memory cards" }).getByText("Office plant: watered on Mondays now."),
  ).toBeVisible();
  await shot(page, "transfer-after-import");
});

test("an admin creates a workspace, finds it in the grants matrix, and erases a person's memory from the members page", async ({
  page,
}) => {
  const account = await signIn(page);
  const stamp = Date.now().toString(36);
  await page.goto("/admin/workspaces");
  await page.getByLabel("Name", { exact: true }).fill(`E2E project ${stamp}`);
  await page.getByLabel("Id", { exact: true }).fill(`e2e-${stamp}`);
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page.getByRole("status").filter({ hasText: `workspace:e2e-${stamp} was created` })).toBeVisible();
  const row = page
    .getByRole("table", { name: "Workspaces" })
    .getByRole("row")
    .filter({ hasText: `workspace:e2e-${stamp}` });
  await row.getByRole("link", { name: "Manage access" }).click();
  await page.waitForURL(/\/admin\/grants\?scope=workspace/);
  await expect(
    page.getByRole("table", { name: "Grant matrix" }).getByRole("columnheader", { name: `workspace:e2e-${stamp}` }),
  ).toBeVisible();

  // The admin's own profile: one card, then erased from the members page (typed confirmation, receipt).
  const title = `Erase with the person ${stamp}`;
  await createCard(page, {
    kind: "custom_fact",
    item: `e2e-person-${stamp}`,
    title,
    content: "A fact to erase with the person.",
    value: stamp,
  });
  await page.goto("/admin/members");
  const me = page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: account.email });
  await me.getByRole("button", { name: "Erase memory" }).click();
  const dialog = page.getByRole("dialog", { name: /^Erase all memory of user:/ });
  await dialog.getByLabel("Reason").fill("e2e: the person asked to be forgotten");
  await expect(dialog.getByRole("button", { name: "Erase memory" })).toBeDisabled();
  await dialog.getByLabel(`Type ${account.email} to confirm`).fill(account.email);
  await dialog.getByRole("button", { name: "Erase memory" }).click();
  const receipt = page.getByRole("dialog", { name: "Erasure receipt" });
  await expect(receipt).toBeVisible();
  await shot(page, "person-erased");
  await page.goto(`/memories?status=active&status=superseded&status=expired&status=deleted`);
  await expect(page.getByRole("link", { name: title })).toHaveCount(0);
});
