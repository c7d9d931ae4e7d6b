/**
 * The success step's user object work (gateway.md, Success step 1-2): email resolution and the
 * merge of extra user info with mode drop. Pure except for the callbacks it is given.
 */
import type { ProviderCallbacks, ProviderCallbackContext } from './registry'

// Deliberately simple (the IAM validates the address for real): one @, no spaces, a dot in the domain.
const EMAIL = /^[^\s@<>()",;:\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/
const MAX_SCAN_DEPTH = 3
// never copied from callback results: they would reach Object.prototype through a later spread
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** True for an email-shaped string. */
export function isEmailShaped(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && EMAIL.test(value)
}

/** The first email-shaped value (then key) in the object, depth-first in key order, or null. */
export function scanForEmail(value: unknown, depth = 0): string | null {
  if (depth > MAX_SCAN_DEPTH || value === null || typeof value !== 'object') return isEmailShaped(value) ? value : null
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)
  for (const [, v] of entries) {
    const found = scanForEmail(v, depth + 1)
    if (found) return found
  }
  for (const [k] of entries) if (isEmailShaped(k)) return k
  return null
}

export type EmailResolution = { ok: true; email: string } | { ok: false; code: 'email_missing' | 'callback_failed' }

/**
 * Step 1: the user's own `email` when email-shaped; else the emailCallBack's answer; else (no
 * callback) a scan of the user object. No email: `email_missing` (the route answers 400).
 */
export async function resolveEmail(
  user: Record<string, unknown>,
  accessToken: string,
  callbacks: ProviderCallbacks,
  ctx: ProviderCallbackContext,
): Promise<EmailResolution> {
  if (isEmailShaped(user['email'])) return { ok: true, email: user['email'] }
  if (callbacks.emailCallBack) {
    let answer: unknown
    try {
      answer = await callbacks.emailCallBack(accessToken, ctx)
    } catch {
      return { ok: false, code: 'callback_failed' }
    }
    return isEmailShaped(answer) ? { ok: true, email: answer } : { ok: false, code: 'email_missing' }
  }
  const scanned = scanForEmail(user)
  return scanned ? { ok: true, email: scanned } : { ok: false, code: 'email_missing' }
}

/**
 * The user object with the resolved email, as the IAM receives it. A provider's `email_verified`
 * speaks only of its own `email` field: when the address came from elsewhere the claim is dropped,
 * and a scanned address (any string in the profile that looks like one) is marked unverified
 * outright, so it can never link to an existing account at the IAM.
 */
export function withResolvedEmail(user: Record<string, unknown>, email: string, hasEmailCallback: boolean): Record<string, unknown> {
  if (user['email'] === email) return { ...user }
  const { email_verified: _claim, ...rest } = user
  return hasEmailCallback ? { ...rest, email } : { ...rest, email, email_verified: false }
}

/**
 * Merge with mode drop: a key already present (from the provider, the resolved email, or an
 * earlier callback in list order) is kept and the newcomer dropped; `onDrop` is called per key.
 */
export function mergeDrop(
  user: Record<string, unknown>,
  extras: ReadonlyArray<Record<string, unknown>>,
  onDrop: (key: string, callbackIndex: number) => void,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...user }
  extras.forEach((extra, index) => {
    if (!extra || typeof extra !== 'object' || Array.isArray(extra)) return
    for (const [key, value] of Object.entries(extra)) {
      if (UNSAFE_KEYS.has(key) || Object.hasOwn(merged, key)) onDrop(key, index)
      else merged[key] = value
    }
  })
  return merged
}

/** Step 2: every extraUserInfoCallBack in parallel; a throwing callback fails the flow. */
export async function collectExtraUserInfo(
  accessToken: string,
  callbacks: ProviderCallbacks,
  ctx: ProviderCallbackContext,
): Promise<{ ok: true; extras: Record<string, unknown>[] } | { ok: false; code: 'callback_failed' }> {
  const list = callbacks.extraUserInfoCallBacks ?? []
  try {
    const extras = await Promise.all(list.map(async (cb) => cb(accessToken, ctx)))
    return { ok: true, extras }
  } catch {
    return { ok: false, code: 'callback_failed' }
  }
}
