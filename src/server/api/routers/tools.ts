import { createTRPCRouter } from "../trpc";

export const toolsRouter = createTRPCRouter({});
