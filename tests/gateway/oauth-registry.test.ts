/**
 * The provider registry and config rules: providers are data; function callbacks are registered in
 * code, only for configured oauth providers, once; the provider schema refuses reserved names and
 * reserved authorization parameters.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseGatewayConfig } from '../../server/utils/gateway-config'

const oauthEntry = (name: string, extra: Record<string, unknown> = {}) => ({
  kind: 'oauth',
  name,
  authorizationEndpoint: 'https://p.example/authorize',
  tokenEndpoint: 'https://p.example/token',
  userInfoEndpoint: 'https://p.example/user',
  clientId: 'id',
  clientSecret: 'secret',
  redirectUri: 'https://gw.example/oauth/callback/x',
  redirectUrlOnSuccess: 'https://gw.example/account',
  redirectUrlOnError: 'https://gw.example/auth/error',
  ...extra,
})

let registry: typeof import('../../server/utils/oauth/registry')

const configBefore = process.env.GATEWAY_CONFIG
afterAll(() => {
  if (configBefore === undefined) delete process.env.GATEWAY_CONFIG
  else process.env.GATEWAY_CONFIG = configBefore
  vi.resetModules()
})

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-registry-'))
  const path = join(dir, 'gateway.json')
  const oidc = { ...oauthEntry('oidcp'), kind: 'oidc', issuer: 'https://idp.example/realms/x' } as Record<string, unknown>
  delete oidc.authorizationEndpoint
  delete oidc.tokenEndpoint
  delete oidc.userInfoEndpoint
  writeFileSync(path, JSON.stringify({ OAuthProviders: [oauthEntry('plain'), oidc] }))
  // the config is read once per module instance, and workers run file after file (vitest.config.ts,
  // isolate: false): a fresh instance of the modules for this file's config, which goes again after it
  vi.resetModules()
  process.env.GATEWAY_CONFIG = path
  registry = await import('../../server/utils/oauth/registry')
})

describe('registerProviderCallbacks', () => {
  it('refuses an unknown provider, an oidc provider and non-function callbacks', () => {
    expect(() => registry.registerProviderCallbacks('nope', {})).toThrow(/no provider "nope"/)
    expect(() => registry.registerProviderCallbacks('oidcp', { emailCallBack: () => 'a@b.example' })).toThrow(/callbacks are for oauth providers/)
    expect(() => registry.registerProviderCallbacks('plain', { extraUserInfoCallBacks: ['x' as never] })).toThrow(/list of functions/)
  })

  it('registers once and exposes the callbacks with the provider config', () => {
    const emailCallBack = () => 'a@b.example'
    registry.registerProviderCallbacks('plain', { emailCallBack })
    expect(registry.findProvider('plain')?.callbacks.emailCallBack).toBe(emailCallBack)
    expect(registry.findProvider('oidcp')?.callbacks).toEqual({})
    expect(registry.findProvider('missing')).toBeUndefined()
    expect(() => registry.registerProviderCallbacks('plain', {})).toThrow(/already has callbacks/)
  })
})

describe('provider schema', () => {
  it('refuses the provider name "callback" (it would shadow the callback route)', () => {
    expect(() => parseGatewayConfig({ OAuthProviders: [oauthEntry('callback')] })).toThrow(/OAuthProviders\.0\.name: the provider name "callback" is reserved/)
  })

  it('refuses extraAuthParams that set protocol parameters, and unknown response modes', () => {
    expect(() => parseGatewayConfig({ OAuthProviders: [oauthEntry('p', { extraAuthParams: { state: 'fixed' } })] })).toThrow(/extraAuthParams may not set/)
    expect(() => parseGatewayConfig({ OAuthProviders: [oauthEntry('p', { extraAuthParams: { response_mode: 'fragment' } })] })).toThrow(/response_mode must be query or form_post/)
    expect(parseGatewayConfig({ OAuthProviders: [oauthEntry('p', { extraAuthParams: { prompt: 'consent', access_type: 'offline' } })] }).OAuthProviders[0]?.extraAuthParams).toEqual({
      prompt: 'consent',
      access_type: 'offline',
    })
  })
})
