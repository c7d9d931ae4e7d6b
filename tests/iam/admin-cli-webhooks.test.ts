/**
 * The webhook commands of the admin CLI (`npm run iam -- webhooks:*`) on a data set of their own:
 * an endpoint added with its secret printed once, listed, its secret rotated, removed; a URL or an
 * event type the admin API would refuse is refused here too (docs/webhooks.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '../helpers/iam-server'
import { cli, cliJson, deployment, type Cleanups, type Deployment } from './admin-cli-run'

const START_TIMEOUT_MS = 180_000
// each command is a process of its own that opens the embedded database
const CLI_TEST_TIMEOUT_MS = 180_000
// a public address literal: creation resolves nothing, and no delivery is made in this file
const URL_PUBLIC = 'https://93.184.215.14/hooks'

const cleanups: Cleanups = []
let dep: Deployment

beforeAll(async () => {
  dep = await deployment(cleanups, {})
}, START_TIMEOUT_MS)
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('webhooks:*', () => {
  it('adds an endpoint with every repeated --event-type and prints its secret once; list never shows the secret', async () => {
    const created = await cliJson(['webhooks:create', URL_PUBLIC, '--event-type', 'user.*', '--event-type', 'session.revoked', '--description', 'CRM sync'], dep.env)
    const endpoint = created.endpoint as Json
    expect(endpoint).toMatchObject({ url: URL_PUBLIC, eventTypes: ['user.*', 'session.revoked'], enabled: true, description: 'CRM sync' })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const listed = await cli(['webhooks:list'], dep.env)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(endpoint.id as string)
    expect(listed.stdout).not.toContain((created.secret as string).slice(6))

    const rotated = await cliJson(['webhooks:rotate-secret', endpoint.id as string], dep.env)
    expect(rotated.secret).not.toBe(created.secret)
    expect((rotated.endpoint as Json).previousSecretUntil).toEqual(expect.any(String))

    expect(await cliJson(['webhooks:delete', endpoint.id as string], dep.env)).toMatchObject({ deleted: true })
    const gone = await cli(['webhooks:delete', endpoint.id as string], dep.env)
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain('no webhook endpoint')
  }, CLI_TEST_TIMEOUT_MS)

  it('refuses a private address, plain http and an event type outside the catalogue, each with its reason', async () => {
    for (const [args, reason] of [
      [['webhooks:create', 'https://10.0.0.7/hooks', '--event-type', 'user.created'], 'deliveries may not reach'],
      [['webhooks:create', 'http://93.184.215.14/hooks', '--event-type', 'user.created'], 'https only'],
      [['webhooks:create', URL_PUBLIC, '--event-type', 'user.exploded'], 'not an event type'],
    ] as const) {
      const run = await cli([...args], dep.env)
      expect(run.code, run.stdout).toBe(1)
      expect(run.stderr).toContain(reason)
    }
  }, CLI_TEST_TIMEOUT_MS)
})
