import { createTRPCRouter } from "../trpc";

export const memoryRouter = createTRPCRouter({});
