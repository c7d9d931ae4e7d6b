/**
 * Where a SAML sign-in continues: only a path of this site, given in RelayState (which the identity
 * provider hands back, so anyone can set it): `/x`, never `//host`, `/\host` or a scheme, so the
 * sign-in can never be turned into a redirect to another site.
 */
const SAFE_PATH = /^\/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@%/?#]*$/

export const DEFAULT_RETURN_TO = '/'

export function safeReturnTo(value: string | undefined | null): string {
  if (!value || value.length > 512 || !SAFE_PATH.test(value) || value.includes('\\')) return DEFAULT_RETURN_TO
  return value
}
