/**
 * The per-account login delay (rate_limiters.loginAccountDelay, progressive-delay.ts) with the
 * owner's way past an attack: device cookies (OWASP Authentication Cheat Sheet, "device cookies").
 *
 * - The account's subject is the normalised, case-folded email as typed, whether or not an account
 *   has it: an unknown address is throttled exactly like a known one and the decision needs no
 *   database read (no enumeration by status, body or timing).
 * - A device (canary_id's visitor row) that signed in to that address before has a delay of its
 *   own. Without it an attacker sending a guess the moment each delay ends would win nearly every
 *   race against the owner; with it, guesses from anywhere else never slow the owner's usual
 *   devices, and a stolen device cookie still meets the delay on its own subject. The mark is
 *   keyed on a hash of address + device and set only after a right password, so it tells nothing
 *   to anyone who does not already know the password.
 * - A successful login forgives both subjects and (re)marks the device.
 */
import { createHash } from 'node:crypto'
import type { IamContext } from '../../context'
import type { DelayDecision } from '../rate-limits/progressive-delay'
import { loginDelaySubject, useDelay } from '../rate-limits/registry'

/** As long as the canary cookie lives (90 days): the mark is worth nothing once the cookie is gone. */
const DEVICE_MARK_TTL_MS = 90 * 24 * 60 * 60 * 1000

const deviceMarkKey = (email: string, visitorRowId: number) =>
  `login-device:${createHash('sha256').update(loginDelaySubject(email, visitorRowId)).digest('base64url')}`

/** Admits one login attempt for `email` from the device, or refuses it while its delay runs. */
export async function admitLoginAttempt(ctx: IamContext, input: { email: string; visitorRowId: number }): Promise<DelayDecision> {
  const known = (await ctx.store.get(deviceMarkKey(input.email, input.visitorRowId))) !== null
  return useDelay(ctx, 'loginAccountDelay').attempt({ email: input.email, device: known ? input.visitorRowId : undefined })
}

/** After a right password: forgets the attempts of the address and of this device, and marks the device. */
export async function forgiveLoginAttempts(ctx: IamContext, input: { email: string; visitorRowId: number }): Promise<void> {
  const loginDelay = useDelay(ctx, 'loginAccountDelay')
  await Promise.all([loginDelay.forgive({ email: input.email }), loginDelay.forgive({ email: input.email, device: input.visitorRowId })])
  await ctx.store.set(deviceMarkKey(input.email, input.visitorRowId), 1, DEVICE_MARK_TTL_MS)
}
