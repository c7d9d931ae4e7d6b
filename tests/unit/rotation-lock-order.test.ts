// A rotation writes the family row (its refresh expiry) and spends the family's token; a revocation
// (logout, password change, reuse) takes the family row first and then the family's tokens, inside
// one transaction. The rotation statement must take the family first too: spending the token and
// then waiting for the family would deadlock with such a revocation, and PostgreSQL would abort one
// of them (a 500 for its request). PostgreSQL only: PGlite serves one connection at a time.
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { hashRefreshToken, newRefreshToken } from '../../iam/features/sessions/refresh-token'
import { insertSessionAtOnce, revokeFamilies, rotateInOneStatement } from '../../iam/features/sessions/sessions-repo'
import { twoConnections, untilWaitingOnLock } from '../helpers/lock-order'
import { skippedWithout, titled } from '../helpers/skip-notes'

let close: (() => Promise<void>) | undefined
afterAll(async () => {
  await close?.()
})

// PostgreSQL only when DATABASE_URL names a server (the PostgreSQL + Redis run of the suite sets it)
describe.skipIf(skippedWithout('postgres'))(titled('rotation against a revocation of its family, on PostgreSQL', 'postgres'), () => {
  it('waits for the revocation that holds the family, then spends nothing: no deadlock, no successor', async () => {
    const { first: revoker, second: rotator, ...opened } = await twoConnections()
    close = opened.close

    const now = new Date()
    const { id: userId } = await revoker.insertInto('users').values({ email: 'lock-order@example.com', name: 'n', roles: ['user'] }).returning('id').executeTakeFirstOrThrow()
    const { id: visitorRowId } = await revoker.insertInto('visitors').values({ canary_id: 'c-lock', visitor_id: 'v-lock' }).returning('id').executeTakeFirstOrThrow()
    const familyId = randomBytes(8).toString('hex')
    const raw = newRefreshToken()
    const expiresAt = new Date(now.getTime() + 3_600_000)
    await insertSessionAtOnce(revoker,
      { id: familyId, userId, visitorRowId, remember: false, ipAddress: '203.0.113.9', fingerprint: null, now, refreshExpiresAt: expiresAt },
      { familyId, hash: hashRefreshToken(raw), expiresAt, now })

    let rotation: Promise<unknown> | undefined
    const revoked = revoker.transaction().execute(async (trx) => {
      // the revocation's first write holds the family row until its commit
      await trx.updateTable('session_families').set({ revoked_reason: 'logout' }).where('id', '=', familyId).execute()
      rotation = rotateInOneStatement(rotator, {
        hash: hashRefreshToken(raw), newHash: hashRefreshToken(newRefreshToken()), now,
        refreshTtlMs: 3_600_000, rememberTtlMs: 3_600_000, maxSessionLifeMs: 86_400_000, touchBefore: null,
      })
      await untilWaitingOnLock(revoker)
      // ... and then it takes the family's tokens, while the rotation waits
      return revokeFamilies(trx, { familyId }, 'logout', now)
    })

    expect(await revoked).toEqual([familyId])
    // the rotation ran after the commit: the token was no longer active, nothing was spent or inserted
    expect(await rotation).toBeUndefined()
    const tokens = await revoker.selectFrom('refresh_tokens').select(['status', 'replaced_by']).where('family_id', '=', familyId).execute()
    expect(tokens).toEqual([{ status: 'revoked', replaced_by: null }])
    const family = await revoker.selectFrom('session_families').select(['revoked_at', 'refresh_expires_at']).where('id', '=', familyId).executeTakeFirstOrThrow()
    expect(family.revoked_at).not.toBeNull()
    expect(family.refresh_expires_at).toBeNull()
  }, 60_000)
})
