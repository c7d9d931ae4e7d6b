/**
 * What the organization BFF routes (server/api/orgs/**) share: the refusal of a malformed
 * organization id, and the active organization read from the `org` claim of an access token the IAM
 * verified (its metadata route's `payload`) or issued (POST /orgs/active's answer).
 */

/** The 400 of a path whose organization id the IAM's params schema would refuse. */
export const ORG_ID_ERROR = 'Not an organization id'

/** The 400 of an organization webhook path whose organization, endpoint or delivery id the IAM's params schema would refuse. */
export const ORG_WEBHOOK_ID_ERROR = 'Not an organization id, or not a webhook endpoint or delivery id'

/** The organization a session acts for, as the pages see it. */
export interface ActiveOrg {
  id: string
  slug: string
  role: string
}

/** `{ id, slug, role }` of the `org` claim in `{ payload: { org } }`, or null when there is none (or it is malformed). */
export function activeOrgOf(body: unknown): ActiveOrg | null {
  const payload = body && typeof body === 'object' ? (body as { payload?: unknown }).payload : undefined
  const org = payload && typeof payload === 'object' ? (payload as { org?: unknown }).org : undefined
  if (!org || typeof org !== 'object') return null
  const { id, slug, role } = org as Record<string, unknown>
  return typeof id === 'string' && typeof slug === 'string' && typeof role === 'string' ? { id, slug, role } : null
}
