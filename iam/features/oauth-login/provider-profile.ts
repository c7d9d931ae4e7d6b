/**
 * Providers are data (config `providers`), not code: each entry names the provider and how its
 * forwarded profile maps to ours. `useStandardProfile` (the default) reads OIDC-style claims
 * `{ sub | id | user_id, email, email_verified?, name?, given_name?, family_name?, picture? }`;
 * `fields` maps our field names to the provider's keys for other shapes. Unknown keys are dropped.
 */
import { providerProfile } from '../../contract/inputs'
import type { IamConfig } from '../../lib/config-schema'

export type ProviderConfig = IamConfig['providers'][number]

export interface OAuthProfile {
  providerUserId: string
  email: string
  emailVerified: boolean
  name?: string
  givenName?: string
  familyName?: string
  picture?: string
}

/** The registered provider named `name` (exact match), or undefined (404). */
export function findProvider(providers: readonly ProviderConfig[], name: string): ProviderConfig | undefined {
  return providers.find((p) => p.name === name)
}

const STANDARD_FIELDS: Record<string, string[]> = {
  id: ['sub', 'id', 'user_id'],
  email: ['email'],
  email_verified: ['email_verified'],
  name: ['name'],
  given_name: ['given_name'],
  family_name: ['family_name'],
  picture: ['picture'],
}

export type ProfileResult = { ok: true; profile: OAuthProfile } | { ok: false; fields: Record<string, string> }

/** Picks our fields out of the forwarded body per the provider's mapping, then validates them. */
export function readProfile(provider: ProviderConfig, body: Record<string, unknown>): ProfileResult {
  const picked: Record<string, unknown> = {}
  for (const [ours, theirs] of Object.entries(STANDARD_FIELDS)) {
    const mapped = provider.fields?.[ours]
    const keys = mapped ? [mapped] : provider.useStandardProfile === false && provider.fields ? [] : theirs
    const key = keys.find((k) => body[k] !== undefined && body[k] !== null)
    if (key !== undefined) picked[ours] = body[key]
  }
  const parsed = providerProfile.safeParse(picked)
  if (!parsed.success) {
    const fields: Record<string, string> = {}
    for (const issue of parsed.error.issues) fields[String(issue.path[0] ?? 'profile')] ??= issue.message
    return { ok: false, fields }
  }
  const p = parsed.data
  return {
    ok: true,
    profile: {
      providerUserId: p.id,
      email: p.email,
      emailVerified: p.email_verified,
      ...(p.name ? { name: p.name } : {}),
      ...(p.given_name ? { givenName: p.given_name } : {}),
      ...(p.family_name ? { familyName: p.family_name } : {}),
      ...(p.picture ? { picture: p.picture } : {}),
    },
  }
}

/** A display name: the profile's name, else given + family, else the address's local part. */
export function displayName(profile: OAuthProfile): string {
  return (profile.name ?? [profile.givenName, profile.familyName].filter(Boolean).join(' ')) || profile.email.split('@')[0]!
}
