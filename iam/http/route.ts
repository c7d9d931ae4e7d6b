/**
 * One route, one unit: a route's table entry (iam/contract/) is what runs. `defineRoute(entry,
 * steps, handler)` performs the authentication the entry names (full authentication, then the
 * entry's guards), runs the route's steps in their declared order (limiters, device checks, input
 * parsing), parses whatever input the entry declares that no step parsed, and only then calls the
 * handler, which holds the call to the feature and the mapping of its outcome.
 *
 * The steps are checked against the entry when the module loads, so a route cannot quietly skip
 * what its entry promises: every limiter the entry lists has exactly one step that consumes it
 * (`limit`) or hands it to the feature that counts it on its outcome (`counted`); no step names a
 * limiter the entry does not list; a part of the input is parsed only when the entry has a schema
 * for it, and at most once. A mismatch throws at boot (every test of the build fails with it).
 *
 * The order of the steps is the route's order of checks, kept per route where the route's
 * contract entry (contract/) or the design fixes it (a limiter before the link query, the device before the markup check, ...).
 * docs/architecture.md describes the request path around it.
 */
import { defineEventHandler, type EventHandler, type H3Event } from 'h3'
import type { z } from 'zod'
import { refusedWhileImpersonating, type AuthRule, type RouteContract } from '../contract/define'
import type { LimiterName } from '../contract/limiter-names'
import { useIam, type IamContext } from '../context'
import type { Visitor } from '../db/schema'
import type { Visit, VisitFacts } from '../features/devices/devices-service'
import type { Actor } from '../features/security-events/repository'
import type { CountLimiterName, KeyFacts } from '../features/rate-limits/registry'
import { fullAuthentication, getFingerPrint, rejectXss, requireAccessToken, requireRefreshToken, type RequestUser } from './auth'
import { actorOf } from './link-submission'
import { enforceRateLimit } from './rate-limit'
import { requireNotImpersonated, requirePlatformAdmin, requireRecentSignIn, requireVerifiedEmail } from './reauthenticate'
import { getClientIp, getJsonBody } from './request'
import { readRouteInput, type InputPart, type InvalidInput } from './route-input'
import { requireSignInDevice, signInDeviceVisit } from './sign-in'

/** What a signed-in route's handler gets beyond the anonymous one's. */
type UserOf<R extends RouteContract> = R['auth'] extends 'full' ? RequestUser : 'full' extends R['auth'] ? RequestUser | undefined : undefined

/** A part of the input as the entry's schema parses it; unknown where the entry type does not say (a step's view). */
type InputOf<R extends RouteContract, P extends InputPart> = R[P] extends z.ZodType ? z.infer<R[P]> : z.ZodType extends R[P] ? unknown : never

/** The request as the handler and the steps see it. */
export interface RouteRequest<R extends RouteContract = RouteContract> {
  readonly event: H3Event
  readonly ctx: IamContext
  /** the client IP (middleware 10) */
  readonly ip: string
  /** req.user of full authentication; undefined on the other routes */
  readonly user: UserOf<R>
  /** the device and network recorded with an action: the session's device, else the request's (device steps) */
  readonly actor: Actor
  /** the device of a sign-in route (`signInGate` step) */
  visitor?: Visitor
  /** what a `signInGateWith` step's visit answered beyond the device (login's prefetched account) */
  visited?: Visit
  params: InputOf<R, 'params'>
  query: InputOf<R, 'query'>
  body: InputOf<R, 'body'>
}

/** How a step reads the request: any route's. */
type AnyRequest = RouteRequest<RouteContract>

export type RouteStep =
  | { kind: 'limit'; limiter: CountLimiterName; run: (req: AnyRequest) => Promise<void> }
  | { kind: 'counted'; limiter: LimiterName }
  | { kind: 'parse'; part: InputPart; run: (req: AnyRequest, route: RouteContract) => Promise<void> | void }
  | { kind: 'check'; run: (req: AnyRequest) => Promise<void> | void }

/**
 * Consumes one point of the registry's limiter `name` for the key made of `facts(req)`; 429 when
 * refused (http/rate-limit.ts).
 */
export function limit<N extends CountLimiterName>(
  name: N,
  facts: (req: AnyRequest) => KeyFacts<N>,
  options: { unless?: (req: AnyRequest) => Promise<boolean> } = {},
): RouteStep {
  const { unless } = options
  return {
    kind: 'limit',
    limiter: name,
    run: async (req) => {
      if (unless && (await unless(req))) return
      await enforceRateLimit(req.ctx, name, facts(req))
    },
  }
}

/**
 * A limiter the feature consumes itself, because it counts an outcome (a wrong password, a failed
 * verification) or batches its steps with others in one store call (features/users/login-delay.ts).
 */
export function counted(name: LimiterName): RouteStep {
  return { kind: 'counted', limiter: name }
}

/** Parses the route's path parameters; `invalid` answers a refusal (default: the route's 400). */
export function params(invalid?: InvalidInput): RouteStep {
  return { kind: 'parse', part: 'params', run: (req, route) => void (req.params = readRouteInput(req.event, route, 'params', invalid)) }
}

/** Parses the route's query; `invalid` answers a refusal (default: the route's 400). */
export function query(invalid?: InvalidInput): RouteStep {
  return { kind: 'parse', part: 'query', run: (req, route) => void (req.query = readRouteInput(req.event, route, 'query', invalid)) }
}

const withoutSecrets = (raw: Record<string, unknown>, secret: readonly string[]) =>
  secret.length === 0 ? raw : Object.fromEntries(Object.entries(raw).filter(([key]) => !secret.includes(key)))

/**
 * A part of the input the feature reads itself, because a limiter or an answer of its own comes
 * before any validation (GET /api/public/verify: the privilege is judged by the
 * controller, features/api-tokens/public-verify.ts). The entry's schema then only documents it.
 */
export function readByFeature(part: InputPart): RouteStep {
  return { kind: 'parse', part, run: () => undefined }
}

export interface BodyOptions {
  /** Fields left out of the markup check: secrets are never rendered, and a password may hold any characters. */
  secret?: readonly string[]
  /** false: no field is free text (ids, codes, passwords), the schema alone decides */
  markupCheck?: boolean
}

/**
 * The JSON body: markup in free text bans the device (403, http/auth.ts rejectXss), then the
 * entry's schema (its 400).
 */
export function body(options: BodyOptions = {}): RouteStep {
  return {
    kind: 'parse',
    part: 'body',
    run: async (req, route) => {
      if (options.markupCheck !== false) {
        await rejectXss(req.event, withoutSecrets(getJsonBody<Record<string, unknown>>(req.event) ?? {}, options.secret ?? []))
      }
      req.body = readRouteInput(req.event, route, 'body')
    },
  }
}

/**
 * The markup check alone, for a route that takes it apart from the schema (a limiter in between);
 * the body step then goes without it (`body({ markupCheck: false })`).
 */
export function markup(secret: readonly string[] = []): RouteStep {
  return check((req) => rejectXss(req.event, withoutSecrets(getJsonBody<Record<string, unknown>>(req.event) ?? {}, secret)))
}

/** A check of the route's own, in its place among the steps (it ends the request by throwing). */
export function check(run: (req: AnyRequest) => Promise<void> | void): RouteStep {
  return { kind: 'check', run }
}

/** req.fingerPrint and the device of the canary cookie, when there is one (a banned device: 403). */
export const device: RouteStep = check(async (req) => void (await getFingerPrint(req.event)))

/** The device gate of the routes that hand out a session (http/sign-in.ts): the canary cookie is required. */
export const signInGate: RouteStep = check(async (req) => {
  req.visitor = await requireSignInDevice(req.event)
})

/** signInGate with its device step given (login reads the account in the same statement: features/users/login-device.ts). */
export function signInGateWith(visit: (ctx: IamContext, facts: VisitFacts, req: AnyRequest) => Promise<Visit>): RouteStep {
  return check(async (req) => {
    const visited = await signInDeviceVisit(req.event, (ctx, facts) => visit(ctx, facts, req))
    req.visitor = visited.visitor
    req.visited = visited
  })
}

/** Why a unit does not match its entry; thrown when the route module loads. */
function mismatch(route: RouteContract, steps: readonly RouteStep[]): string | undefined {
  const where = `${route.method} ${route.path}`
  const declared = new Set<string>(route.limiters)
  const stepped = steps.flatMap((step) => (step.kind === 'limit' || step.kind === 'counted' ? [step.limiter as string] : []))
  for (const name of stepped) if (!declared.has(name)) return `${where}: a step uses the limiter ${name}, which its table entry does not list`
  for (const name of declared) {
    const uses = stepped.filter((used) => used === name).length
    if (uses !== 1) return `${where}: its table entry lists the limiter ${name}, which ${uses === 0 ? 'no step consumes (limit) or hands to the feature (counted)' : 'several steps consume'}`
  }
  const parsed = steps.flatMap((step) => (step.kind === 'parse' ? [step.part] : []))
  for (const part of parsed) {
    if (!route[part]) return `${where}: a step parses its ${part}, for which its table entry has no schema`
    if (parsed.filter((p) => p === part).length > 1) return `${where}: its ${part} is parsed twice`
  }
  return undefined
}

/** The parts the entry declares that no step parses: parsed after the steps, in this order. */
const IMPLICIT: ReadonlyArray<[InputPart, () => RouteStep]> = [
  ['params', () => params()],
  ['query', () => query()],
  ['body', () => body()],
]

/**
 * The request a unit hands its steps and handler. A class, not an object literal with a getter:
 * a literal with an accessor gets a fresh map on every request, which cost `/health` a measurable
 * share of its CPU in garbage collection (docs/performance.md).
 */
class UnitRequest {
  readonly ctx = useIam()
  readonly ip: string
  visitor?: Visitor
  visited?: Visit
  params: unknown = undefined
  query: unknown = undefined
  body: unknown = undefined
  constructor(
    readonly event: H3Event,
    readonly user: RequestUser | undefined,
  ) {
    this.ip = getClientIp(event)
  }

  get actor(): Actor {
    return actorOf(this.event, this.user?.visitorRowId ?? this.event.context.visitor?.id ?? null)
  }
}

/**
 * Full authentication, then the entry's guards in their order. An impersonated session is refused
 * first, in this one place, on every route the table marks (contract/define.ts
 * refusedWhileImpersonating): asked for a re-authentication instead, the administrator would be
 * sent to prove a password that is not theirs.
 */
async function fullAuthenticationWithGuards(event: H3Event, route: RouteContract, refuseImpersonated: boolean): Promise<RequestUser> {
  const user = await fullAuthentication(event)
  if (refuseImpersonated) requireNotImpersonated(event)
  const guards = route.guards ?? []
  // an administrator's proof must be fresh within the admin window, whatever the account routes allow
  const recentWithinMs = guards.includes('platform-admin') ? useIam().config.security.adminReauthenticateWithinMs : undefined
  for (const guard of guards) {
    if (guard === 'verified-email') requireVerifiedEmail(event)
    else if (guard === 'platform-admin') requirePlatformAdmin(event)
    else if (guard === 'recent-sign-in') requireRecentSignIn(event, recentWithinMs)
  }
  return user
}

/**
 * The credentials' presence for the routes whose own chain verifies them (POST /auth/logout, the
 * refresh); middleware 30 already checked it before the body rule, so this only keeps the unit whole.
 */
function requirePresence(event: H3Event, auth: AuthRule): void {
  if (auth === 'bearer+session') requireAccessToken(event)
  if (auth !== 'none') requireRefreshToken(event)
}

/** A route's handler, with its table entry attached (tests/unit/route-unit.test.ts reads it). */
export type RouteHandler<R extends RouteContract> = EventHandler & { readonly route: R }

/**
 * The route's event handler: authentication, steps, the remaining input, then `handler`. Throws at
 * load when `steps` do not match the entry (see the top of this file).
 */
export function defineRoute<const R extends RouteContract>(
  route: R,
  steps: readonly RouteStep[],
  handler: (req: RouteRequest<R>) => unknown,
): RouteHandler<R> {
  const problem = mismatch(route, steps)
  if (problem) throw new Error(`route unit does not match its table entry: ${problem}`)
  const parsedBySteps = new Set(steps.flatMap((step) => (step.kind === 'parse' ? [step.part] : [])))
  const all = [...steps, ...IMPLICIT.filter(([part]) => route[part] && !parsedBySteps.has(part)).map(([, make]) => make())]
  const active = all.filter((step) => step.kind !== 'counted')
  const refuseImpersonated = refusedWhileImpersonating(route)
  const requestOf = (event: H3Event, user: RequestUser | undefined) => new UnitRequest(event, user) as unknown as RouteRequest<R>
  const runSteps = async (req: RouteRequest<R>) => {
    for (const step of active) {
      if (step.kind === 'parse') await step.run(req as unknown as AnyRequest, route)
      else if (step.kind === 'limit' || step.kind === 'check') await step.run(req as unknown as AnyRequest)
    }
    return handler(req)
  }
  // Full authentication reads the database; the other routes' presence checks do not, and a route
  // without steps (GET /health, GET /check's cheap cases) answers without an extra promise.
  const run =
    route.auth === 'full'
      ? async (event: H3Event) => runSteps(requestOf(event, await fullAuthenticationWithGuards(event, route, refuseImpersonated)))
      : (event: H3Event) => {
          requirePresence(event, route.auth)
          const req = requestOf(event, undefined)
          return active.length === 0 ? handler(req) : runSteps(req)
        }
  return Object.assign(defineEventHandler(run), { route })
}

/**
 * A feature's failure codes with the answer of each (status and body, through authFail / httpFail):
 * exhaustive, so a code the feature adds and the route does not answer fails the typecheck.
 */
export type FailureTable<F extends { code: string }> = { readonly [C in F['code']]: (failure: F & { code: C }) => never }

/** Ends the request with the table's answer for `failure`. */
export function answerFailure<F extends { code: string }>(table: FailureTable<F>, failure: F): never {
  const answer = table[failure.code as F['code']] as (failure: F) => never
  return answer(failure)
}
