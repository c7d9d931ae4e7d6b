/**
 * The parts of the account console (pages/account/**) and where the sections of the former
 * one-page account live now. Pure data and functions: the navigation (components/AccountNav.vue),
 * the overview's links and the redirect of old `/account#section` links read them.
 */

export type AccountPartId = 'overview' | 'security' | 'sessions' | 'apps' | 'data'

export interface AccountPart {
  id: AccountPartId
  path: string
  /** the navigation's label (i18n key) */
  label: string
}

export const ACCOUNT_PARTS: readonly AccountPart[] = [
  { id: 'overview', path: '/account', label: 'account.nav.overview' },
  { id: 'security', path: '/account/security', label: 'account.nav.security' },
  { id: 'sessions', path: '/account/sessions', label: 'account.nav.sessions' },
  { id: 'apps', path: '/account/apps', label: 'account.nav.apps' },
  { id: 'data', path: '/account/data', label: 'account.nav.data' },
]

/** The part a path belongs to; the overview for `/account` itself and anything not listed. */
export function accountPartOf(path: string): AccountPartId {
  const trimmed = path.replace(/\/+$/, '')
  return ACCOUNT_PARTS.find((part) => part.id !== 'overview' && (trimmed === part.path || trimmed.startsWith(`${part.path}/`)))?.id ?? 'overview'
}

/**
 * The sections of the one-page account (`/account#devices` and so on, in mails and bookmarks made
 * before the split) and the page each lives on now. A fragment never reaches the server (RFC 3986,
 * section 3.5), so only the page in the browser can send such a link on.
 */
const MOVED_SECTIONS: Readonly<Record<string, string>> = {
  'signing-in': '/account/security#signing-in',
  'security-activity': '/account/security#security-activity',
  devices: '/account/sessions#devices',
  'connected-apps': '/account/apps#connected-apps',
  'api-tokens': '/account/apps#api-tokens',
  'your-data': '/account/data#your-data',
  'delete-account': '/account/data#delete-account',
}

/** Where an old `/account#<section>` link belongs now, or null when the hash names nothing that moved. */
export function movedSectionTarget(hash: string): string | null {
  const id = hash.replace(/^#/, '')
  return Object.hasOwn(MOVED_SECTIONS, id) ? MOVED_SECTIONS[id]! : null
}
