import type { Metadata } from "next";
import { I18nProvider } from "~/i18n/client";
import { htmlLang } from "~/i18n/config";
import { getI18n } from "~/i18n/server";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getI18n();
  return { title: { default: t("app.name"), template: `%s · ${t("app.name")}` }, description: t("app.description") };
}

/** Every page, the sign-in pages included, speaks the request's language (cookie, else Accept-Language). */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const { locale, timeZone } = await getI18n();
  return (
    <html lang={htmlLang(locale)}>
      <body className="min-h-screen bg-zinc-50 font-sans text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <I18nProvider locale={locale} timeZone={timeZone}>
          {children}
        </I18nProvider>
      </body>
    </html>
  );
}
