/**
 * The OpenID Provider's interactions, finished for the account signed in at the gateway: the
 * provider sends the browser to the gateway's /interaction/<uid> page with a cookie naming the
 * request; the page (through the gateway, which forwards that cookie and the account's session)
 * reads what is asked and ends it one of three ways.
 *
 * - login: the account signed in at the gateway continues. `prompt=login` needs a sign-in proof
 *   made after the request started and `max_age` one within that many seconds (OIDC Core 3.1.2.1);
 *   otherwise the page asks to re-authenticate (POST /auth/reauthenticate) and tries again. The
 *   proof's time is the ID token's auth_time.
 * - consent (third-party clients): the grant gains what the request asked; first-party clients
 *   never get here (provider.ts loadExistingGrant).
 * - abort: the client gets `access_denied`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { metadataDocumentHost } from './client-metadata-documents'
import type { Kysely } from 'kysely'
import type Provider from 'oidc-provider'
import { errors } from 'oidc-provider'
import type { InteractionView } from '../../contract/oidc'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'

type ResourceServers = IamConfig['oidc']['resourceServers']

/**
 * What the asked scopes of one API let the app do, as its configuration words them
 * (`scopeDescriptions`): one text becomes `{ default }`, so the page picks its language, then
 * `default`, then English.
 */
export function scopeDescriptionsOf(servers: ResourceServers, indicator: string, scopes: readonly string[]): Record<string, Record<string, string>> {
  const configured = servers.find((rs) => rs.indicator === indicator)?.scopeDescriptions ?? {}
  const out: Record<string, Record<string, string>> = {}
  for (const scope of scopes) {
    const text = configured[scope]
    if (text === undefined) continue
    out[scope] = typeof text === 'string' ? { default: text } : Object.fromEntries(Object.entries(text).filter((e): e is [string, string] => typeof e[1] === 'string'))
  }
  return out
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>

export type InteractionOutcome =
  | { ok: true; redirectTo: string; clientId: string }
  | { ok: false; code: 'not_found' | 'wrong_step' | 'reauthenticate' | 'other_account' }

/** The interaction the browser's cookie names, when it is the one in the URL; null otherwise. */
async function load(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string): Promise<Interaction | null> {
  try {
    const interaction = await provider.interactionDetails(req, res)
    return interaction.uid === uid ? interaction : null
  } catch (error) {
    if (error instanceof errors.SessionNotFound) return null
    throw error
  }
}

const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : [])

/**
 * OIDC Core 3.1.2.1 `ui_locales`: a space-separated list of BCP 47 tags, most preferred first. Only
 * tag-shaped words are kept, and at most 10, as the page picks the first it supports.
 */
function uiLocalesOf(interaction: Interaction): string[] {
  const raw = interaction.params.ui_locales
  if (typeof raw !== 'string') return []
  return raw.split(' ').filter((tag) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)).slice(0, 10)
}

function maxAgeOf(interaction: Interaction): number | null {
  const raw = interaction.params.max_age
  const n = typeof raw === 'string' ? Number(raw) : typeof raw === 'number' ? raw : NaN
  return Number.isInteger(n) && n >= 0 ? n : null
}

/** What the page shows. */
export async function describeInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string, servers: ResourceServers = []): Promise<InteractionView | null> {
  const interaction = await load(provider, req, res, uid)
  if (!interaction) return null
  const client = await provider.Client.find(String(interaction.params.client_id))
  if (!client) return null
  const prompt = interaction.prompt.name === 'consent' ? 'consent' : 'login'
  const details = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> }
  const scopes = prompt === 'consent' ? [...(details.missingOIDCScope ?? []), ...(details.missingOIDCClaims ?? [])] : words(interaction.params.scope)
  const resources = Object.entries(details.missingResourceScopes ?? {}).map(([indicator, s]) => ({ indicator, scopes: s, descriptions: scopeDescriptionsOf(servers, indicator, s) }))
  return {
    uid,
    prompt,
    client: {
      name: client.clientName ?? client.clientId,
      firstParty: client['first_party'] === true,
      metadataDocumentHost: metadataDocumentHost(client.clientId),
    },
    scopes,
    resources,
    loginHint: typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint.slice(0, 320) : null,
    uiLocales: uiLocalesOf(interaction),
    freshSignIn: { required: interaction.prompt.reasons.includes('login_prompt'), maxAgeSeconds: maxAgeOf(interaction) },
  }
}

export interface SignedInAccount {
  userId: number
  /** ms since the epoch: the session's sign-in or its last re-authentication */
  signInProofAt: number
  /** the session (family) id: whether it passed a second factor is read from it */
  sessionId: string
}

async function publicIdOf(db: Kysely<Database>, userId: number): Promise<string | null> {
  const row = await db.selectFrom('users').select('public_id').where('id', '=', userId).executeTakeFirst()
  return row?.public_id ?? null
}

/** The signed-in account continues the sign-in request. */
export async function finishLogin(
  db: Kysely<Database>,
  provider: Provider,
  http: { req: IncomingMessage; res: ServerResponse },
  uid: string,
  account: SignedInAccount,
  now: number,
): Promise<InteractionOutcome> {
  const interaction = await load(provider, http.req, http.res, uid)
  if (!interaction) return { ok: false, code: 'not_found' }
  if (interaction.prompt.name !== 'login') return { ok: false, code: 'wrong_step' }
  if (interaction.prompt.reasons.includes('login_prompt') && account.signInProofAt < (interaction.iat ?? 0) * 1000) return { ok: false, code: 'reauthenticate' }
  const maxAge = maxAgeOf(interaction)
  if (maxAge !== null && now - account.signInProofAt > maxAge * 1000) return { ok: false, code: 'reauthenticate' }
  const row = await db
    .selectFrom('users as u')
    .innerJoin('session_families as f', 'f.user_id', 'u.id')
    .select(['u.public_id', 'f.sign_in_amr', 'f.remember'])
    .where('u.id', '=', account.userId)
    .where('f.id', '=', account.sessionId)
    .executeTakeFirst()
  if (!row) return { ok: false, code: 'not_found' }
  const accountId = row.public_id
  // RFC 8176 method references as the sign-in recorded them; none for a way without one
  const amr = row.sign_in_amr ? row.sign_in_amr.split(' ') : undefined
  const redirectTo = await provider.interactionResult(
    http.req,
    http.res,
    // the provider's session lasts as the person chose at the gateway: a session that was not to be
    // remembered ends with the browser there too
    { login: { accountId, amr, ts: Math.floor(account.signInProofAt / 1000), remember: row.remember } },
    { mergeWithLastSubmission: false },
  )
  return { ok: true, redirectTo, clientId: String(interaction.params.client_id) }
}

/** The signed-in account allows what a third-party client asked for. */
export async function grantConsent(
  db: Kysely<Database>,
  provider: Provider,
  http: { req: IncomingMessage; res: ServerResponse },
  uid: string,
  userId: number,
): Promise<InteractionOutcome> {
  const interaction = await load(provider, http.req, http.res, uid)
  if (!interaction) return { ok: false, code: 'not_found' }
  if (interaction.prompt.name !== 'consent') return { ok: false, code: 'wrong_step' }
  const accountId = await publicIdOf(db, userId)
  if (!accountId || interaction.session?.accountId !== accountId) return { ok: false, code: 'other_account' }
  const clientId = String(interaction.params.client_id)
  const grant = (interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined) ?? new provider.Grant({ accountId, clientId })
  const details = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> }
  if (details.missingOIDCScope?.length) grant.addOIDCScope(details.missingOIDCScope.join(' '))
  if (details.missingOIDCClaims?.length) grant.addOIDCClaims(details.missingOIDCClaims)
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '))
  const grantId = await grant.save()
  const redirectTo = await provider.interactionResult(http.req, http.res, { consent: { grantId } }, { mergeWithLastSubmission: true })
  return { ok: true, redirectTo, clientId }
}

/** The person cancels: the client gets access_denied (RFC 6749 section 4.1.2.1). */
export async function abortInteraction(provider: Provider, http: { req: IncomingMessage; res: ServerResponse }, uid: string): Promise<InteractionOutcome> {
  const interaction = await load(provider, http.req, http.res, uid)
  if (!interaction) return { ok: false, code: 'not_found' }
  const redirectTo = await provider.interactionResult(
    http.req,
    http.res,
    { error: 'access_denied', error_description: 'The person cancelled the sign-in' },
    { mergeWithLastSubmission: false },
  )
  return { ok: true, redirectTo, clientId: String(interaction.params.client_id) }
}
