/**
 * The magic-link engine: issue (link + optional code), check (token, random, visitor, state),
 * preview (counted), attempt (counted code check) and consume (one winner, inside the caller's
 * transaction so the action and the consumption commit or roll back together).
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'
import { codeMatches, generateCode, macCode } from './codes'
import {
  buildLinkUrl,
  createRandom,
  digestsEqual,
  hashRandom,
  paramsMatchClaims,
  signLinkToken,
  verifyLinkToken,
  type LinkParams,
} from './link-token'
import * as repo from './repository'
import type { LinkWithCode } from './repository'

export interface LinkDeps {
  db: Kysely<Database>
  config: Pick<IamConfig, 'magic_links' | 'codes' | 'secrets'>
  now: () => number
}

export type LinkPath = keyof IamConfig['magic_links']['paths']

const secretOf = (value: string | undefined, name: string): string => {
  // boot fills both in the dev profile and production refuses to start without them
  if (!value) throw new Error(`secrets.${name} is not configured`)
  return value
}

export interface IssuedLink {
  jti: string
  url: string
  /** the plain code, to be mailed once; null for link-only flows (password reset) */
  code: string | null
  expiresAt: Date
  codeExpiresAt: Date | null
}

interface LinkInput {
  purpose: string
  visitor: string
  userId: number
  familyId: string | null
  withCode: boolean
  expiresInMs?: number
}

/**
 * What issueLink and rehearseLink both do before writing: the token signed, the random made, the
 * code made and MACed to its link and owner. A rehearsal costs what an issue costs because it is
 * this same work (flows.ts rehearseFlow says why that matters).
 */
async function prepareLink(deps: LinkDeps, input: LinkInput) {
  const now = deps.now()
  const expiresInMs = input.expiresInMs ?? deps.config.magic_links.expiresInMs
  const { token, claims } = await signLinkToken(secretOf(deps.config.secrets.links, 'links'), {
    purpose: input.purpose,
    visitor: input.visitor,
    expiresInMs,
    now,
  })
  const random = createRandom()
  const expiresAt = new Date(now + expiresInMs)
  const code = input.withCode ? generateCode() : null
  // a code never outlives its link
  const codeExpiresAt = code ? new Date(Math.min(now + deps.config.codes.ttlMs, expiresAt.getTime())) : null
  const binding = { linkJti: claims.jti, userId: input.userId, familyId: input.familyId }
  const codeRow = code && codeExpiresAt ? { code_hmac: macCode(secretOf(deps.config.secrets.codes, 'codes'), code, binding), expires_at: codeExpiresAt } : null
  return { now, token, claims, random, expiresAt, code, codeExpiresAt, codeRow }
}

/** Creates the link row (and code row) in `trx`; the caller mails the URL and code after commit. */
export async function issueLink(
  trx: Transaction<Database>,
  deps: LinkDeps,
  input: LinkInput & { path: LinkPath; data?: Record<string, unknown> },
): Promise<IssuedLink> {
  const { now, token, claims, random, expiresAt, code, codeExpiresAt, codeRow } = await prepareLink(deps, input)
  await repo.insertLink(
    trx,
    {
      jti: claims.jti,
      purpose: input.purpose,
      subject: claims.subject,
      user_id: input.userId,
      family_id: input.familyId,
      visitor: input.visitor,
      random_hash: hashRandom(random),
      data: input.data ?? {},
      created_at: new Date(now),
      expires_at: expiresAt,
    },
    codeRow,
  )
  const url = buildLinkUrl(deps.config.magic_links.domain, deps.config.magic_links.paths[input.path], { token, random, reason: input.purpose, visitor: input.visitor })
  return { jti: claims.jti, url, code, expiresAt, codeExpiresAt }
}

/** issueLink's work for no one (user id 0): the inserts run writing no row (repository.ts insertNoLink). For flows.ts rehearseFlow. */
export async function rehearseLink(trx: Transaction<Database>, deps: LinkDeps, input: { purpose: string; visitor: string; withCode: boolean; expiresInMs?: number }): Promise<void> {
  const { claims, random, expiresAt, codeRow } = await prepareLink(deps, { ...input, userId: 0, familyId: null })
  await repo.insertNoLink(
    trx,
    { jti: claims.jti, purpose: input.purpose, subject: claims.subject, visitor: input.visitor, random_hash: hashRandom(random), expires_at: expiresAt },
    codeRow,
  )
}

export type LinkFailure = 'invalid' | 'mismatch' | 'expired' | 'used'
export type LinkCheck = { ok: true; link: LinkWithCode } | { ok: false; code: LinkFailure }

/**
 * Checks a link's URL parameters: JWT (signature, expiry), reason/visitor against the claims,
 * the expected purpose, the row (random hash compared in constant time) and its state.
 */
export async function checkLink(deps: LinkDeps, params: LinkParams, acceptPurpose: (purpose: string) => boolean): Promise<LinkCheck> {
  const now = deps.now()
  const verified = await verifyLinkToken(secretOf(deps.config.secrets.links, 'links'), params.token, now)
  if (!verified.ok) return { ok: false, code: verified.code }
  const { claims } = verified
  if (!paramsMatchClaims(params, claims) || !acceptPurpose(claims.purpose)) return { ok: false, code: 'mismatch' }
  const link = await repo.findLink(deps.db, claims.jti)
  // compare even when the row is missing, so both paths do the same work
  const sameRandom = digestsEqual(hashRandom(params.random), link?.random_hash ?? '0'.repeat(64))
  if (!link || !sameRandom || link.visitor !== params.visitor || link.purpose !== claims.purpose || link.subject !== claims.subject) {
    return { ok: false, code: 'invalid' }
  }
  if (link.consumed_at) return { ok: false, code: 'used' }
  if (link.expires_at.getTime() <= now) return { ok: false, code: 'expired' }
  return { ok: true, link }
}

/** GET: counts a preview; beyond `magic_links.previews` (or after the attempts ran out) the link stops previewing. */
export async function previewLink(deps: LinkDeps, params: LinkParams, acceptPurpose: (purpose: string) => boolean): Promise<LinkCheck | { ok: false; code: 'previews' }> {
  const check = await checkLink(deps, params, acceptPurpose)
  if (!check.ok) return check
  const { previews, attempts } = deps.config.magic_links
  const counted = await repo.countPreview(deps.db, check.link.jti, new Date(deps.now()), previews, attempts)
  return counted ? check : { ok: false, code: 'previews' }
}

export type CodeCheck = { ok: true } | { ok: false; code: 'bad_code' | 'attempts' | 'used' }

/**
 * POST: counts one attempt atomically, then compares the code in constant time. A wrong code on
 * the last permitted attempt ends the link. A right code is only consumed by `consumeLink`.
 */
export function attemptCode(deps: LinkDeps, link: LinkWithCode, code: string): Promise<CodeCheck> {
  return attemptWith(deps, link, async (now) => {
    const binding = { linkJti: link.jti, userId: link.user_id, familyId: link.family_id }
    const matches =
      !!link.code && codeMatches(secretOf(deps.config.secrets.codes, 'codes'), code, binding, link.code.code_hmac)
    const live = !!link.code && !link.code.used_at && link.code.expires_at.getTime() > now.getTime()
    return matches && live
  })
}

/**
 * One counted attempt on the link with any proof (the mailed code, or a second factor in its
 * place): the attempt is counted before `proves` runs, so every guess spends the link's budget.
 */
export async function attemptWith(deps: LinkDeps, link: LinkWithCode, proves: (now: Date) => Promise<boolean>): Promise<CodeCheck> {
  const now = new Date(deps.now())
  const max = deps.config.magic_links.attempts
  const count = await repo.countAttempt(deps.db, link.jti, now, max)
  if (count === null) {
    const fresh = await repo.findLink(deps.db, link.jti)
    return { ok: false, code: fresh?.consumed_at ? 'used' : 'attempts' }
  }
  if (await proves(now)) return { ok: true }
  if (count >= max) await repo.burnLink(deps.db, link.jti, now)
  return { ok: false, code: 'bad_code' }
}

/** Consumes the link (and its code) in `trx`; false when another request already won. */
export function consumeLink(trx: Transaction<Database>, deps: LinkDeps, link: LinkWithCode): Promise<boolean> {
  return repo.consumeLink(trx, link.jti, new Date(deps.now()), !!link.code)
}

/** The `{ error }` texts of link and code failures (stable; clients may show them). */
export const LINK_ERRORS = {
  invalid: 'Invalid link',
  mismatch: 'Invalid link purpose or subject',
  expired: 'Link expired',
  used: 'Link already used',
  previews: 'Link preview limit reached',
  bad_code: 'Invalid or expired code',
  attempts: 'Too many attempts, request a new code',
} as const
