import { accountRouter } from "./routers/account";
import { healthRouter } from "./routers/health";
import { meRouter } from "./routers/me";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  account: accountRouter,
  health: healthRouter,
  me: meRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
