import { accountRouter } from "./routers/account";
import { adminRouter } from "./routers/admin";
import { memoryRouter } from "./routers/memory";
import { toolsRouter } from "./routers/tools";
import { treeRouter } from "./routers/tree";
import { keysRouter } from "./routers/keys";
import { grantsRouter } from "./routers/grants";
import { healthRouter } from "./routers/health";
import { meRouter } from "./routers/me";
import { organizationRouter } from "./routers/organization";
import { createCallerFactory, createTRPCRouter } from "./trpc";
import { registerTreeSubscribers } from "~/server/tree";

// Whatever process serves this router has the memory tree listening to the core (messages → chunks).
registerTreeSubscribers();

export const appRouter = createTRPCRouter({
  account: accountRouter,
  admin: adminRouter,
  memory: memoryRouter,
  tools: toolsRouter,
  tree: treeRouter,
  keys: keysRouter,
  grants: grantsRouter,
  health: healthRouter,
  me: meRouter,
  organization: organizationRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
