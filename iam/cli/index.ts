/** Entry of the admin CLI, built next to the server (server/cli.mjs; see nitro.config.ts). */
import { runIamCli } from './main'

// exitCode, not exit(): stdout to a pipe is written asynchronously and must be flushed first.
void runIamCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code
})
