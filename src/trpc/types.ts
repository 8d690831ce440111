import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "~/server/api/root";

/** What each procedure returns / accepts, for typing props passed from server pages to client components. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type KindOption = RouterOutputs["memory"]["kinds"][number];
export type CardDetailData = RouterOutputs["memory"]["card"];
