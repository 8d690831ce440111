// Captured search statements are replayed as the service ran them: a transaction-local setting
// (`set local …`, `select set_config(…, true)`) together with the statement after it, in one transaction.
export const isLocalSetting = (text: string) => /^(set local |select set_config\()/i.test(text.trim());
