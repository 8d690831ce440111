import type { inferProcedureOutput } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type * as Client from "../../packages/client/src/types";
import { TOOL_NAMES as CLIENT_TOOL_NAMES } from "../../packages/client/src/types";
import type { toolsRouter } from "~/server/api/routers/tools";
import type { memoryForgetInputSchema } from "~/server/memory/forget/schema";
import type { memoryContextInputSchema } from "~/server/memory/retrieval/context-schema";
import type { memorySearchInputSchema } from "~/server/memory/retrieval/search-schema";
import type { memoryWriteInputSchema } from "~/server/memory/write/schema";
import { TOOL_NAMES, type ToolResults } from "~/server/tools/registry";
import type { memoryGetInputSchema, messageAppendInputSchema, turnSchema } from "~/server/tools/schemas";

/**
 * The client package (packages/client) writes the endpoint's types out by hand, so that nothing of
 * the server is needed to use it. These assertions make `npm run typecheck` fail when they drift
 * from the zod schemas' input types or the registry's result types: a field added, removed, made
 * required or given another type on either side.
 */

/** Objects flattened (intersections, mapped types) so that only the shape is compared. */
type Shape<T> = T extends readonly (infer U)[]
  ? Shape<U>[]
  : T extends Record<string, unknown>
    ? { [K in keyof T]: Shape<T[K]> }
    : T;
/** Exactly the same type: optional, readonly and `unknown` included. */
type Equal<A, B> = (<T>() => T extends Shape<A> ? 1 : 2) extends <T>() => T extends Shape<B> ? 1 : 2 ? true : false;
const same = <A, B>(check: Equal<A, B>) => check;

// Inputs: what the server's zod schemas accept.
same<Client.TurnInput, z.input<typeof turnSchema>>(true);
same<Client.MemorySearchInput, z.input<typeof memorySearchInputSchema>>(true);
same<Client.MemoryGetInput, z.input<typeof memoryGetInputSchema>>(true);
same<Client.MemoryWriteInput, z.input<typeof memoryWriteInputSchema>>(true);
same<Client.MemoryForgetInput, z.input<typeof memoryForgetInputSchema>>(true);
same<Client.MemoryContextInput, z.input<typeof memoryContextInputSchema>>(true);
same<Client.MessageAppendInput, z.input<typeof messageAppendInputSchema>>(true);

// Answers: what the registry returns, as JSON.
same<Client.ToolResults["memory_search"], ToolResults["memory_search"]>(true);
same<Client.ToolResults["memory_get"], ToolResults["memory_get"]>(true);
same<Client.ToolResults["memory_write"], ToolResults["memory_write"]>(true);
same<Client.ToolResults["memory_forget"], ToolResults["memory_forget"]>(true);
same<Client.ToolResults["memory_context"], ToolResults["memory_context"]>(true);
same<Client.ToolResults["message_append"], ToolResults["message_append"]>(true);
same<Client.ToolList, inferProcedureOutput<(typeof toolsRouter)["list"]>>(true);
same<Client.ToolName, (typeof TOOL_NAMES)[number]>(true);

// The check itself tells types apart (a test that cannot fail proves nothing).
same<{ a?: string }, { a?: string; b?: number }>(false);
same<{ a: string }, { a?: string }>(false);
same<{ a: unknown }, { a: string }>(false);
same<{ a: string[] }, { a: (string | number)[] }>(false);
same<{ a: "x" | "y" }, { a: "x" }>(false);

describe("client types", () => {
  it("name the same tools, in the same order, as the server's registry", () => {
    expect([...CLIENT_TOOL_NAMES]).toEqual([...TOOL_NAMES]);
  });
});
