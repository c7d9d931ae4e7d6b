/**
 * The IAM's mail outbox (`<dataDir>/mail/*.eml`, the transport without SMTP). A mail started after
 * a response (a signup's verification mail) is in it once that background work is done, which lets
 * a test that counts statements start counting after it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { waitUntil } from './wait'

export function outboxMentions(dataDir: string, text: string): boolean {
  const dir = join(dataDir, 'mail')
  return existsSync(dir) && readdirSync(dir).some((name) => name.endsWith('.eml') && readFileSync(join(dir, name), 'utf8').includes(text))
}

/** Resolves once a mail to `email` is in the outbox of the IAM in `dataDir`. */
export const untilMailTo = (dataDir: string, email: string): Promise<void> => waitUntil(() => outboxMentions(dataDir, email), `a mail to ${email} in the outbox`)
