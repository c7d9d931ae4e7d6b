import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { configSchema } from '../../iam/lib/config-schema'
import { createLogger } from '../../shared/log'
import { sendAdaptiveMfa } from '../../iam/features/mfa/adaptive'
import { maskEmail } from '../../iam/features/mfa/flows'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'
import { createMigratedDatabase } from '../helpers/test-database'

let db: Kysely<Database>
let smtp: SmtpCapture
const secrets = { codes: 'c'.repeat(40), links: 'l'.repeat(40) }
const input = { userId: 1, familyId: 'f1', visitor: 'v1', anomaly: 'new device', ipAddress: '10.1.2.3' }

const ctxFor = (port: number) => ({
  db,
  config: configSchema.parse({ secrets, email: { siteName: 'Acme', smtp: { host: '127.0.0.1', port } } }),
  log: createLogger('silent'),
  now: Date.now,
})

beforeAll(async () => {
  smtp = await startSmtp()
  db = await createMigratedDatabase(configSchema.parse({ database: { url: 'memory://' } }))
  await db.insertInto('users').values({ email: 'jane@example.com', name: 'Jane', password_hash: null, roles: JSON.stringify(['user']) }).execute()
  await db.insertInto('visitors').values({ canary_id: 'c1', visitor_id: 'v1' }).execute()
  await db.insertInto('session_families').values([{ id: 'f1', user_id: 1, visitor_id: 1 }, { id: 'f2', user_id: 1, visitor_id: 1 }]).execute()
}, 60_000)
afterAll(async () => {
  await smtp.stop()
  await db.destroy()
})

describe('sendAdaptiveMfa', () => {
  it('leaves no link behind when the mail cannot be sent', async () => {
    // port 9 on loopback: nothing listens, the connection is refused at once
    const result = await sendAdaptiveMfa(ctxFor(9), input)
    expect(result).toEqual({ ok: false, code: 'mail_failed' })
    expect(await db.selectFrom('magic_links').select('jti').execute()).toHaveLength(0)
    expect(await db.selectFrom('mfa_codes').select('id').execute()).toHaveLength(0)
  })

  it('mails a link and a code once, and answers sent:false while that code is live', async () => {
    const ctx = ctxFor(smtp.port)
    expect(await sendAdaptiveMfa(ctx, input)).toEqual({ ok: true, sent: true })
    const mail = await smtp.waitForMail((m) => recipients(m).includes('jane@example.com'))
    expect(mail.text).toMatch(/Your code: \d{7}/)
    expect(mail.text).toContain('http://127.0.0.1:3000/auth/mfa?token=')
    expect(mail.text).toContain('reason=MAGIC_LINK_MFA_CHECKS&visitor=v1')
    expect(mail.subject).not.toMatch(/\d{7}/)
    const repeats = await Promise.all([sendAdaptiveMfa(ctx, input), sendAdaptiveMfa(ctx, input), sendAdaptiveMfa(ctx, input)])
    expect(repeats).toEqual([{ ok: true, sent: false }, { ok: true, sent: false }, { ok: true, sent: false }])
    expect(smtp.mails).toHaveLength(1)
  })

  it('keeps flows of different sessions apart', async () => {
    expect(await sendAdaptiveMfa(ctxFor(smtp.port), { ...input, familyId: 'f2' })).toEqual({ ok: true, sent: true })
  })

  it('answers ok:false for a session that does not exist', async () => {
    expect(await sendAdaptiveMfa(ctxFor(smtp.port), { ...input, familyId: 'nope' })).toEqual({ ok: false, code: 'session_gone' })
  })
})

describe('maskEmail', () => {
  it('keeps the first letter and the domain', () => {
    expect(maskEmail('jane.doe@example.com')).toBe('j***@example.com')
    expect(maskEmail('x@example.com')).toBe('x***@example.com')
  })
})
