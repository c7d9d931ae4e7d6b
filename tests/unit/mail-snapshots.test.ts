/**
 * One English snapshot of each HTML mail for review (docs/mails/<kind>.html), rendered with the
 * sample values of the admin preview (iam/features/mail/sample-mails.ts). A change of a mail's
 * words or layout shows up in review as a diff of these files: UPDATE_MAIL_SNAPSHOTS=1 rewrites
 * them, otherwise they must match.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAIL_KINDS } from '../../iam/contract/mail-templates'
import { sampleMail } from '../../iam/features/mail/sample-mails'

const DIR = join(import.meta.dirname, '../../docs/mails')
const update = process.env['UPDATE_MAIL_SNAPSHOTS'] === '1'

describe('the English snapshots of the mails (docs/mails)', () => {
  it.each([...MAIL_KINDS])('docs/mails/%s.html is the mail as it renders now', (kind) => {
    const html = sampleMail(kind, 'en', 'Acme', 'https://id.example.com').html
    const file = join(DIR, `${kind}.html`)
    if (update) writeFileSync(file, html)
    expect(existsSync(file), `${file} missing: run with UPDATE_MAIL_SNAPSHOTS=1`).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe(html)
  })
})
