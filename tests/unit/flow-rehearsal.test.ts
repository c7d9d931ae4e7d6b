/**
 * The rehearsal of a link flow for an address no account uses (iam/features/mfa/flows.ts
 * rehearseFlow): the database work startFlow does for a known address, statement for statement,
 * and nothing left behind. POST /auth/forgot-password and POST /auth/email-sign-in run one or the
 * other after their answer, so the work that follows an answer does not tell the two apart.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../iam/lib/config'
import { rehearseFlow, startFlow, type FlowDeps } from '../../iam/features/mfa/flows'
import { EMAIL_SIGN_IN_PURPOSE } from '../../iam/features/mfa/purposes'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'

/** Counts the statements sent through the Kysely it is plugged into (transactions' included). */
class StatementCount implements KyselyPlugin {
  count = 0
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => silent } as unknown as FlowDeps['log']

describe.each(KINDS)('the rehearsal of a link flow on $label', ({ kind, skip }) => {
  const data = dataLayerDbForSuite(kind, skip)
  let dataDir: string
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'flow-rehearsal-'))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  const depsWith = (counter: StatementCount): FlowDeps => ({
    db: data.db.withPlugin(counter),
    // the dev outbox: the mail is a file in dataDir, no SMTP server needed
    config: parseConfig({ service: { dataDir }, secrets: { links: 'l'.repeat(32), codes: 'c'.repeat(32) } }),
    log: silent,
    now: Date.now,
  })
  const rows = async () => ({
    links: (await data.db.selectFrom('magic_links').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n,
    codes: (await data.db.selectFrom('mfa_codes').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n,
    live: await data.db.selectFrom('magic_links').select(['jti', 'consumed_at']).orderBy('jti').execute(),
  })

  it.skipIf(skip)('sends the statements a real flow sends and leaves every link and code as it was', async () => {
    const { id: userId } = await data.db.insertInto('users').values({ email: `rehearsal-${kind}@example.com`, name: 'n', roles: ['user'] }).returning('id').executeTakeFirstOrThrow()
    const flow = { purpose: EMAIL_SIGN_IN_PURPOSE, withCode: true }
    const start = (deps: FlowDeps) =>
      startFlow(deps, { ...flow, path: 'emailSignIn', userId, familyId: null, visitor: 'v'.repeat(22), onLive: 'replace', mail: (issued) => ({ to: 'rehearsal@example.com', content: { subject: 's', text: issued.url, html: '' } }) })
    // a live link first, so the real flow burns one as the flood of a known address does
    expect((await start(depsWith(new StatementCount()))).ok).toBe(true)
    const real = new StatementCount()
    expect((await start(depsWith(real))).ok).toBe(true)

    const before = await rows()
    const rehearsed = new StatementCount()
    await rehearseFlow(depsWith(rehearsed), flow)
    expect(await rows()).toEqual(before)
    expect(rehearsed.count).toBe(real.count)
    expect(rehearsed.count).toBeGreaterThanOrEqual(5)
  })
})
