/**
 * What the routes that take a magic link share: the actor recorded with a completed action, and
 * the answer to a link query its schema refuses (iam/contract/inputs.ts linkQuery).
 */
import { getRequestHeader, type H3Event } from 'h3'
import { negotiateLocale, type Locale } from '../contract/locales'
import { readTimeZone, TIME_ZONE_HEADER } from '../contract/time-zones'
import type { Actor } from '../features/security-events/repository'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail } from './auth'
import { getClientIp } from './request'

/** The request's device and network as recorded with a completed action. */
export function actorOf(event: H3Event, visitorRowId: number | null): Actor {
  const { fingerPrint } = event.context
  return { visitorRowId, ipAddress: getClientIp(event), fingerprint: fingerPrint ? { ...fingerPrint } : null, locale: requestLocale(event), timeZone: requestTimeZone(event) }
}

/** The language the request asks for (RFC 9110 section 12.5.4); the gateway forwards the person's (server/utils/bff/iam-call.ts). */
export const requestLocale = (event: H3Event): Locale => negotiateLocale(getRequestHeader(event, 'accept-language'))

/**
 * The IANA time zone the request names (the gateway forwards the browser's, server/utils/bff/iam-call.ts),
 * or null when it names none the runtime knows: an unknown or malformed one is ignored, never refused.
 */
export const requestTimeZone = (event: H3Event): string | null => readTimeZone(getRequestHeader(event, TIME_ZONE_HEADER))

/** A link query its schema refuses is the same 400 as a bad link. */
export const invalidLink = (): never => authFail(400, 'link_invalid', LINK_ERRORS.invalid)
