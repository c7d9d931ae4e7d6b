/** GET /api/auth/providers: the configured OAuth providers for the sign-in buttons (names and labels only). */
import { defineEventHandler, setResponseHeader } from 'h3'
import { useGatewayConfig } from '../../utils/gateway-config'

export default defineEventHandler((event) => {
  setResponseHeader(event, 'cache-control', 'no-store')
  return {
    providers: useGatewayConfig().OAuthProviders.map((p) => ({ name: p.name, displayName: p.displayName ?? p.name, href: `/oauth/${encodeURIComponent(p.name)}` })),
  }
})
