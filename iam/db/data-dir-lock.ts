/**
 * One process per PGlite data directory. PGlite is Postgres in WASM inside one process: it has no
 * postmaster to arbitrate, so two processes opening the same directory (a running IAM and the admin
 * CLI, `npm run db:migrate`, or a second IAM) each write their own view of the files and corrupt
 * them. Whoever opens the directory first writes a lock file with its pid there (created with `wx`,
 * so exactly one of two racing openers wins); the others refuse with the holder's pid. A lock whose
 * pid no longer runs was left by a crash and is taken over.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'iam.lock'

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the PGlite data dir ${dataDir} is in use by process ${pid} (a running IAM or admin command); PGlite allows one process per data dir: stop that process first, or use PostgreSQL (DATABASE_URL) to run commands beside the IAM`,
    )
    this.name = 'DataDirLockedError'
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A lock file's text; '' when it is gone or unreadable (a holder mid-release). */
function readLock(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** The pid in a lock file's text (its first line); NaN when there is none. */
const holderPid = (text: string): number => Number.parseInt(text, 10)

/**
 * Takes the lock of `dataDir` for this process; returns its release (idempotent, also run when the
 * process exits). Throws DataDirLockedError while another live process holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE)
  // the pid for other processes; a token of this opening, so a release removes only its own lock
  // (`nitro dev` reloads the app in a new worker of the same process, which takes the lock over)
  const text = `${process.pid}\n${randomUUID()}\n`
  // three tries: a stale lock removed by us can be re-taken by a racing opener in between
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, text, { flag: 'wx' })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const held = readLock(path)
      const pid = holderPid(held)
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) throw new DataDirLockedError(dataDir, pid)
      // stale (its process is gone) or this process's own: remove only the file we judged
      if (readLock(path) === held) rmSync(path, { force: true })
      continue
    }
    let released = false
    const release = () => {
      if (released) return
      released = true
      process.off('exit', release)
      if (readLock(path) === text) rmSync(path, { force: true })
    }
    process.on('exit', release)
    return release
  }
  throw new DataDirLockedError(dataDir, holderPid(readLock(path)))
}
