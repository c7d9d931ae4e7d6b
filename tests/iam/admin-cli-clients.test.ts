/**
 * The OpenID clients of the admin CLI (`npm run iam -- clients:*`) on the data set of a built IAM:
 * what the commands print, and that the provider honours what they registered (its token endpoint
 * takes the printed secret, and refuses it after a rotation or a deletion). The IAM runs on the
 * deployment's data dir, so it opens client secrets with the dev keys the CLI sealed them with.
 */
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '../helpers/iam-server'
import { cli, cliJson, cliStage, deployment, type Cleanups, type Deployment } from './admin-cli-run'

const START_TIMEOUT_MS = 180_000

const cleanups: Cleanups = []
let dep: Deployment
let stage: ReturnType<typeof cliStage>

beforeAll(async () => {
  dep = await deployment(cleanups, {})
  // the CLI's data dir (dev secrets, among them the key sealing client secrets) is the server's too
  dep.serverConfig = { service: { dataDir: dirname(dep.env.IAM_CONFIG!) } }
  stage = cliStage(dep)
}, START_TIMEOUT_MS)
afterAll(async () => {
  await stage?.stop()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const turn = <T>(run: () => Promise<T>) => stage.cliTurn(run)

/** A client credentials grant at the provider's token endpoint (the IAM's /oidc, reached directly here). */
async function asClient(clientId: string, secret: string, endpoint: string, body: string): Promise<Response> {
  const iam = await stage.server()
  return fetch(`${iam.url}/oidc/${endpoint}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body,
  })
}

async function clientCredentials(clientId: string, secret: string): Promise<number> {
  return (await asClient(clientId, secret, 'token', 'grant_type=client_credentials')).status
}

/** Introspection of `token` by the client itself (the one-statement path, which keeps opened secrets). */
async function introspect(clientId: string, secret: string, token: string): Promise<{ status: number; active?: boolean }> {
  const res = await asClient(clientId, secret, 'token/introspection', new URLSearchParams({ token }).toString())
  return { status: res.status, active: ((await res.json()) as { active?: boolean }).active }
}

interface ClientJson {
  clientId: string
  name: string
  public: boolean
  firstParty: boolean
  redirectUris: string[]
  postLogoutRedirectUris: string[]
  grants: string[]
  scope: string
  backchannelLogoutUri: string | null
}

describe('npm run iam -- clients:*', () => {
  it('clients:create registers a confidential client with every repeated --redirect-uri and --grant, and prints its secret once with a warning', async () => {
    const run = await turn(() =>
      cli(
        [
          'clients:create',
          '--name',
          'Wiki',
          '--redirect-uri',
          'https://wiki.example.com/callback',
          '--redirect-uri=http://localhost:4000/callback',
          '--grant',
          'authorization_code',
          '--grant',
          'refresh_token',
          '--grant',
          'client_credentials',
          '--first-party',
          '--post-logout-redirect-uri',
          'https://wiki.example.com/',
          '--backchannel-logout-uri',
          'https://wiki.example.com/backchannel',
        ],
        dep.env,
      ),
    )
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('https://wiki.example.com/callback http://localhost:4000/callback')
    expect(run.stdout).toMatch(/client secret\s+\S{40,}/)
    expect(run.stdout).toContain('will not be shown again')
    const id = /client id\s+(\S+)/.exec(run.stdout)![1]!
    const secret = /client secret\s+(\S+)/.exec(run.stdout)![1]!

    const shown = await turn(() => cliJson(['clients:show', id], dep.env))
    expect(shown.client).toMatchObject({
      clientId: id,
      name: 'Wiki',
      public: false,
      firstParty: true,
      redirectUris: ['https://wiki.example.com/callback', 'http://localhost:4000/callback'],
      postLogoutRedirectUris: ['https://wiki.example.com/'],
      grants: ['authorization_code', 'refresh_token', 'client_credentials'],
      scope: 'openid profile email offline_access',
      backchannelLogoutUri: 'https://wiki.example.com/backchannel',
    })
    // shown, never its secret
    expect(JSON.stringify(shown)).not.toContain(secret)
    expect(await clientCredentials(id, secret)).toBe(200)
  }, 2 * START_TIMEOUT_MS)

  it('clients:create --public --json gives a client without a secret; the device_code alias names the device grant', async () => {
    const created = await turn(() =>
      cliJson(['clients:create', '--name', 'Terminal', '--public', '--grant', 'device_code', '--grant', 'refresh_token', '--scope', 'openid offline_access'], dep.env),
    )
    expect(created).toMatchObject({ ok: true, clientSecret: null })
    const client = created.client as ClientJson
    expect(client).toMatchObject({ public: true, firstParty: false, redirectUris: [], scope: 'openid offline_access' })
    expect(client.grants).toEqual(['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'])
    const listed = await turn(() => cliJson(['clients:list'], dep.env))
    expect((listed.clients as ClientJson[]).map((c) => c.clientId)).toContain(client.clientId)
    const rotate = await turn(() => cli(['clients:rotate-secret', client.clientId], dep.env))
    expect(rotate.code).toBe(1)
    expect(rotate.stderr).toContain('public client')
  }, START_TIMEOUT_MS)

  it('clients:rotate-secret prints a new secret; the token and introspection endpoints refuse the old one and take the new', async () => {
    const created = await turn(() => cliJson(['clients:create', '--name', 'Worker', '--grant', 'client_credentials'], dep.env))
    const id = (created.client as ClientJson).clientId
    const old = created.clientSecret as string
    expect(await clientCredentials(id, old)).toBe(200)
    const issued = (await (await asClient(id, old, 'token', 'grant_type=client_credentials')).json()) as { access_token: string }
    expect(await introspect(id, old, issued.access_token)).toEqual({ status: 200, active: true })
    const rotated = await turn(() => cliJson(['clients:rotate-secret', id], dep.env))
    expect(rotated).toMatchObject({ ok: true, clientId: id })
    const fresh = rotated.clientSecret as string
    expect(fresh).not.toBe(old)
    expect(await clientCredentials(id, old)).toBe(401)
    expect(await clientCredentials(id, fresh)).toBe(200)
    // the old secret was opened and kept for the introspection before the rotation: it answers no more
    expect((await introspect(id, old, issued.access_token)).status).toBe(401)
    expect(await introspect(id, fresh, issued.access_token)).toEqual({ status: 200, active: true })
  }, 3 * START_TIMEOUT_MS)

  it('clients:delete removes the client: the provider no longer knows it, and show, rotate and delete name the unknown id', async () => {
    const created = await turn(() => cliJson(['clients:create', '--name', 'Old tool', '--grant', 'client_credentials'], dep.env))
    const id = (created.client as ClientJson).clientId
    const deleted = await turn(() => cliJson(['clients:delete', id], dep.env))
    expect(deleted).toEqual({ ok: true, clientId: id, deleted: true })
    expect(await clientCredentials(id, created.clientSecret as string)).toBe(401)
    const after = await turn(async () => [await cli(['clients:show', id], dep.env), await cli(['clients:rotate-secret', id], dep.env), await cli(['clients:delete', id], dep.env)])
    for (const run of after) {
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
      expect(run.stderr).toContain(`no client with the id ${id}`)
    }
  }, 3 * START_TIMEOUT_MS)

  it('refuses invalid input in one line naming the option, with status 1, and registers nothing', async () => {
    const { before, runs, after } = await turn(async () => {
      const before = ((await cliJson(['clients:list'], dep.env)).clients as Json[]).length
      const runs = [
        await cli(['clients:create', '--name', 'Bad', '--redirect-uri', 'http://wiki.example.com/cb'], dep.env),
        await cli(['clients:create', '--name', 'Bad', '--redirect-uri', 'https://wiki.example.com/cb#frag'], dep.env),
        await cli(['clients:create', '--name', 'Bad', '--redirect-uri', 'https://wiki.example.com/cb', '--grant', 'implicit'], dep.env),
        await cli(['clients:create', '--name', 'Bad', '--public', '--grant', 'client_credentials'], dep.env),
        await cli(['clients:create', '--name', 'Bad'], dep.env),
        await cli(['clients:create', '--name', 'Bad', '--redirect-uri'], dep.env),
      ]
      const after = ((await cliJson(['clients:list'], dep.env)).clients as Json[]).length
      return { before, runs, after }
    })
    const expected = ['--redirect-uri: plain http is only for loopback', '--redirect-uri: must not contain a fragment', '--grant: unknown grant implicit', 'client_credentials needs a confidential client', '--redirect-uri: at least one', '--redirect-uri needs a value']
    runs.forEach((run, i) => {
      expect(run.code, run.stdout).toBe(1)
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
      expect(run.stderr).toContain(expected[i])
    })
    expect(after).toBe(before)
  }, START_TIMEOUT_MS)
})
