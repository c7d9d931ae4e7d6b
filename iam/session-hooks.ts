/**
 * The session hooks every IamContext carries, with the listeners of every feature that reacts to
 * sessions ending registered: one function so that the server (plugins/00.boot.ts) and the admin
 * CLI (cli/context.ts) cannot drift apart.
 */
import { registerOidcSessionListeners } from './features/oidc/accounts'
import { createSessionHooks, type SessionHooks } from './features/sessions/session-hooks'

export function buildSessionHooks(): SessionHooks {
  const hooks = createSessionHooks()
  registerOidcSessionListeners(hooks)
  return hooks
}
