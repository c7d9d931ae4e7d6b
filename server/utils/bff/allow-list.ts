/**
 * The IAM calls the BFF may make (DESIGN section 5: "allow-listed paths"). Every browser action
 * maps to exactly one of these; anything else is a bug in a BFF route and is refused before a
 * signed request leaves the gateway, so a mistake can never turn the gateway into a signing oracle
 * for arbitrary IAM paths (operational config, OAuth profile login ...).
 */

/** Which cookies of the browser an IAM call receives (never more than it needs). */
export type ForwardedCookie = 'canary_id' | 'session'

interface AllowedCall {
  method: 'GET' | 'POST'
  path: RegExp
}

// Custom-MFA reasons per DESIGN section 4: [A-Z0-9_]{3,64}, and change_email (the email change flow).
const ALLOWED: readonly AllowedCall[] = [
  { method: 'GET', path: /^\/check$/ },
  { method: 'POST', path: /^\/signup$/ },
  { method: 'POST', path: /^\/login$/ },
  { method: 'POST', path: /^\/auth\/logout$/ },
  { method: 'POST', path: /^\/auth\/user\/refresh-session$/ },
  { method: 'GET', path: /^\/secret\/accesstoken\/metadata$/ },
  { method: 'GET', path: /^\/secret\/data$/ },
  { method: 'GET', path: /^\/auth\/verify-mfa$/ },
  { method: 'POST', path: /^\/auth\/verify-mfa$/ },
  { method: 'POST', path: /^\/auth\/forgot-password$/ },
  { method: 'GET', path: /^\/auth\/reset-password$/ },
  { method: 'POST', path: /^\/auth\/reset-password$/ },
  { method: 'GET', path: /^\/auth\/verify-email$/ },
  { method: 'POST', path: /^\/auth\/verify-email$/ },
  { method: 'POST', path: /^\/auth\/resend-verification$/ },
  { method: 'GET', path: /^\/auth\/undo-email-change$/ },
  { method: 'POST', path: /^\/auth\/undo-email-change$/ },
  { method: 'POST', path: /^\/custom\/mfa\/(?:[A-Z0-9_]{3,64}|change_email)$/ },
  { method: 'GET', path: /^\/auth\/verify-custom-mfa$/ },
  { method: 'POST', path: /^\/auth\/verify-custom-mfa$/ },
  { method: 'POST', path: /^\/update\/email$/ },
  { method: 'GET', path: /^\/api\/manage\/list-metadata$/ },
  { method: 'GET', path: /^\/auth\/totp$/ },
  { method: 'POST', path: /^\/auth\/totp\/(?:setup|enable|disable)$/ },
  { method: 'POST', path: /^\/auth\/second-factor$/ },
  { method: 'POST', path: /^\/(?:auth\/verify-custom-mfa|update\/email)\/second-factor$/ },
  { method: 'GET', path: /^\/auth\/passkeys$/ },
  { method: 'POST', path: /^\/auth\/passkeys\/(?:delete|register\/options|register\/verify|login\/options|login\/verify)$/ },
  // machine clients verify API tokens through the gateway (the IAM stays behind HMAC)
  { method: 'GET', path: /^\/api\/public\/verify$/ },
  { method: 'POST', path: /^\/api\/manage\/(?:new-token|revoke|metadata|rotate|ip-restriction-update|privilege-update|revoke-all)$/ },
]

/** true when the BFF may send `method path` to the IAM. */
export function isAllowedIamCall(method: string, path: string): boolean {
  const upper = method.toUpperCase()
  return ALLOWED.some((entry) => entry.method === upper && entry.path.test(path))
}
