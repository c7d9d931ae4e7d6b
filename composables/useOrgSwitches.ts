/**
 * How many times the active organization was switched on this page (the header's OrgSwitcher):
 * organization pages watch it and read their data again, since what they show may depend on it.
 */
export const useOrgSwitches = () => useState<number>('org-switches', () => 0)
