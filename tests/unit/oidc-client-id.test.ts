/** OpenID client ids (features/oidc/clients.ts): operators type them after admin commands. */
import { describe, expect, it } from 'vitest'
import { newClientId } from '../../iam/features/oidc/clients'

describe('a new OpenID client id', () => {
  it('never starts with - or _, so `clients:show <id>` never reads it as an option; 96 random bits in base64url', () => {
    const ids = Array.from({ length: 2000 }, newClientId)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
