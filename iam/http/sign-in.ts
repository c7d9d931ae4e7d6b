/**
 * What the routes that hand out a session (signup, login, OAuth, the second-factor step, passkey
 * sign-in) share: the device gate and the device facts a session is recorded with. Each route's
 * unit (iam/http/route.ts) orders its checks.
 */
import type { H3Event } from 'h3'
import type { IamContext } from '../context'
import type { Visitor } from '../db/schema'
import { isCanaryId, visitDevice, type Visit, type VisitFacts } from '../features/devices/devices-service'
import { authFail, visitRequestDevice } from './auth'
import { getCanaryCookie } from './cookies'
import { actorOf } from './link-submission'

export interface SignInDevice {
  visitor: Visitor
  ipAddress: string
  /** a plain copy: the session stores it as JSON */
  fingerprint: Record<string, unknown> | null
  /** the browser's IANA time zone when it named a known one: kept on the account for its mails */
  timeZone: string | null
}

/**
 * The device gate of the routes that hand out a session: the
 * canary_id cookie is required (400), the device is recorded and a banned one refused (403), and
 * req.fingerPrint and the device are kept on the event. The device row is written only when due
 * (devices-service.ts visitDevice): a steady sign-in from a known device reads it instead.
 */
export async function requireSignInDevice(event: H3Event): Promise<Visitor> {
  return (await signInDeviceVisit(event, visitDevice)).visitor
}

/** requireSignInDevice with its device step given (login reads the account in the same statement). */
export async function signInDeviceVisit<V extends Visit>(event: H3Event, visit: (ctx: IamContext, facts: VisitFacts) => Promise<V>): Promise<V> {
  const canaryId = getCanaryCookie(event)
  if (!isCanaryId(canaryId)) return authFail(400, 'device_cookie_missing', 'The canary_id cookie is required')
  return (await visitRequestDevice(event, canaryId, visit)).visited!
}

/** The device, network and a copy of the request's fingerprint, as the session records them. */
export function signInDevice(event: H3Event, visitor: Visitor): SignInDevice {
  const { ipAddress, fingerprint, timeZone } = actorOf(event, visitor.id)
  return { visitor, ipAddress, fingerprint, timeZone: timeZone ?? null }
}
