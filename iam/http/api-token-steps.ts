/**
 * The steps the API token management routes share (docs/configuration.md, apiTokensLimiters): the
 * general union limiter keyed by the client IP (listing: `<IP>_list-metadata`), the operation
 * limiters keyed `<IP>_<userId>`, and the caller the actions record.
 */
import type { ManageCaller } from '../features/api-tokens/manage-actions'
import type { RequestUser } from './auth'
import { limit } from './route'

export const unionByIp = limit('generalUnionLimiter', ({ ip }) => ({ ip }))
export const unionForListing = limit('generalUnionLimiter', ({ ip }) => ({ ip, on: 'list-metadata' }))

/** An operation limiter's key facts: the client IP and the signed-in user (full authentication ran first). */
export const byUser = ({ ip, user }: SignedIn): { ip: string; userId: number } => ({ ip, userId: user!.userId })

export const caller = ({ ip, user }: SignedIn): ManageCaller => ({ userId: user!.userId, ip, visitorRowId: user!.visitorRowId })

/** A management route's request: full authentication ran first (its entry's auth is 'full'). */
type SignedIn = { ip: string; user?: RequestUser | undefined }
