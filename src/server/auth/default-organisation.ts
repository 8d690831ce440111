/** The name the install's first organisation is created with; the dashboard shows it in the viewer's language. */
export const DEFAULT_ORGANISATION_NAME = "Default organisation";
