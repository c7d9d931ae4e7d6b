/**
 * The answers of the organization routes' shared failures (features/organizations/actor.ts): an
 * organization the user is no member of answers exactly as one that does not exist.
 */
import { authFail } from './auth'

export const NO_SUCH_ORGANIZATION = 'No such organization'

export const ORG_FAILURES = {
  not_found: () => authFail(404, 'org_not_found', NO_SUCH_ORGANIZATION),
  forbidden: () => authFail(403, 'org_permission_denied', 'Your role in this organization does not allow this'),
} as const
