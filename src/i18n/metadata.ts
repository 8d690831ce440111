import type { Metadata } from "next";
import { getI18n } from "./server";
import type { MessageKey } from "./translate";

/** A page's `generateMetadata`: its tab title in the request's language (the root layout adds the product name). */
export const pageTitle = (key: MessageKey) => async (): Promise<Metadata> => ({ title: (await getI18n()).t(key) });
