/**
 * The admin commands, one citty command each. They parse arguments, call
 * feature functions and say what happened; no SQL here. Every change is recorded as a security
 * event by the feature that makes it (the signing-key rotation and the OpenID client changes here:
 * their features are also used where no operator acts, by the provider's own registration).
 */
import { createReadStream } from 'node:fs'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { defineCommand, type ArgsDef, type CommandDef, type ParsedArgs } from 'citty'
import { migrateToLatest, createDatabase } from '../db/database'
import { revokeTokenByPublicIdentifier } from '../features/api-tokens/admin-revoke'
import { recordSecurityEvent } from '../features/security-events/repository'
import { listSessions, revokeOtherSessions, revokeSession } from '../features/sessions/account-sessions'
import { rotateSigningKey } from '../features/tokens/signing-keys'
import { CLIENT_GRANT_TYPES, ClientInputError, createClient, deleteClient, GRANT_ALIASES, listClients, rotateClientSecret, showClient, type ClientGrantType, type ClientView } from '../features/oidc/clients'
import { setPlatformAdmin } from '../features/admin/platform-admins'
import { banAccount, listAccounts, unbanAccount } from '../features/users/admin-users'
import { purgeDueAccounts } from '../features/account-deletion/purge'
import { importUsers, recordImport, type ImportSummary } from '../features/users/import-users'
import { findUserByEmail } from '../features/users/users-repo'
import { normalizeEmail } from '../features/email-checks/email-checks'
import { createEndpoint, deleteEndpoint, listEndpoints, rotateEndpointSecret, type EndpointView } from '../features/webhooks/endpoints'
import { PLATFORM } from '../features/webhooks/endpoints-repo'
import { isWebhookPattern } from '../contract/webhooks'
import { loadConfig, productionProblems } from '../lib/config'
import { isProduction, openCliContext, type CliContext } from './context'
import { CliFailure, report, type Report } from './output'
import { parseUntil } from './until'

/** Who the security events name as the actor of a CLI change. */
const BY = 'admin-cli'
// The address field of the events a reused account feature records for an operator's change.
const OPERATOR = { visitorRowId: null, ipAddress: BY, fingerprint: null }
// No session is "current" for an operator: revoke-others then ends every session.
const NO_SESSION = '00000000-0000-0000-0000-000000000000'

const jsonArg = { json: { type: 'boolean', description: 'Machine output: one JSON document on stdout' } } as const satisfies ArgsDef
const emailArg = { email: { type: 'positional', required: true, description: 'The account email address' } } as const satisfies ArgsDef

/** Opens the server's database and storage for `run`, closing them after. */
async function withContext<T>(run: (ctx: CliContext) => Promise<T>, options?: Parameters<typeof openCliContext>[0]): Promise<T> {
  const ctx = await openCliContext(options)
  try {
    return await run(ctx)
  } finally {
    await ctx.close()
  }
}

async function userIdOf(ctx: CliContext, email: string): Promise<number> {
  const user = await findUserByEmail(ctx.db, normalizeEmail(email))
  if (!user) throw new CliFailure(`no account with the email ${email}`)
  return user.id
}

function command<const A extends ArgsDef>(
  name: string,
  description: string,
  args: A,
  run: (args: ParsedArgs<A & typeof jsonArg>, rawArgs: string[]) => Promise<Report>,
): CommandDef<A & typeof jsonArg> {
  return defineCommand({
    meta: { name, description },
    args: { ...args, ...jsonArg } as A & typeof jsonArg,
    run: async ({ args: parsed, rawArgs }) => report(await run(parsed, rawArgs), parsed.json === true),
  })
}

/**
 * Every value of an option given more than once (`--redirect-uri a --redirect-uri b`, or
 * `--redirect-uri=a`): citty keeps only the last one. Empty when the option is absent.
 */
export function repeatedOption(rawArgs: readonly string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!
    if (arg === '--') break
    if (arg === `--${name}`) {
      const value = rawArgs[i + 1]
      if (value === undefined || value.startsWith('--')) throw new CliFailure(`--${name} needs a value`)
      values.push(value)
      i++
    } else if (arg.startsWith(`--${name}=`)) {
      values.push(arg.slice(name.length + 3))
    }
  }
  return values
}

export const migrate = command('migrate', 'Apply every pending database migration (production runs this before starting instances)', {}, async () => {
  const db = await createDatabase(loadConfig(process.env))
  try {
    const result = await migrateToLatest(db)
    const applied = result.results?.map((r) => r.migrationName) ?? []
    if (result.newer.length) {
      return { data: { applied, newer: result.newer }, text: `nothing to apply: the database holds migrations of a later release (${result.newer.join(', ')}); this release runs on it` }
    }
    return { data: { applied }, text: applied.length ? `applied: ${applied.join(', ')}` : 'nothing to apply: the database is up to date' }
  } finally {
    await db.destroy()
  }
})

export const configCheck = command(
  'config:check',
  'Check a config file as the server would (default: IAM_CONFIG; env overrides apply); with --production or NODE_ENV=production the production rules fail it too',
  {
    file: { type: 'positional', required: false, description: 'The JSON config file (default: $IAM_CONFIG)' },
    production: { type: 'boolean', description: 'Apply the production rules (default: when NODE_ENV=production)' },
  },
  async (args) => {
    const file = args.file ?? process.env.IAM_CONFIG
    // loadConfig throws a ConfigError naming every bad key: it becomes the one-line failure
    const config = loadConfig({ ...process.env, IAM_CONFIG: file })
    const strict = args.production === true || isProduction()
    const problems = productionProblems(config)
    if (strict && problems.length) throw new CliFailure(`refused in production: ${problems.join('; ')}`)
    const text = [`${file ?? '(no file: defaults)'}: valid`, ...problems.map((p) => `production would refuse: ${p}`)].join('\n')
    return { data: { file: file ?? null, valid: true, production: strict, productionProblems: problems }, text }
  },
)

export const usersList = command(
  'users:list',
  'List accounts, oldest first',
  {
    limit: { type: 'string', description: 'How many (1-1000, default 100)', default: '100' },
    after: { type: 'string', description: 'Only accounts with an id above this one (paging)', default: '0' },
  },
  async (args) => {
    const limit = Number(args.limit)
    const afterId = Number(args.after)
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliFailure('--limit must be an integer from 1 to 1000')
    if (!Number.isInteger(afterId) || afterId < 0) throw new CliFailure('--after must be a non-negative integer')
    const users = await withContext((ctx) => listAccounts(ctx, { limit, afterId }), { storage: false })
    const text = users.map((u) => `${u.id}\t${u.email}\t${u.createdAt}${u.bannedUntil ? `\tbanned until ${u.bannedUntil}` : ''}`).join('\n') || '(no accounts)'
    return { data: { users }, text }
  },
)

export const usersBan = command(
  'users:ban',
  'Ban an account: every sign-in is refused (403) and its API tokens fail verification until --until; its sessions end now',
  { ...emailArg, until: { type: 'string', description: 'ISO date/time, or a duration: 30m, 12h, 7d (default: indefinitely)' } },
  async (args) => {
    const until = parseUntil(args.until, Date.now())
    const result = await withContext((ctx) => banAccount(ctx, { email: args.email, until, by: BY }))
    if (!result.ok) throw new CliFailure(result.code === 'unknown_account' ? `no account with the email ${args.email}` : '--until must be in the future')
    const data = { userId: result.userId, until: result.until.toISOString(), sessionsEnded: result.sessionsEnded, tokensSuspended: result.tokensSuspended }
    return { data, text: `banned ${args.email} until ${data.until}; ${data.sessionsEnded} session(s) ended, ${data.tokensSuspended} API token(s) suspended` }
  },
)

export const usersUnban = command('users:unban', 'Lift the ban of an account (its API tokens verify again)', emailArg, async (args) => {
  const result = await withContext((ctx) => unbanAccount(ctx, { email: args.email, by: BY }), { storage: false })
  if (!result.ok) throw new CliFailure(`no account with the email ${args.email}`)
  return { data: { userId: result.userId, wasBanned: result.wasBanned }, text: result.wasBanned ? `unbanned ${args.email}` : `${args.email} was not banned` }
})

export const usersGrantAdmin = command(
  'users:grant-admin',
  'Make an account a platform administrator: the /admin routes answer it (after a recent sign-in)',
  emailArg,
  async (args) => {
    const result = await withContext((ctx) => setPlatformAdmin(ctx, { email: args.email, admin: true, by: BY }), { storage: false })
    if (!result.ok) throw new CliFailure(`no account with the email ${args.email}`)
    return { data: { userId: result.userId, changed: result.changed }, text: result.changed ? `${args.email} is a platform administrator` : `${args.email} was a platform administrator already` }
  },
)

export const usersRevokeAdmin = command(
  'users:revoke-admin',
  'Take the platform administrator role from an account; its next request to /admin is refused',
  emailArg,
  async (args) => {
    const result = await withContext((ctx) => setPlatformAdmin(ctx, { email: args.email, admin: false, by: BY }), { storage: false })
    if (!result.ok) throw new CliFailure(`no account with the email ${args.email}`)
    return { data: { userId: result.userId, changed: result.changed }, text: result.changed ? `${args.email} is no longer a platform administrator` : `${args.email} was not a platform administrator` }
  },
)

export const usersPurge = command(
  'users:purge',
  'Erase the accounts whose confirmed deletion is due (the undo window, accountDeletion.undoWindowMs, has passed): the same purge the server runs on its timer; safe beside it',
  {},
  async () => {
    const { purged } = await withContext((ctx) => purgeDueAccounts(ctx.db, new Date(ctx.now())), { storage: false })
    return { data: { purged }, text: purged ? `erased ${purged} account(s) whose deletion was due` : 'no account was due for erasure' }
  },
)

const SKIP_TEXT: Record<ImportSummary['skippedLines'][number]['reason'], string> = {
  account_exists: 'an account with this address exists',
  external_id_differs: 'an account with this address exists; it keeps its own external id (none, or another)',
  duplicate_in_file: 'the address appears on an earlier line',
}

/** The text answer of users:import: the counts, then each bad and skipped line. */
function importText(summary: ImportSummary): string {
  const verb = summary.dryRun ? 'would import' : 'imported'
  const formats = Object.entries(summary.formats).map(([format, count]) => `${format} ${count}`).join(', ')
  const lines = [
    `${summary.dryRun ? 'dry run: nothing written; ' : ''}${summary.lines} line(s): ${verb} ${summary.imported}${formats ? ` (${formats})` : ''}, skipped ${summary.skipped}, invalid ${summary.invalid}`,
    ...summary.invalidLines.map((p) => `line ${p.line}: invalid: ${p.reason}`),
    ...summary.skippedLines.map((s) => `line ${s.line}: skipped ${s.email}: ${SKIP_TEXT[s.reason]}`),
  ]
  const unlisted = summary.invalid + summary.skipped - summary.invalidLines.length - summary.skippedLines.length
  if (unlisted > 0) lines.push(`(${unlisted} more not listed)`)
  return lines.join('\n')
}

export const usersImport = command(
  'users:import',
  'Import accounts from a JSON Lines file (one user per line; existing addresses are skipped, never overwritten; password hashes are kept and replaced at the next sign-in)',
  {
    file: { type: 'positional', required: true, description: 'The .jsonl file: email, name, emailVerified, passwordHash, createdAt, externalId per line' },
    'dry-run': { type: 'boolean', description: 'Read and check everything, write nothing, and say what would happen' },
  },
  async (args) => {
    const dryRun = args['dry-run'] === true
    // npm run starts the script in the package's directory; a relative path is the caller's
    const input = createReadStream(resolve(process.env.INIT_CWD ?? process.cwd(), args.file), { encoding: 'utf8' })
    const opened = new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve())
      input.once('error', reject)
    })
    await opened.catch((error: Error) => {
      throw new CliFailure(`cannot read ${args.file}: ${error.message}`)
    })
    const summary = await withContext(
      async (ctx) => {
        const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
        try {
          const now = new Date(ctx.now())
          const summary = await importUsers(ctx.db, lines, { dryRun, now })
          await recordImport(ctx.db, summary, { userId: null, visitorRowId: null, ipAddress: null, details: { by: BY } }, now)
          return summary
        } finally {
          lines.close()
          input.destroy()
        }
      },
      { storage: false },
    )
    return { data: { ...summary }, text: importText(summary) }
  },
)

export const sessionsList = command('sessions:list', "List an account's live sessions, newest first", emailArg, async (args) => {
  const sessions = await withContext(async (ctx) => listSessions(ctx, { userId: await userIdOf(ctx, args.email), currentSessionId: NO_SESSION }), { storage: false })
  const rows = sessions.map(({ current: _current, ...session }) => session)
  const text = rows.map((s) => `${s.id}\t${s.createdAt}\tlast seen ${s.lastSeenAt}\t${s.ipAddress ?? '-'}\t${s.browser ?? '-'} / ${s.os ?? '-'}`).join('\n') || '(no live sessions)'
  return { data: { sessions: rows }, text }
})

export const sessionsRevoke = command(
  'sessions:revoke',
  "End one session of an account (--session <id>, from sessions:list) or all of them (--all); its tokens stop working at once",
  { ...emailArg, session: { type: 'string', description: 'The session id to end' }, all: { type: 'boolean', description: 'End every session of the account' } },
  async (args) => {
    if (!!args.session === (args.all === true)) throw new CliFailure('give exactly one of --session <id> and --all')
    return withContext(async (ctx) => {
      const userId = await userIdOf(ctx, args.email)
      if (args.all) {
        const result = await revokeOtherSessions(ctx, { userId, currentSessionId: NO_SESSION, actor: OPERATOR })
        return { data: { revoked: result.revoked }, text: `${result.revoked} session(s) ended` }
      }
      const sessionId = args.session ?? ''
      const result = await revokeSession(ctx, { userId, sessionId, actor: OPERATOR })
      if (!result.ok) throw new CliFailure(`no live session ${sessionId} of ${args.email}`)
      return { data: { revoked: 1 }, text: `session ${sessionId} ended` }
    })
  },
)

export const keysRotate = command(
  'keys:rotate',
  'Rotate the access-token signing key (database keys): a new key signs; the old one verifies until its tokens expire. Instances pick it up within a minute',
  {},
  async () =>
    withContext(async (ctx) => {
      if (ctx.config.secrets.accessTokenKeys?.length) {
        throw new CliFailure('the signing keys come from secrets.accessTokenKeys: put a new key first in that list and roll the instances (docs/operations.md)')
      }
      const kid = await rotateSigningKey(ctx.db, ctx.now())
      await recordSecurityEvent(ctx.db, { type: 'signing_key_rotated', userId: null, visitorRowId: null, ipAddress: null, details: { kid, by: BY }, at: new Date(ctx.now()) })
      return { data: { kid }, text: `new signing key ${kid}` }
    }, { storage: false }),
)

export const tokensRevoke = command(
  'tokens:revoke',
  'Revoke one API token by its public identifier; it stops verifying at once',
  { publicIdentifier: { type: 'positional', required: true, description: 'The public identifier shown in the token listing' } },
  async (args) => {
    const result = await withContext((ctx) => revokeTokenByPublicIdentifier(ctx, { publicIdentifier: args.publicIdentifier, by: BY }), { storage: false })
    if (!result.ok) throw new CliFailure(`no valid API token with the public identifier ${args.publicIdentifier}`)
    return { data: { tokenId: result.tokenId, userId: result.userId }, text: `revoked API token ${result.tokenId} of user ${result.userId}` }
  },
)

// ---- OpenID clients (features/oidc/clients.ts) ----------------------------------------------------

const clientIdArg = { id: { type: 'positional', required: true, description: 'The client id (clients:list shows them)' } } as const satisfies ArgsDef
const SECRET_ONCE = 'Keep this secret now: it is stored sealed and will not be shown again (clients:rotate-secret issues a new one).'

/** A client change as a security event: no account is concerned, the operator acted. */
const clientEvent = (ctx: CliContext, type: 'oidc_client_created' | 'oidc_client_secret_rotated' | 'oidc_client_deleted', details: Record<string, unknown>) =>
  recordSecurityEvent(ctx.db, { type, userId: null, visitorRowId: null, ipAddress: null, details: { ...details, by: BY }, at: new Date(ctx.now()) })

function grantOf(value: string): ClientGrantType {
  const grant = GRANT_ALIASES[value] ?? value
  if (!(CLIENT_GRANT_TYPES as readonly string[]).includes(grant)) {
    throw new CliFailure(`--grant: unknown grant ${value} (one of ${[...CLIENT_GRANT_TYPES.filter((g) => !g.startsWith('urn:')), ...Object.keys(GRANT_ALIASES)].join(', ')})`)
  }
  return grant as ClientGrantType
}

function clientLines(client: ClientView): string[] {
  const list = (values: string[]) => values.join(' ') || '-'
  return [
    `client id        ${client.clientId}`,
    `name             ${client.name}`,
    `type             ${client.public ? 'public (no secret; PKCE required)' : 'confidential (client_secret_basic)'}${client.firstParty ? ', first-party (no consent page)' : ''}`,
    `grants           ${list(client.grants)}`,
    `scope            ${client.scope}`,
    `redirect URIs    ${list(client.redirectUris)}`,
    `post-logout URIs ${list(client.postLogoutRedirectUris)}`,
    ...(client.backchannelLogoutUri ? [`back-channel     ${client.backchannelLogoutUri}`] : []),
    `created          ${client.createdAt}`,
  ]
}

export const clientsCreate = command(
  'clients:create',
  'Register an app that signs people in with us (OpenID Connect). A confidential client gets a secret, printed once',
  {
    name: { type: 'string', required: true, description: 'The name people see on the consent page' },
    'redirect-uri': { type: 'string', description: 'Where the provider may send the browser back (exact match); repeat for more' },
    public: { type: 'boolean', description: 'No secret (a browser, mobile or command-line app): PKCE is required' },
    'first-party': { type: 'boolean', description: "The team's own app: no consent page" },
    grant: { type: 'string', description: 'authorization_code, refresh_token, client_credentials or device_code; repeat for more (default: authorization_code refresh_token)' },
    scope: { type: 'string', description: 'Space-separated scopes the client may ask for (default: openid profile email offline_access)' },
    'post-logout-redirect-uri': { type: 'string', description: 'Where RP-initiated logout may send the browser; repeat for more' },
    'backchannel-logout-uri': { type: 'string', description: 'Where the provider posts a logout token when the person signs out' },
  },
  async (args, rawArgs) => {
    const grants = repeatedOption(rawArgs, 'grant').map(grantOf)
    const input = {
      name: args.name,
      redirectUris: repeatedOption(rawArgs, 'redirect-uri'),
      postLogoutRedirectUris: repeatedOption(rawArgs, 'post-logout-redirect-uri'),
      public: args.public === true,
      firstParty: args['first-party'] === true,
      grants,
      scope: args.scope,
      backchannelLogoutUri: args['backchannel-logout-uri'],
    }
    return withContext(async (ctx) => {
      let created: Awaited<ReturnType<typeof createClient>>
      try {
        created = await createClient(ctx, input)
      } catch (error) {
        if (error instanceof ClientInputError) throw new CliFailure(`--${error.message}`)
        throw error
      }
      const { client, clientSecret } = created
      await clientEvent(ctx, 'oidc_client_created', { clientId: client.clientId, name: client.name })
      const text = [...clientLines(client), ...(clientSecret ? [`client secret    ${clientSecret}`, SECRET_ONCE] : [])].join('\n')
      return { data: { client, clientSecret }, text }
    }, { storage: false })
  },
)

export const clientsList = command('clients:list', 'List the registered apps, oldest first', {}, async () => {
  const clients = await withContext((ctx) => listClients(ctx.db), { storage: false })
  const text = clients.map((c) => `${c.clientId}\t${c.name}\t${c.public ? 'public' : 'confidential'}${c.firstParty ? ', first-party' : ''}\t${c.redirectUris.join(' ') || '-'}`).join('\n') || '(no clients)'
  return { data: { clients }, text }
})

export const clientsShow = command('clients:show', 'Show one registered app (never its secret)', clientIdArg, async (args) => {
  const client = await withContext((ctx) => showClient(ctx.db, args.id), { storage: false })
  if (!client) throw new CliFailure(`no client with the id ${args.id}`)
  return { data: { client }, text: clientLines(client).join('\n') }
})

export const clientsRotateSecret = command(
  'clients:rotate-secret',
  "Give a confidential client a new secret, printed once; the old one stops working at once",
  clientIdArg,
  async (args) =>
    withContext(async (ctx) => {
      const secret = await rotateClientSecret(ctx, args.id)
      if (secret === null) throw new CliFailure(`no client with the id ${args.id}`)
      if (secret === 'public') throw new CliFailure(`${args.id} is a public client: it has no secret to rotate`)
      await clientEvent(ctx, 'oidc_client_secret_rotated', { clientId: args.id })
      return { data: { clientId: args.id, clientSecret: secret }, text: [`client id        ${args.id}`, `client secret    ${secret}`, SECRET_ONCE].join('\n') }
    }, { storage: false }),
)

export const clientsDelete = command(
  'clients:delete',
  'Remove a registered app and every grant, code and token issued to it',
  clientIdArg,
  async (args) =>
    withContext(async (ctx) => {
      if (!(await deleteClient(ctx.db, args.id))) throw new CliFailure(`no client with the id ${args.id}`)
      await clientEvent(ctx, 'oidc_client_deleted', { clientId: args.id })
      return { data: { clientId: args.id, deleted: true }, text: `deleted client ${args.id}; its grants and tokens no longer work` }
    }, { storage: false }),
)

const endpointIdArg = { id: { type: 'positional', required: true, description: 'The endpoint id (ep_...)' } } as const satisfies ArgsDef
const endpointLines = (e: EndpointView) => [
  `id               ${e.id}`,
  `url              ${e.url}`,
  `event types      ${e.eventTypes.join(' ')}`,
  `enabled          ${e.enabled ? 'yes' : `no (${e.disabledReason})`}`,
  ...(e.description ? [`description      ${e.description}`] : []),
]
const WEBHOOK_SECRET_ONCE = '(the secret is shown only now: give it to the receiver, which verifies every delivery with it; docs/webhooks.md)'

export const webhooksList = command('webhooks:list', 'List the webhook endpoints with their last day of attempts and their queue', {}, async () => {
  const { endpoints } = await withContext((ctx) => listEndpoints(ctx, PLATFORM), { storage: false })
  const rate = (e: EndpointView) => (e.stats.successRate24h === null ? '-' : `${Math.round(e.stats.successRate24h * 100)}%`)
  const text =
    endpoints.map((e) => `${e.id}\t${e.enabled ? 'on' : `off (${e.disabledReason})`}\t${e.url}\t${e.eventTypes.join(',')}\tsuccess ${rate(e)}\tpending ${e.stats.pending}\tdead ${e.stats.dead}`).join('\n') ||
    '(no webhook endpoints)'
  return { data: { endpoints }, text }
})

export const webhooksCreate = command(
  'webhooks:create',
  'Add a webhook endpoint (https) for the given event types (repeat --event-type; `user.*` and `*` work); prints its secret once',
  {
    url: { type: 'positional', required: true, description: 'Where deliveries go (https)' },
    'event-type': { type: 'string', required: true, description: 'An event type of docs/webhooks.md, `family.*` or `*` (repeatable)' },
    description: { type: 'string', description: 'What the endpoint is for' },
  },
  async (args, rawArgs) => {
    const eventTypes = repeatedOption(rawArgs, 'event-type')
    const unknown = eventTypes.filter((t) => !isWebhookPattern(t))
    if (unknown.length) throw new CliFailure(`not an event type of the catalogue (docs/webhooks.md): ${unknown.join(', ')}`)
    const result = await withContext((ctx) => createEndpoint(ctx, PLATFORM, { url: args.url, eventTypes, description: args.description }), { storage: false })
    if (!result.ok) throw new CliFailure(result.code === 'webhook_url_refused' ? result.message : 'the endpoint could not be added')
    return { data: { endpoint: result.endpoint, secret: result.secret }, text: [...endpointLines(result.endpoint), `secret           ${result.secret}`, WEBHOOK_SECRET_ONCE].join('\n') }
  },
)

export const webhooksRotateSecret = command(
  'webhooks:rotate-secret',
  'Give an endpoint a new secret, printed once; the previous one keeps signing beside it for webhooks.secretOverlapMs',
  endpointIdArg,
  async (args) => {
    const result = await withContext((ctx) => rotateEndpointSecret(ctx, PLATFORM, args.id), { storage: false })
    if (!result.ok) throw new CliFailure(`no webhook endpoint with the id ${args.id}`)
    const until = result.endpoint.previousSecretUntil
    return {
      data: { endpoint: result.endpoint, secret: result.secret },
      text: [...endpointLines(result.endpoint), `secret           ${result.secret}`, until ? `the previous secret signs too until ${until}` : '', WEBHOOK_SECRET_ONCE].filter(Boolean).join('\n'),
    }
  },
)

export const webhooksDelete = command('webhooks:delete', 'Remove a webhook endpoint with its deliveries and their log', endpointIdArg, async (args) => {
  if (!(await withContext((ctx) => deleteEndpoint(ctx, PLATFORM, args.id), { storage: false }))) throw new CliFailure(`no webhook endpoint with the id ${args.id}`)
  return { data: { id: args.id, deleted: true }, text: `deleted webhook endpoint ${args.id}` }
})
