/** Request rules of the test build's routes (routes/__test), to prove the platform rules on routes of their own. */
import { JSON_LIMIT_BYTES, OAUTH_JSON_LIMIT_BYTES, type RouteRule } from '../contract/route-rules'

export const TEST_ROUTE_RULES: readonly RouteRule[] = [
  { method: 'POST', path: '/__test/echo', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
  { method: 'POST', path: '/__test/echo-4kb', body: { kind: 'json', limitBytes: OAUTH_JSON_LIMIT_BYTES } },
  { method: 'POST', path: '/__test/cookie-only', body: { kind: 'cookie-only' }, auth: 'session' },
  { method: 'GET', path: '/__test/cookie-only', body: { kind: 'cookie-only' }, auth: 'session' },
  { method: 'GET', path: '/__test/throw', body: { kind: 'none' } },
  { method: 'GET', path: '/__test/answer', body: { kind: 'none' } },
  { method: 'POST', path: '/__test/clock', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
  { method: 'GET', path: '/__test/requests', body: { kind: 'none' } },
  { method: 'GET', path: '/__test/slow', body: { kind: 'none' } },
  { method: 'GET', path: '/__test/database-dump', body: { kind: 'none' } },
  { method: 'POST', path: '/__test/oidc-clients', body: { kind: 'json', limitBytes: OAUTH_JSON_LIMIT_BYTES } },
  { method: 'POST', path: '/__test/platform-admin', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
  { method: 'POST', path: '/__test/account-purge', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
  { method: 'POST', path: '/__test/webhook-change', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
  { method: 'GET', path: '/__test/webhook-rows', body: { kind: 'none' } },
  { method: 'POST', path: '/__test/account-footprint', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
  { method: 'POST', path: '/__test/domain-verified', body: { kind: 'json', limitBytes: JSON_LIMIT_BYTES } },
]
