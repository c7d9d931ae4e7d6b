/**
 * Readiness: can this instance serve requests that need its dependencies?
 * Database `select 1`, shared storage PING (the memory store is always up), and the mail server's
 * greeting (SMTP; the dev outbox needs nothing). Each check gives up after CHECK_TIMEOUT_MS, so a
 * dependency that hangs makes the answer "down", never a late answer. The mail check opens an SMTP
 * session, so its result is kept for MAIL_RESULT_TTL_MS: a probe every second does not open one
 * each time. The answer says up or down per dependency and nothing else.
 */
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { getMailer } from '../mail/mailer'

export type CheckState = 'up' | 'down' | 'outbox'
export interface Readiness {
  ready: boolean
  checks: { database: CheckState; storage: CheckState; mail: CheckState }
}

export const CHECK_TIMEOUT_MS = 1000
const MAIL_RESULT_TTL_MS = 5000

/** 'up' when `check` resolves within `ms`, 'down' when it rejects or takes longer. */
async function within(ms: number, check: () => Promise<unknown>): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('down'), ms)
  })
  const run = check().then(
    (): CheckState => 'up',
    (): CheckState => 'down',
  )
  try {
    return await Promise.race([run, late])
  } finally {
    clearTimeout(timer)
  }
}

type MailResult = { state: CheckState; at: number; pending?: Promise<CheckState> }
const mailResults = new WeakMap<IamContext, MailResult>()

/** The mail state, from cache when fresh; one SMTP check at a time per context. */
function mailState(ctx: IamContext): Promise<CheckState> {
  const mailer = getMailer(ctx)
  if (mailer.kind === 'outbox') return Promise.resolve('outbox')
  const cached = mailResults.get(ctx)
  // a cache age, measured on the monotonic clock (the context's clock may be moved by tests)
  const now = performance.now()
  if (cached?.pending) return cached.pending
  if (cached && now - cached.at < MAIL_RESULT_TTL_MS) return Promise.resolve(cached.state)
  const pending = within(CHECK_TIMEOUT_MS, () => mailer.verify(CHECK_TIMEOUT_MS)).then((state) => {
    mailResults.set(ctx, { state, at: performance.now() })
    return state
  })
  mailResults.set(ctx, { state: cached?.state ?? 'down', at: cached?.at ?? Number.NEGATIVE_INFINITY, pending })
  return pending
}

export async function checkReadiness(ctx: IamContext): Promise<Readiness> {
  const [database, storage, mail] = await Promise.all([
    within(CHECK_TIMEOUT_MS, () => sql`select 1`.execute(ctx.db)),
    within(CHECK_TIMEOUT_MS, () => ctx.store.ping()),
    mailState(ctx),
  ])
  const checks = { database, storage, mail }
  return { ready: Object.values(checks).every((state) => state !== 'down'), checks }
}
