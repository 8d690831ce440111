import type { ScopeChoices } from "~/server/dashboard/scope-choices";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";

/** Every choice of a picker, in the order the picker groups them: people, workspaces, sessions, the organisation. */
export const scopeChoiceList = (choices: ScopeChoices): ScopeLabel[] => [
  ...choices.people,
  ...choices.workspaces,
  ...choices.sessions,
  ...(choices.global ? [choices.global] : []),
];
