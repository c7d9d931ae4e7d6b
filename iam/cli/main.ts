/**
 * `npm run iam -- <command>`: the admin CLI. Help per command with --help;
 * a failure is one line on stderr and exit status 1 (2 for an unknown command).
 */
import { defineCommand, runCommand, showUsage, type CommandDef } from 'citty'
import * as commands from './commands'

const SUB_COMMANDS: Record<string, CommandDef> = {
  migrate: commands.migrate,
  'config:check': commands.configCheck,
  'users:list': commands.usersList,
  'users:ban': commands.usersBan,
  'users:unban': commands.usersUnban,
  'users:grant-admin': commands.usersGrantAdmin,
  'users:revoke-admin': commands.usersRevokeAdmin,
  'users:import': commands.usersImport,
  'users:purge': commands.usersPurge,
  'sessions:list': commands.sessionsList,
  'sessions:revoke': commands.sessionsRevoke,
  'keys:rotate': commands.keysRotate,
  'tokens:revoke': commands.tokensRevoke,
  'clients:create': commands.clientsCreate,
  'clients:list': commands.clientsList,
  'clients:show': commands.clientsShow,
  'clients:rotate-secret': commands.clientsRotateSecret,
  'clients:delete': commands.clientsDelete,
  'webhooks:list': commands.webhooksList,
  'webhooks:create': commands.webhooksCreate,
  'webhooks:rotate-secret': commands.webhooksRotateSecret,
  'webhooks:delete': commands.webhooksDelete,
} as Record<string, CommandDef>

export const main = defineCommand({
  meta: {
    name: 'iam',
    description:
      "The IAM's admin commands, with the server's config and env (IAM_CONFIG, DATABASE_URL, REDIS_URL, NODE_ENV). " +
      'On the embedded PGlite database, stop the IAM first: PGlite is single-process (a held data dir is refused).',
  },
  subCommands: SUB_COMMANDS,
})

const oneLine = (message: string) => message.split('\n').map((line) => line.trim()).filter(Boolean).join('; ')

/** Runs the command line; resolves with the exit status. */
export async function runIamCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  const sub = name ? SUB_COMMANDS[name] : undefined
  if (name && !name.startsWith('-') && !sub) {
    process.stderr.write(`iam: unknown command ${name} (npm run iam -- --help lists them)\n`)
    return 2
  }
  if (!sub || rest.includes('--help') || rest.includes('-h')) {
    await showUsage(sub ?? main, sub ? main : undefined)
    return sub || !name || name === '--help' || name === '-h' ? 0 : 2
  }
  try {
    await runCommand(sub, { rawArgs: rest })
    return 0
  } catch (error) {
    process.stderr.write(`iam ${name}: ${oneLine(error instanceof Error ? error.message : String(error))}\n`)
    return 1
  }
}
