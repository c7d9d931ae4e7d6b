/**
 * What the routes that hand out a session (signup, login, OAuth, the second-factor step, passkey
 * sign-in) share: the device facts a session is recorded with, and the front half of the steps
 * that finish a sign-in started elsewhere. Each route keeps its own checks and answers.
 */
import type { H3Event } from 'h3'
import type { RouteContract } from '../contract/define'
import { useIam, type IamContext } from '../context'
import type { Visitor } from '../db/schema'
import { isCanaryId, visitDevice, type Visit, type VisitFacts } from '../features/devices/devices-service'
import { authFail, rejectXss, visitRequestDevice } from './auth'
import { getCanaryCookie } from './cookies'
import { actorOf } from './link-submission'
import { enforceRateLimit } from './rate-limit'
import { getClientIp, getJsonBody } from './request'
import { readRouteInput, type RouteInput } from './route-input'

export interface SignInDevice {
  visitor: Visitor
  ipAddress: string
  /** a plain copy: the session stores it as JSON */
  fingerprint: Record<string, unknown> | null
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
  if (!isCanaryId(canaryId)) return authFail(400, 'The canary_id cookie is required')
  return (await visitRequestDevice(event, canaryId, visit)).visited!
}

/** The device, network and a copy of the request's fingerprint, as the session records them. */
export function signInDevice(event: H3Event, visitor: Visitor): SignInDevice {
  const { ipAddress, fingerprint } = actorOf(event, visitor.id)
  return { visitor, ipAddress, fingerprint }
}

export interface SignInStep<T> {
  ctx: IamContext
  device: SignInDevice
  body: T
}

/**
 * The second-factor step and passkey sign-in: the device gate, XSS, the body read with the route
 * table entry's schema (its 400), then the login's per-IP budget, in that order.
 */
export async function readSignInStep<R extends RouteContract>(event: H3Event, route: R): Promise<SignInStep<RouteInput<R, 'body'>>> {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const visitor = await requireSignInDevice(event)
  await rejectXss(event, getJsonBody(event))
  const body = readRouteInput(event, route, 'body')
  await enforceRateLimit(ctx, 'loginIp', { ip: ipAddress })
  return { ctx, device: signInDevice(event, visitor), body }
}
